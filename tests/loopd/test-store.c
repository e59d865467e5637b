/*
 * test-store.c: what loopd keeps in its home: session logs (append, replay,
 * damage), memory/core.md (absent, present, unreadable, not UTF-8) and the
 * startup self-test.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "loopd/denial.h"
#include "loopd/memory.h"
#include "loopd/selftest.h"
#include "loopd/session_log.h"
#include "testutil.h"

static void
test_log_round_trip(void **state)
{
	char *home = tu_tmpdir(), *text, path[4096];
	json_t *msgs, *loaded;
	struct bx_error err;
	struct stat st;
	mode_t mask;

	(void)state;
	assert_false(session_log_exists(home, "s1"));
	assert_int_equal(session_log_load(home, "s1", &loaded, &err), 0);
	assert_int_equal(json_array_size(loaded), 0);
	json_decref(loaded);

	msgs = json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s, s:n, s:[{s:s}]}]",
	    "role", "system", "content", "not logged",
	    "role", "user", "content", "line one\nline two",
	    "role", "assistant", "content", "tool_calls", "id", "c1");
	mask = umask(077);
	umask(mask);
	assert_int_equal(session_log_append(home, "s1", msgs, 1, &err), 0);
	assert_true(session_log_exists(home, "s1"));
	text = tu_read(home, "sessions/s1.jsonl");
	assert_string_equal(text, "{\"role\":\"user\",\"content\":\"line one\\n"
	    "line two\"}\n{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"c1\"}]}\n");
	free(text);
	/*
	 * Made with group bits for a jail's default ACL (design.md, "loopd's
	 * jail"): without one, the umask decides.
	 */
	snprintf(path, sizeof(path), "%s/sessions/s1.jsonl", home);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0660 & ~mask);
	snprintf(path, sizeof(path), "%s/sessions", home);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);

	/* Appending nothing changes nothing; appending more adds lines. */
	assert_int_equal(session_log_append(home, "s1", msgs, 3, &err), 0);
	assert_int_equal(session_log_append(home, "s1", msgs, 2, &err), 0);
	assert_int_equal(session_log_load(home, "s1", &loaded, &err), 0);
	assert_int_equal(json_array_size(loaded), 3);
	assert_true(json_equal(json_array_get(loaded, 0),
	    json_array_get(msgs, 1)));
	assert_true(json_equal(json_array_get(loaded, 2),
	    json_array_get(msgs, 2)));
	json_decref(loaded);
	json_decref(msgs);
	tu_rmtree(home);
}

static void
damaged(const char *home, const char *content, const char *says)
{
	struct bx_error err;
	json_t *loaded = NULL;

	tu_write(home, "sessions/bad.jsonl", content, strlen(content));
	assert_int_equal(session_log_load(home, "bad", &loaded, &err), -1);
	assert_null(loaded);
	if (strstr(err.msg, says) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, says);
	assert_non_null(strstr(err.msg, "bad.jsonl"));
	assert_non_null(strstr(err.msg,
	    "see docs/runbook.md#session-log-damaged"));
}

static void
test_log_damage(void **state)
{
	char *home = tu_tmpdir();
	struct bx_error err;
	json_t *loaded;

	(void)state;
	damaged(home, "{\"role\":\"user\",\"content\":\"a\"}\n{not json\n",
	    "line 2");
	damaged(home, "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"us",
	    "line 2 (the last line has no newline");
	damaged(home, "[1]\n", "line 1");
	damaged(home, "{\"role\":\"system\",\"content\":\"x\"}\n", "line 1");
	damaged(home, "{\"content\":\"x\"}\n", "line 1");
	damaged(home, "\n", "line 1");
	/* Another session's log is not affected. */
	tu_write(home, "sessions/good.jsonl",
	    "{\"role\":\"user\",\"content\":\"a\"}\n", 30);
	assert_int_equal(session_log_load(home, "good", &loaded, &err), 0);
	assert_int_equal(json_array_size(loaded), 1);
	json_decref(loaded);
	tu_rmtree(home);
}

static void
memory_refused(const char *home, const char *says)
{
	struct bx_error err;
	char *text = (char *)"untouched";

	assert_int_equal(memory_load(home, &text, &err), -1);
	assert_string_equal(text, "untouched");
	if (strstr(err.msg, says) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, says);
	assert_non_null(strstr(err.msg, "memory/core.md"));
	assert_non_null(strstr(err.msg,
	    "see docs/runbook.md#core-memory-unreadable"));
}

