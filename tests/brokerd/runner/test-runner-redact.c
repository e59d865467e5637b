/*
 * test-runner-redact.c: a secret call's body redacted before the output
 * limit, and the shaped text again with the count appended
 * (runner_redact.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/runner/runner_redact.h"

#define VALUE	"s3cr3t-value-0123456789"

static struct bx_redactor *
redactor(void)
{
	static const char *const forms[] = { VALUE, "Bearer " VALUE };
	struct bx_redactor *rd;
	struct bx_error err;

	assert_non_null(rd = bx_redactor_new("api", forms, 2, &err));
	return rd;
}

static void
set_out(struct exec_outcome *o, const char *text)
{
	memset(o, 0, sizeof(*o));
	assert_non_null(o->eo_out = strdup(text));
	o->eo_out_len = strlen(text);
}

/* Under the limit: every echo out, nothing cut. */
static void
test_whole(void **state)
{
	struct bx_redactor *rd = redactor();
	struct exec_outcome o;
	struct bx_error err;
	size_t removed;
	bool cut;

	(void)state;
	set_out(&o, "a " VALUE " b 7333637233742d76616c75652d30313233343536373839");
	assert_int_equal(redact_output(rd, 1000, &o, &cut, &removed, &err), 0);
	assert_false(cut);
	assert_int_equal(removed, 2);
	assert_string_equal(o.eo_out, "a [secret api] b [secret api]");
	assert_int_equal(o.eo_out_len, strlen(o.eo_out));
	exec_outcome_clear(&o);
	bx_redactor_free(rd);
}

/* The limit cuts inside an echo: its start is removed, cut is said. */
static void
test_cut_inside(void **state)
{
	struct bx_redactor *rd = redactor();
	struct exec_outcome o;
	struct bx_error err;
	size_t removed;
	bool cut;

	(void)state;
	set_out(&o, "xxxx" VALUE "yyyy");
	assert_int_equal(redact_output(rd, 10, &o, &cut, &removed, &err), 0);
	assert_true(cut);
	assert_int_equal(removed, 1);
	assert_string_equal(o.eo_out, "xxxx");
	exec_outcome_clear(&o);
	/* A UTF-8 sequence the cut split goes, and what it uncovers. */
	set_out(&o, "s3cr3t-va\xc3\xa9" VALUE);
	assert_int_equal(redact_output(rd, 10, &o, &cut, &removed, &err), 0);
	assert_true(cut);
	assert_string_equal(o.eo_out, "");
	exec_outcome_clear(&o);
	bx_redactor_free(rd);
}

/* The shaped text: redacted again, the count on a line of its own. */
static void
test_result(void **state)
{
	struct bx_redactor *rd = redactor();
	struct run_result r;
	struct bx_error err;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_non_null(r.rr_text = strdup("HTTP 302: redirect to "
	    "https://x/?t=" VALUE " not followed"));
	assert_int_equal(redact_result(rd, "api", 2, &r, &err), 0);
	assert_string_equal(r.rr_text, "HTTP 302: redirect to https://x/?t="
	    "[secret api] not followed\n[3 occurrences of the secret api were "
	    "removed]");
	assert_int_equal(r.rr_removed, 3);
	run_result_clear(&r);
	assert_non_null(r.rr_text = strdup("plain"));
	assert_int_equal(redact_result(rd, "api", 0, &r, &err), 0);
	assert_string_equal(r.rr_text, "plain");
	assert_int_equal(r.rr_removed, 0);
	run_result_clear(&r);
	bx_redactor_free(rd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_cut_inside),
		cmocka_unit_test(test_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
