/*
 * test-check.c: `bxbridge check`'s calls (src/bxbridge/check.h) against
 * the fake Mattermost server, unjailed (the jail is test-bxbridge-jail.sh's):
 * a server that takes the bridge gives the bot, the owner, the DM and a
 * test post that is gone again, in that order of requests; each failure
 * starts with state.json's word for it, names the step and its runbook
 * entry, and leaves the result unwritten.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <curl/curl.h>

#include "bxbridge/check.h"
#include "fake_mm.h"

struct fixture {
	struct fake_mm		*fm;
	struct bridge_config	*cfg;
};

static void
load_config(struct fixture *f, const char *owner)
{
	char url[128], text[1024];
	struct bx_error err;

	fake_mm_url(f->fm, url, sizeof(url));
	snprintf(text, sizeof(text), "[mattermost]\nurl = \"%s\"\n"
	    "token_file = \"/nonexistent/token\"\nowner = \"%s\"\n\n"
	    "[broker]\nsocket = \"/nonexistent/run/bridge.sock\"\n", url,
	    owner);
	bridge_config_free(f->cfg);
	f->cfg = NULL;
	if (bridge_config_parse("test.toml", text, strlen(text), &f->cfg,
	    &err) == -1)
		fail_msg("%s", err.msg);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct fake_mm_opts opts = { 0 };
	struct bx_error err;

	assert_non_null(f);
	if (fake_mm_start(&opts, &f->fm, &err) == -1)
		fail_msg("fake_mm_start: %s", err.msg);
	load_config(f, FAKE_MM_OWNER_ID);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	bridge_config_free(f->cfg);
	fake_mm_stop(f->fm);
	free(f);
	return 0;
}

static void
expect_request(struct fixture *f, size_t i, const char *method,
    const char *path)
{
	char want[256], *line;

	line = fake_mm_request(f->fm, i);
	assert_non_null(line);
	snprintf(want, sizeof(want), "\"method\":\"%s\",\"path\":\"%s\"",
	    method, path);
	if (strstr(line, want) == NULL)
		fail_msg("request %zu: \"%s\" lacks %s", i, line, want);
	assert_non_null(strstr(line, "\"authorized\":true"));
	free(line);
}

static void
test_ok(void **state)
{
	struct fixture *f = *state;
	struct bridge_check_result r;
	struct bx_error err;
	char dm[MM_ID_LEN + 1], path[64], *message;

	if (bridge_check(f->cfg, FAKE_MM_TOKEN, NULL, &r, &err) == -1)
		fail_msg("%s", err.msg);
	assert_string_equal(r.bc_bot.id, FAKE_MM_BOT_ID);
	assert_true(r.bc_bot.is_bot);
	assert_string_equal(r.bc_owner.id, FAKE_MM_OWNER_ID);
	fake_mm_dm(f->fm, dm);
	assert_string_equal(r.bc_dm, dm);
	assert_int_equal(strlen(r.bc_post), MM_ID_LEN);
	/* The test post is gone again. */
	message = fake_mm_post_message(f->fm, r.bc_post);
	assert_null(message);
	assert_int_equal(fake_mm_request_count(f->fm), 5);
	expect_request(f, 0, "GET", "/api/v4/users/me");
	expect_request(f, 1, "GET", "/api/v4/users/" FAKE_MM_OWNER_ID);
	expect_request(f, 2, "POST", "/api/v4/channels/direct");
	expect_request(f, 3, "POST", "/api/v4/posts");
	snprintf(path, sizeof(path), "/api/v4/posts/%s", r.bc_post);
	expect_request(f, 4, "DELETE", path);
}

/* err starts with want and names the runbook entry; r is not written. */
static void
expect_failure(struct fixture *f, const char *token, const char *want,
    const char *runbook)
{
	struct bridge_check_result r;
	struct bx_error err;

	memset(&r, 0x5a, sizeof(r));
	assert_int_equal(bridge_check(f->cfg, token, NULL, &r, &err), -1);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("\"%s\" does not start with \"%s\"", err.msg, want);
	if (strstr(err.msg, runbook) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, runbook);
	assert_null(strstr(err.msg, token));
	assert_int_equal(((unsigned char *)&r)[0], 0x5a);
}

static void
test_token_refused(void **state)
{
	struct fixture *f = *state;

	expect_failure(f, "wrongtoken0000000000000000",
	    "token-refused: users/me failed: ",
	    "see docs/runbook.md#bridge-token-refused");
	fake_mm_fail(f->fm, FAKE_MM_FAIL_403, 1, 0);
	expect_failure(f, FAKE_MM_TOKEN, "token-refused: users/me failed: ",
	    "docs/runbook.md#bridge-token-refused");
}

static void
test_owner_not_found(void **state)
{
	struct fixture *f = *state;

	load_config(f, "nobody00000000000000000000");
	expect_failure(f, FAKE_MM_TOKEN,
	    "not-found: users/{owner} failed: ",
	    "see docs/runbook.md#bridge-owner-not-found");
}

static void
test_unreachable_and_rate_limited(void **state)
{
	struct fixture *f = *state;

	fake_mm_fail(f->fm, FAKE_MM_FAIL_500, 1, 0);
	expect_failure(f, FAKE_MM_TOKEN, "unreachable: users/me failed: ",
	    "see docs/runbook.md#bridge-unreachable");
	fake_mm_fail(f->fm, FAKE_MM_FAIL_RATE, 1, 5);
	expect_failure(f, FAKE_MM_TOKEN, "rate-limited: users/me failed: ",
	    "see docs/runbook.md#bridge-rate-limited");
	fake_mm_fail(f->fm, FAKE_MM_FAIL_400_GARBLED, 1, 0);
	expect_failure(f, FAKE_MM_TOKEN, "refused: users/me failed: ",
	    "see docs/runbook.md#bridge-unreachable");
	fake_mm_suspend(f->fm);
	expect_failure(f, FAKE_MM_TOKEN, "unreachable: users/me failed: ",
	    "see docs/runbook.md#bridge-unreachable");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_token_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_owner_not_found, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_unreachable_and_rate_limited, setup, teardown),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
