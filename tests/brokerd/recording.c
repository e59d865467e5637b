/* recording.c: the recording Runtime of recording.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recording.h"

void
recording_init(struct recording *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	r->status = RUN_OK;
	snprintf(r->text, sizeof(r->text), "content");
}

static char *
dup_or_null(const char *s)
{
	return s == NULL ? NULL : strdup(s);
}

static void
call_free(struct recorded_call *c)
{
	size_t i;

	free(c->path);
	free(c->content);
	free(c->command);
	free(c->cwd);
	free(c->url);
	for (i = 0; i < c->nmounts; i++)
		free(c->mounts[i]);
	for (i = 0; i < c->negress; i++)
		free(c->egress[i]);
}

void
recording_free(struct recording *r)
{
	size_t i;

	for (i = 0; i < r->count; i++)
		call_free(&r->calls[i]);
	free(r->calls);
	pthread_mutex_destroy(&r->lock);
}

static void
copy_spec(struct recorded_call *c, const struct run_spec *spec)
{
	const struct tool_args *a = run_spec_args(spec);
	const char *const *egress;
	size_t i, n;

	memset(c, 0, sizeof(*c));
	c->tool = run_spec_tool(spec);
	if (a != NULL) {
		c->path = dup_or_null(a->ta_path);
		c->content = dup_or_null(a->ta_content);
		c->command = dup_or_null(a->ta_command);
		c->cwd = dup_or_null(a->ta_cwd);
		c->url = dup_or_null(a->ta_url);
	}
	n = run_spec_nmounts(spec);
	for (i = 0; i < n && i < RECORDING_MAX_ITEMS; i++) {
		c->mounts[i] = strdup(run_spec_mount_path(spec, i));
		c->writable[i] = run_spec_mount_writable(spec, i);
	}
	c->nmounts = i;
	c->has_egress = run_spec_has_egress(spec);
	egress = run_spec_egress(spec, &n);
	for (i = 0; i < n && i < RECORDING_MAX_ITEMS; i++)
		c->egress[i] = strdup(egress[i]);
	c->negress = i;
}

static int
record(void *ctx, const struct run_spec *spec, struct run_result *ret,
    struct bx_error *err)
{
	struct recording *r = ctx;
	struct recorded_call *grown;
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	if (r->count == r->cap) {
		r->cap = r->cap == 0 ? 16 : r->cap * 2;
		grown = realloc(r->calls, r->cap * sizeof(*grown));
		if (grown == NULL)
			abort();
		r->calls = grown;
	}
	copy_spec(&r->calls[r->count++], spec);
	if (r->hard_fail)
		rc = bx_fail(err, "recording: told to fail");
	else {
		ret->rr_status = r->status;
		ret->rr_text = strdup(r->text);
		ret->rr_truncated = r->truncated;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

struct runtime
recording_runtime(struct recording *r)
{
	struct runtime rt = { record, r };

	return rt;
}

size_t
recording_count(struct recording *r)
{
	size_t n;

	pthread_mutex_lock(&r->lock);
	n = r->count;
	pthread_mutex_unlock(&r->lock);
	return n;
}
