/*
 * test-bridgestate.c: the Mattermost bridge's state file as bxctl status
 * judges it (src/bxctl/status/bridgestate.c): fresh and connected, stale,
 * a dead pid, a refused token with its error, each way a file is
 * malformed (and that nothing of it is kept then), no file, a file too
 * large, and the staleness bound max(3 * poll_s, 90) s.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bxctl/status/bridgestate.h"

/* Now, in ms, as bxctl passes it: a fixed 2026-01-01 00:00:00 UTC. */
#define NOW_S	1767225600LL
#define NOW	(NOW_S * 1000)

/* A state file's text: pid, updated (s before NOW), the two states. */
static char *
state(char *buf, size_t size, long pid, long ago_s, const char *mm,
    const char *broker, const char *rest)
{
	snprintf(buf, size, "{\"pid\": %ld, \"started\": %lld, \"updated\": "
	    "%lld, \"mattermost\": \"%s\", \"broker\": \"%s\", %s}", pid,
	    NOW_S - 3600, NOW_S - ago_s, mm, broker, rest);
	return buf;
}

#define NO_ERROR "\"last_error\": null, \"last_error_at\": null, " \
	"\"runbook\": null, \"pending_posts\": 0"

static void
judge(const char *text, int poll_s, struct bridge_state *bs)
{
	bridge_state_parse(text, strlen(text), NOW, poll_s, bs);
}

/* A pid that was a process and is no more: a child, reaped. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid != -1);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void
test_fresh_connected(void **unused)
{
	struct bridge_state bs;
	char text[1024];

	(void)unused;
	judge(state(text, sizeof(text), (long)getpid(), 2, "connected",
	    "connected", "\"last_error\": null, \"last_error_at\": null, "
	    "\"runbook\": null, \"pending_posts\": 3"), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_RUNNING);
	assert_int_equal(bs.bs_pid, getpid());
	assert_int_equal(bs.bs_started, (NOW_S - 3600) * 1000);
	assert_int_equal(bs.bs_updated, (NOW_S - 2) * 1000);
	assert_string_equal(bs.bs_mattermost, "connected");
	assert_string_equal(bs.bs_broker, "connected");
	assert_int_equal(bs.bs_pending_posts, 3);
	assert_null(bs.bs_last_error);
	assert_null(bs.bs_runbook);
	assert_null(bridge_mattermost_runbook(bs.bs_mattermost));
	bridge_state_clear(&bs);
}

/* Older than max(3 * poll_s, 90) s: not running, saying how old. */
static void
test_stale(void **unused)
{
	struct bridge_state bs;
	char text[1024];

	(void)unused;
	assert_int_equal(bridge_stale_s(3), 90);
	assert_int_equal(bridge_stale_s(30), 90);
	assert_int_equal(bridge_stale_s(60), 180);
	judge(state(text, sizeof(text), (long)getpid(), 90, "connected",
	    "connected", NO_ERROR), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_RUNNING);
	judge(state(text, sizeof(text), (long)getpid(), 91, "connected",
	    "connected", NO_ERROR), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_STOPPED);
	assert_string_equal(bs.bs_why, "no update for 91 s (over 90 s)");
	/* A slow poll allows more. */
	judge(state(text, sizeof(text), (long)getpid(), 170, "connected",
	    "connected", NO_ERROR), 60, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_RUNNING);
	judge(state(text, sizeof(text), (long)getpid(), 181, "connected",
	    "connected", NO_ERROR), 60, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_STOPPED);
	/* A time far ahead of this clock is no proof of life either. */
	judge(state(text, sizeof(text), (long)getpid(), -3600, "connected",
	    "connected", NO_ERROR), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_STOPPED);
	assert_string_equal(bs.bs_why, "its last update is 3600 s ahead of "
	    "this clock");
	bridge_state_clear(&bs);
}

static void
test_dead_pid(void **unused)
{
	struct bridge_state bs;
	char text[1024], want[64];
	pid_t pid = dead_pid();

	(void)unused;
	judge(state(text, sizeof(text), (long)pid, 1, "connected",
	    "connected", NO_ERROR), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_STOPPED);
	snprintf(want, sizeof(want), "its pid %ld is gone", (long)pid);
	assert_string_equal(bs.bs_why, want);
	/* Its fields are still there to show. */
	assert_string_equal(bs.bs_mattermost, "connected");
	bridge_state_clear(&bs);
	/* pid 1 is alive (and, for a user, EPERM): alive all the same. */
	judge(state(text, sizeof(text), 1, 1, "connected", "connected",
	    NO_ERROR), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_RUNNING);
}

