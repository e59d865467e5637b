/*
 * turnrig.c: the turn tests' rig (see turnrig.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "turnrig.h"

static void
log_line(void *arg, const char *line)
{
	struct rig *r = arg;

	if (r->nlogged < RIG_MAX_LOGGED)
		snprintf(r->logged[r->nlogged++], sizeof(r->logged[0]), "%s",
		    line);
}

void
rig_up_model(struct rig *r, const char *script, const struct rig_model *model,
    const struct fbd_step *steps, size_t nsteps)
{
	struct fake_llama_opts opts = { .script = script };
	struct bx_error err;
	char url[64];

	memset(r, 0, sizeof(*r));
	if (model != NULL)
		opts.gate = model->rm_gate;
	r->home = tu_tmpdir();
	if (fake_llama_start(&opts, &r->fl, &err) == -1)
		fail_msg("%s", err.msg);
	fake_llama_url(r->fl, url, sizeof(url));
	assert_int_equal(model_client_new(url, model != NULL &&
	    model->rm_name != NULL ? model->rm_name : "m", model != NULL ?
	    model->rm_key : NULL, model != NULL && model->rm_timeout_s > 0 ?
	    model->rm_timeout_s : 30, model != NULL &&
	    model->rm_max_tokens > 0 ? model->rm_max_tokens : 4096, NULL,
	    &r->mc, &err), 0);
	r->env.te_home = r->home;
	r->env.te_model = r->mc;
	r->env.te_max_steps = 16;
	r->env.te_log = log_line;
	r->env.te_log_arg = r;
	if (steps == NULL)
		return;
	r->fbd = fbd_start(r->home, steps, nsteps);
	assert_int_equal(bport_new(fbd_path(r->fbd), NULL, &r->bp, &err), 0);
	bport_tool_port(r->bp, &r->port);
	r->env.te_port = &r->port;
}

void
rig_up(struct rig *r, const char *script, const struct fbd_step *steps,
    size_t nsteps)
{
	rig_up_model(r, script, NULL, steps, nsteps);
}

void
rig_down(struct rig *r)
{
	fake_llama_stop(r->fl);
	fbd_stop(r->fbd);
	bport_free(r->bp);
	model_client_free(r->mc);
	tu_events_free(&r->deltas);
	tu_rmtree(r->home);
}

json_t *
request_messages(struct rig *r, size_t i)
{
	char *body = fake_llama_request(r->fl, i);
	json_t *req, *msgs;

	assert_non_null(body);
	req = json_loads(body, 0, NULL);
	free(body);
	assert_non_null(req);
	msgs = json_incref(json_object_get(req, "messages"));
	json_decref(req);
	return msgs;
}

const char *
last_content(struct rig *r, size_t i, json_t **keep)
{
	*keep = request_messages(r, i);
	return json_string_value(json_object_get(json_array_get(*keep,
	    json_array_size(*keep) - 1), "content"));
}

int
run(struct rig *r, const char *session, const char *text,
    struct tu_events *ev)
{
	struct tu_events all = { NULL, 0 };
	size_t i;
	int rc;

	memset(ev, 0, sizeof(*ev));
	tu_events_free(&r->deltas);
	rc = turn_run(&r->env, session, text, r->cancel, tu_record, &all);
	for (i = 0; i < all.n; i++)
		tu_record(all.ev[i]->turn_event.type == BX_EVENT_TEXT_DELTA ?
		    &r->deltas : ev, all.ev[i]);
	free(all.ev);
	return rc;
}
