/*
 * selftest.c: the startup self-test. A loopd whose denial table or tool
 * schemas were built wrong would mislead the model, and one whose home is
 * not writable would lose history: neither starts.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "proto/types.h"
#include "proto/writefile.h"
#include "loopd/denial.h"
#include "loopd/selftest.h"
#include "loopd/tools.h"

#define SELFTEST_RUNBOOK	"see docs/runbook.md#loopd-selftest-failed"

int
selftest_denials(struct bx_error *err)
{
	const char *text;
	int r;

	for (r = 0; r < BX_DENY_MAX; r++) {
		text = denial_text((enum bx_deny)r);
		if (text == NULL || strncmp(text, "Denied: ", 8) != 0)
			return bx_fail(err, "the denial table has no text for "
			    "reason %s", bx_deny_name((enum bx_deny)r));
	}
	return 0;
}

static int
check_schemas(const struct tool_def *defs, size_t n, struct bx_error *err)
{
	json_error_t jerr;
	json_t *schema;
	size_t i;

	for (i = 0; i < n; i++) {
		schema = json_loads(defs[i].td_schema, JSON_REJECT_DUPLICATES,
		    &jerr);
		if (!json_is_object(schema)) {
			json_decref(schema);
			return bx_fail(err, "the argument schema of tool %s is "
			    "not a JSON object (%s)", defs[i].td_name,
			    schema == NULL ? jerr.text : "another JSON value");
		}
		json_decref(schema);
	}
	return 0;
}

int
selftest_schemas(struct bx_error *err)
{
	const struct tool_def *defs;
	size_t n;

	defs = tools_core(&n);
	if (check_schemas(defs, n, err) == -1)
		return -1;
	defs = tools_discoverable(&n);
	return check_schemas(defs, n, err);
}

/* The paths loopd makes under home must fit; a session log is the longest. */
#define SELFTEST_HOME_ROOM	(sizeof("/sessions/.jsonl") + BX_ID_MAX)

int
selftest_home(const char *home, struct bx_error *err)
{
	char dir[PATH_MAX], probe[PATH_MAX];
	int fd, r = 0;

	if (strlen(home) + SELFTEST_HOME_ROOM > PATH_MAX)
		return bx_fail(err, "the home (%zu bytes) is too long: loopd's "
		    "paths under it must fit in %d bytes", strlen(home),
		    PATH_MAX - 1);
	if (bx_mkdir_private(home, err) == -1)
		return bx_error_prefix(err, "the home is not writable");
	snprintf(dir, sizeof(dir), "%s/memory", home);
	if (bx_mkdir_private(dir, err) == -1)
		return bx_error_prefix(err, "the home is not writable");
	snprintf(dir, sizeof(dir), "%s/sessions", home);
	if (bx_mkdir_private(dir, err) == -1)
		return bx_error_prefix(err, "the home is not writable");
	snprintf(probe, sizeof(probe), "%s/.selftest-%ld", dir, (long)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1)
		return bx_fail(err, "the home is not writable: %s: %s", probe,
		    strerror(errno));
	if (write(fd, "ok\n", 3) != 3 || fsync(fd) == -1)
		r = bx_fail(err, "the home is not writable: %s: %s", probe,
		    strerror(errno));
	close(fd);
	unlink(probe);
	return r;
}

int
selftest_run(const char *home, struct bx_error *err)
{
	struct bx_error why;

	if (selftest_denials(&why) == -1 || selftest_schemas(&why) == -1 ||
	    selftest_home(home, &why) == -1)
		return bx_fail(err, "loopd self-test failed: %s; "
		    SELFTEST_RUNBOOK, why.msg);
	return 0;
}