/* The token refused: the error kept as data, its runbook entry checked. */
static void
test_token_refused(void **unused)
{
	struct bridge_state bs;
	char text[2048];

	(void)unused;
	judge(state(text, sizeof(text), (long)getpid(), 5, "token-refused",
	    "connected", "\"last_error\": \"GET /api/v4/users/me: 401 "
	    "\\u001b[2J\\u202e@channel\", \"last_error_at\": 1767225540, "
	    "\"runbook\": \"docs/runbook.md#bridge-token-refused\", "
	    "\"pending_posts\": 1"), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_RUNNING);
	assert_string_equal(bs.bs_mattermost, "token-refused");
	assert_string_equal(bs.bs_last_error,
	    "GET /api/v4/users/me: 401 \x1b[2J\xe2\x80\xae@channel");
	assert_int_equal(bs.bs_last_error_at, (NOW_S - 60) * 1000);
	assert_string_equal(bs.bs_runbook,
	    "docs/runbook.md#bridge-token-refused");
	assert_string_equal(bridge_mattermost_runbook(bs.bs_mattermost),
	    BRIDGE_RUNBOOK_TOKEN);
	bridge_state_clear(&bs);
	/* Each state that needs the owner has its entry. */
	assert_string_equal(bridge_mattermost_runbook("unreachable"),
	    "docs/runbook.md#bridge-unreachable");
	assert_string_equal(bridge_mattermost_runbook("rate-limited"),
	    "docs/runbook.md#bridge-rate-limited");
	assert_string_equal(bridge_mattermost_runbook("not-found"),
	    "docs/runbook.md#bridge-owner-not-found");
	assert_null(bridge_mattermost_runbook("connecting"));
}

/* A long error is cut at a whole character, never mid-UTF-8. */
static void
test_long_error(void **unused)
{
	struct bridge_state bs;
	char err[4 * BRIDGE_ERROR_MAX], rest[5 * BRIDGE_ERROR_MAX];
	char text[6 * BRIDGE_ERROR_MAX];
	size_t i;

	(void)unused;
	err[0] = 'x';
	for (i = 1; i + 2 < sizeof(err) - 1; i += 2)
		memcpy(err + i, "\xc3\xa9", 2);	/* é */
	err[i] = '\0';
	snprintf(rest, sizeof(rest), "\"last_error\": \"%s\", "
	    "\"last_error_at\": 1767225540, \"runbook\": null, "
	    "\"pending_posts\": 0", err);
	judge(state(text, sizeof(text), (long)getpid(), 5, "unreachable",
	    "connected", rest), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_RUNNING);
	assert_int_equal(strlen(bs.bs_last_error), BRIDGE_ERROR_MAX - 1);
	assert_memory_equal(bs.bs_last_error + BRIDGE_ERROR_MAX - 3,
	    "\xc3\xa9", 2);
	bridge_state_clear(&bs);
}