static void
test_memory(void **state)
{
	char *home = tu_tmpdir(), *text, path[4096], *big;
	struct bx_error err;

	(void)state;
	assert_int_equal(memory_load(home, &text, &err), 0);
	assert_null(text);
	tu_write(home, "memory/core.md", "Kyle likes tea. Caf\xc3\xa9.\n", 23);
	assert_int_equal(memory_load(home, &text, &err), 0);
	assert_string_equal(text, "Kyle likes tea. Caf\xc3\xa9.\n");
	free(text);

	tu_write(home, "memory/core.md", "bad \xff byte", 10);
	memory_refused(home, "not UTF-8 at byte 4");
	tu_write(home, "memory/core.md", "overlong \xc0\xaf", 11);
	memory_refused(home, "not UTF-8 at byte 9");
	tu_write(home, "memory/core.md", "surrogate \xed\xa0\x80", 13);
	memory_refused(home, "not UTF-8");
	tu_write(home, "memory/core.md", "cut \xe2\x82", 6);
	memory_refused(home, "not UTF-8");
	tu_write(home, "memory/core.md", "nul \0 byte", 10);
	memory_refused(home, "not UTF-8");
	big = calloc(1, CORE_MEMORY_MAX + 2);
	memset(big, 'a', CORE_MEMORY_MAX + 1);
	tu_write(home, "memory/core.md", big, CORE_MEMORY_MAX + 1);
	free(big);
	memory_refused(home, "larger than");

	/* A directory in its place (root reads any file, so not a mode). */
	snprintf(path, sizeof(path), "%s/memory/core.md", home);
	assert_int_equal(remove(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	memory_refused(home, "it is a directory");
	tu_rmtree(home);
}

static void
test_denial_table(void **state)
{
	(void)state;
	assert_string_equal(denial_text(BX_DENY_NO_GRANT),
	    "Denied: no grant allows this call.");
	assert_string_equal(denial_text(BX_DENY_GRANT_EXPIRED),
	    "Denied: the grant for this call has expired.");
	assert_string_equal(denial_text(BX_DENY_TAINT_TOO_HIGH),
	    "Denied: this session has seen data too sensitive for this call.");
	assert_string_equal(denial_text(BX_DENY_DENIED_BY_GRANT),
	    "Denied: a grant forbids this call.");
	assert_string_equal(denial_text(BX_DENY_APPROVAL_REFUSED),
	    "Denied: the owner refused this call.");
	assert_string_equal(denial_text(BX_DENY_APPROVAL_EXPIRED),
	    "Denied: the approval request expired without an answer.");
	assert_string_equal(denial_text(BX_DENY_INVALID_ARGUMENTS),
	    "Denied: the arguments are not valid for this tool.");
	assert_string_equal(denial_text(BX_DENY_GRANTS_INVALID),
	    "Denied: the grant files have an error; the owner has been told.");
	assert_string_equal(denial_text(BX_DENY_AUDIT_UNAVAILABLE),
	    "Denied: the audit log cannot be written; the owner has been "
	    "told.");
	assert_string_equal(denial_text(BX_DENY_STATE_UNREADABLE),
	    "Denied: this session's broker state is damaged; the owner has "
	    "been told.");
	assert_null(denial_text(BX_DENY_MAX));
}

static void
test_selftest(void **state)
{
	char *home = tu_tmpdir(), path[4096];
	struct bx_error err;
	struct stat st;

	(void)state;
	assert_int_equal(selftest_denials(&err), 0);
	assert_int_equal(selftest_schemas(&err), 0);
	snprintf(path, sizeof(path), "%s/new-home", home);
	assert_int_equal(selftest_run(path, &err), 0);
	snprintf(path, sizeof(path), "%s/new-home/sessions", home);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));

	/* A home that is a file, and one whose sessions/ is a file. */
	tu_write(home, "file-home", "x", 1);
	snprintf(path, sizeof(path), "%s/file-home", home);
	assert_int_equal(selftest_run(path, &err), -1);
	assert_non_null(strstr(err.msg, "the home is not writable"));
	assert_non_null(strstr(err.msg,
	    "see docs/runbook.md#loopd-selftest-failed"));
	tu_write(home, "h2/sessions", "x", 1);
	snprintf(path, sizeof(path), "%s/h2", home);
	assert_int_equal(selftest_run(path, &err), -1);
	assert_non_null(strstr(err.msg, "sessions is not a directory"));
	tu_rmtree(home);
}

/* A home so long that loopd's paths under it would be cut is refused. */
static void
test_home_too_long(void **state)
{
	char home[4097], *text = NULL;
	struct bx_error err;
	json_t *loaded = NULL, *msgs;

	(void)state;
	/* Too long to leave room for a session log with the longest id. */
	memset(home, 'h', sizeof(home) - 1);
	home[0] = '/';
	home[4096 - 40] = '\0';
	assert_int_equal(selftest_home(home, &err), -1);
	assert_string_equal(err.msg, "the home (4056 bytes) is too long: "
	    "loopd's paths under it must fit in 4095 bytes");

	/* Too long for these very paths: refused, never cut short. */
	memset(home, 'h', 4096 - 8);
	home[0] = '/';
	home[4096 - 8] = '\0';
	assert_int_equal(session_log_load(home, "chat-1", &loaded, &err), -1);
	assert_null(loaded);
	assert_string_equal(err.msg, "the home (4088 bytes) is too long for "
	    "the session log of chat-1");
	msgs = json_pack("[{s:s, s:s}]", "role", "user", "content", "x");
	assert_int_equal(session_log_append(home, "chat-1", msgs, 0, &err),
	    -1);
	json_decref(msgs);
	assert_false(session_log_exists(home, "chat-1"));
	assert_int_equal(memory_load(home, &text, &err), -1);
	assert_null(text);
	assert_string_equal(err.msg, "the home (4088 bytes) is too long for "
	    "memory/core.md");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_round_trip),
		cmocka_unit_test(test_log_damage),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_denial_table),
		cmocka_unit_test(test_selftest),
		cmocka_unit_test(test_home_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