/* Each way a file is malformed, with what is said of it. */
static void
test_malformed(void **unused)
{
	static const struct {
		const char	*text;
		const char	*why;
	} cases[] = {
		{ "", "not JSON at line 1: " },
		{ "{\"pid\": 1", "not JSON at line 1: " },
		{ "[1]", "not a JSON object" },
		{ "{}", "\"pid\" is not an integer from 1 to 2147483647" },
		{ "{\"pid\": 1, \"pid\": 2}", "not JSON at line 1: " },
		{ "{\"pid\": \"1\"}", "\"pid\" is not an integer" },
		{ "{\"pid\": 0}", "\"pid\" is not an integer" },
		{ "{\"pid\": 5, \"started\": 1.5}", "\"started\" is not an " },
		{ "{\"pid\": 5, \"started\": 1, \"updated\": -1}",
		    "\"updated\" is not an " },
	};
	struct bridge_state bs;
	char text[1024];
	size_t i;

	(void)unused;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		judge(cases[i].text, 3, &bs);
		if (bs.bs_run != BRIDGE_MALFORMED ||
		    strncmp(bs.bs_why, cases[i].why,
		    strlen(cases[i].why)) != 0)
			fail_msg("%s: run %d, why '%s', not '%s'",
			    cases[i].text, bs.bs_run, bs.bs_why,
			    cases[i].why);
	}
	/* Values the bridge never writes. */
	judge(state(text, sizeof(text), (long)getpid(), 1, "hacked",
	    "connected", NO_ERROR), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	assert_string_equal(bs.bs_why, "\"mattermost\" is not one of the "
	    "states the bridge writes");
	judge(state(text, sizeof(text), (long)getpid(), 1, "connected",
	    "maybe", NO_ERROR), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	judge(state(text, sizeof(text), (long)getpid(), 1, "connected",
	    "connected", "\"last_error\": null, \"last_error_at\": null, "
	    "\"runbook\": null, \"pending_posts\": -1"), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	/* A runbook that points anywhere else. */
	judge(state(text, sizeof(text), (long)getpid(), 1, "unreachable",
	    "connected", "\"last_error\": \"e\", \"last_error_at\": 1, "
	    "\"runbook\": \"https://evil.example/\", \"pending_posts\": 0"),
	    3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	judge(state(text, sizeof(text), (long)getpid(), 1, "unreachable",
	    "connected", "\"last_error\": \"e\", \"last_error_at\": 1, "
	    "\"runbook\": \"docs/runbook.md#a\\u001b[2J\", "
	    "\"pending_posts\": 0"), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	/* An error without its time; a time without its error. */
	judge(state(text, sizeof(text), (long)getpid(), 1, "unreachable",
	    "connected", "\"last_error\": \"e\", \"last_error_at\": null, "
	    "\"runbook\": null, \"pending_posts\": 0"), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	judge(state(text, sizeof(text), (long)getpid(), 1, "unreachable",
	    "connected", "\"last_error\": null, \"last_error_at\": 5, "
	    "\"runbook\": null, \"pending_posts\": 0"), 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	/* Nothing of a malformed file is kept. */
	assert_null(bs.bs_mattermost);
	assert_null(bs.bs_last_error);
	assert_int_equal(bs.bs_pid, 0);
	/* jansson's quote of the bytes is escaped. */
	judge("{\"pid\": \x1b[2J}", 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	assert_null(strchr(bs.bs_why, '\x1b'));
}

static char *
tempdir(void)
{
	char tmpl[] = "/tmp/test-bridgestate.XXXXXX";
	char *dir;

	assert_non_null(mkdtemp(tmpl));
	assert_non_null(dir = strdup(tmpl));
	return dir;
}

/* From the home: no file, a good one, one too large, a directory. */
static void
test_read(void **unused)
{
	struct bridge_state bs;
	char *home = tempdir(), path[512], text[1024];
	FILE *fp;
	size_t i;

	(void)unused;
	bridge_state_read(home, NOW, 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_ABSENT);
	snprintf(path, sizeof(path), "%s/bridge", home);
	assert_int_equal(mkdir(path, 0755), 0);
	bridge_state_read(home, NOW, 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_ABSENT);

	snprintf(path, sizeof(path), "%s/" BRIDGE_STATE_FILE, home);
	assert_non_null(fp = fopen(path, "w"));
	fputs(state(text, sizeof(text), (long)getpid(), 1, "connecting",
	    "unreachable", NO_ERROR), fp);
	assert_int_equal(fclose(fp), 0);
	bridge_state_read(home, NOW, 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_RUNNING);
	assert_string_equal(bs.bs_broker, "unreachable");
	bridge_state_clear(&bs);

	/* Past the bound: refused before it is parsed. */
	assert_non_null(fp = fopen(path, "w"));
	for (i = 0; i <= BRIDGE_STATE_MAX; i++)
		fputc(' ', fp);
	assert_int_equal(fclose(fp), 0);
	bridge_state_read(home, NOW, 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	assert_non_null(strstr(bs.bs_why, path));

	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	bridge_state_read(home, NOW, 3, &bs);
	assert_int_equal(bs.bs_run, BRIDGE_MALFORMED);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/bridge", home);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(home), 0);
	free(home);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_connected),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_dead_pid),
		cmocka_unit_test(test_token_refused),
		cmocka_unit_test(test_long_error),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
