/*
 * test-hostile.c: model and tool text full of terminal escape sequences
 * (CSI, OSC, C1 controls, bidi overrides, zero-width characters) and
 * invalid UTF-8, sent to the real build/bxctl by the fakes. Its stdout and
 * stderr are scanned byte by byte with a checker written apart from
 * escape.c (run.c): no byte a terminal would act on may appear, and each
 * block keeps its shape (two lines per approval).
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/types.h"
#include "bxctl/common/show.h"
#include "fake.h"
#include "run.h"

/*
 * JSON string contents (already inside quotes): CSI clear screen and
 * colour, cursor moves, OSC title and hyperlink, raw and escaped C1 CSI,
 * NEL, DEL, backspaces and CR to overwrite, bidi overrides and isolates,
 * zero-width characters and a BOM.
 */
#define HOSTILE \
	"\\u001b[2J\\u001b[H\\u001b[31mred\\u001b[0m " \
	"\\u001b[1A\\u001b[2K " \
	"\\u001b]0;owned\\u0007 \\u001b]8;;https://evil\\u001b\\\\link" \
	"\\u001b]8;;\\u001b\\\\ " \
	"\xc2\x9b" "31m \\u009b32m \xc2\x85 \x7f \\u007f " \
	"safe\\b\\b\\b\\bevil\\r\\n\\t " \
	"\xe2\x80\xae" "txt.exe\xe2\x80\xac \\u202d \xe2\x81\xa6" "x" \
	"\xe2\x81\xa9 \\u2067 " \
	"a\xe2\x80\x8b" "b\\u200c\\u200d\\u200e\\u200f \xef\xbb\xbf\\ufeff"

static void
assert_clean(const struct run_result *res)
{
	long at;

	if ((at = run_find_control(res->out, res->outlen)) != -1)
		fail_msg("stdout has byte 0x%02x at offset %ld",
		    (unsigned char)res->out[at], at);
	if ((at = run_find_control(res->err, res->errlen)) != -1)
		fail_msg("stderr has byte 0x%02x at offset %ld",
		    (unsigned char)res->err[at], at);
}

static size_t
lines(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static void
approvals_list(struct fake_pair *e, const char *tool, const char *arguments)
{
	char created[BX_TIME_LEN + 1], expires[BX_TIME_LEN + 1], list[8192];
	int64_t now = show_now();

	/* Half a second into each minute: the same line for a minute. */
	bx_time_format(now - 60500, created);
	bx_time_format(now + 599500, expires);
	snprintf(list, sizeof(list), "{\"kind\":\"approval_list\",\"items\":"
	    "[{\"approval\":41,\"session\":\"chat-1758200000000\",\"call\":"
	    "\"call_0\",\"tool\":\"%s\",\"arguments\":\"%s\",\"grant\":"
	    "\"shell-scratch\",\"taint\":\"private\",\"created\":\"%s\","
	    "\"expires\":\"%s\"},{\"approval\":42,\"session\":\"s\",\"call\":"
	    "\"c\",\"tool\":\"shell\",\"arguments\":\"{}\",\"grant\":\"g\","
	    "\"taint\":\"secret\",\"created\":\"%s\",\"expires\":\"%s\"}]}",
	    tool, arguments, created, expires, created, expires);
	fake_admin_reply(e->admin, "approvals", list);
}

static void
test_approvals_arguments_are_data(void **state)
{
	struct fake_pair *e = *state;
	const char *args[] = { "approvals", "--admin-socket", e->admin_sock,
	    NULL };
	struct run_result res;

	approvals_list(e, "shell" HOSTILE, "{\\\"command\\\": \\\"" HOSTILE
	    "\\\"}");
	run_bxctl(args, e->dir, NULL, &res);
	assert_int_equal(res.status, 0);
	assert_clean(&res);
	assert_int_equal(lines(res.out), 4);
	assert_string_equal(res.err, "");
	/* What was there is shown, escaped, not dropped. */
	assert_non_null(strstr(res.out, "\\u001b[2J\\u001b[H\\u001b[31mred"));
	assert_non_null(strstr(res.out, "\\u001b]0;owned\\u0007"));
	assert_non_null(strstr(res.out, "\\u009b31m \\u009b32m \\u0085 "
	    "\\u007f \\u007f "));
	assert_non_null(strstr(res.out, "safe\\u0008\\u0008\\u0008\\u0008evil"
	    "\\u000d\\u000a\\u0009"));
	assert_non_null(strstr(res.out, "\\u202etxt.exe\\u202c \\u202d "
	    "\\u2066x\\u2069 \\u2067"));
	assert_non_null(strstr(res.out, "a\\u200bb\\u200c\\u200d\\u200e"
	    "\\u200f \\ufeff\\ufeff"));
	assert_non_null(strstr(res.out, "\n42  1 min ago  expires in 9 min  "
	    "session s  grant g  taint secret\n    shell {}\n"));
	run_result_free(&res);
}

static void
test_invalid_utf8_frame(void **state)
{
	struct fake_pair *e = *state;
	const char *args[] = { "approvals", "--admin-socket", e->admin_sock,
	    NULL };
	struct run_result res;

	/* JSON cannot carry invalid UTF-8: bxctl refuses the frame, and its
	 * message must not pass the bytes on either. */
	approvals_list(e, "shell", "\xff\xfe\x1b[31m \xc3\x28 \xed\xa0\x80 "
	    "\xc0\xaf");
	run_bxctl(args, e->dir, NULL, &res);
	assert_int_equal(res.status, 1);
	assert_clean(&res);
	assert_string_equal(res.out, "");
	assert_int_equal(lines(res.err), 1);
	assert_non_null(strstr(res.err, "bxctl: brokerd sent a frame bxctl "
	    "cannot read"));
	run_result_free(&res);

	/* A hostile key name is quoted in the decoder's error. */
	fake_admin_reply(e->admin, "approvals", "{\"kind\":\"approval_list\","
	    "\"items\":[],\"\\u001b[31m\xe2\x80\xae" "x\":1}");
	run_bxctl(args, e->dir, NULL, &res);
	assert_int_equal(res.status, 1);
	assert_clean(&res);
	assert_int_equal(lines(res.err), 1);
	assert_non_null(strstr(res.err, "\\u001b[31m\\u202ex"));
	run_result_free(&res);
}

static void
test_grants_and_errors_are_data(void **state)
{
	struct fake_pair *e = *state;
	char config[600], grants_dir[600];
	const char *grants[] = { "grants", "check", "--admin-socket",
	    e->admin_sock, "--config", config, NULL };
	const char *refuse[] = { "refuse", "41", "--admin-socket",
	    e->admin_sock, NULL };
	struct run_result res;
	FILE *f;

	/* No grant, so no secret to check beside brokerd.toml. */
	snprintf(config, sizeof(config), "%s/brokerd.toml", e->dir);
	snprintf(grants_dir, sizeof(grants_dir), "%s/grants", e->dir);
	assert_int_equal(mkdir(grants_dir, 0700), 0);
	assert_non_null(f = fopen(config, "w"));
	fprintf(f, "[paths]\nhome = \"%s\"\ngrants = \"%s\"\n", e->dir,
	    grants_dir);
	assert_int_equal(fclose(f), 0);

	fake_admin_reply(e->admin, "check_grants", "{\"kind\":\"grants_report\","
	    "\"problems\":[{\"file\":\"grants/" HOSTILE ".toml\",\"line\":3,"
	    "\"problem\":\"" HOSTILE "\"}]}");
	run_bxctl(grants, e->dir, NULL, &res);
	assert_int_equal(res.status, 1);
	assert_clean(&res);
	assert_int_equal(lines(res.out), 1);
	assert_non_null(strstr(res.out, ".toml:3: \\u001b[2J"));
	run_result_free(&res);

	fake_admin_reply(e->admin, "refuse", "{\"kind\":\"error\",\"code\":"
	    "\"internal\",\"message\":\"" HOSTILE "\"}");
	run_bxctl(refuse, e->dir, NULL, &res);
	assert_int_equal(res.status, 1);
	assert_clean(&res);
	assert_string_equal(res.out, "");
	assert_int_equal(lines(res.err), 1);
	assert_non_null(strstr(res.err, "bxctl: brokerd answered error "
	    "internal: \\u001b[2J"));
	run_result_free(&res);
}

/* A turn whose every string is hostile; wait: hold it for the answer. */
static void
script_hostile_turn(struct fake_pair *e, bool wait)
{
	fake_loop_script(e->loop, "{\"kind\":\"turn_event\",\"final\":false,"
	    "\"type\":\"started\",\"session\":\"chat-1758200000000\"}");
	fake_loop_script(e->loop, "{\"kind\":\"turn_event\",\"final\":false,"
	    "\"type\":\"text\",\"text\":\"" HOSTILE "\"}");
	fake_loop_script(e->loop, "{\"kind\":\"turn_event\",\"final\":false,"
	    "\"type\":\"tool_call\",\"call\":\"call_0\",\"tool\":\"" HOSTILE
	    "\",\"arguments\":\"" HOSTILE "\"}");
	fake_loop_script(e->loop, "{\"kind\":\"turn_event\",\"final\":false,"
	    "\"type\":\"approval_pending\",\"approval\":41,\"tool\":\""
	    HOSTILE "\",\"expires\":\"2030-01-01T00:00:00.000Z\"}");
	if (wait)
		fake_loop_script(e->loop, "@wait");
	fake_loop_script(e->loop, "{\"kind\":\"turn_event\",\"final\":false,"
	    "\"type\":\"tool_result\",\"call\":\"call_0\",\"status\":"
	    "\"result\",\"content\":\"" HOSTILE "\",\"class\":\"private\","
	    "\"untrusted\":true}");
	fake_loop_script(e->loop, "{\"kind\":\"turn_event\",\"final\":true,"
	    "\"type\":\"error\",\"message\":\"" HOSTILE "\"}");
}

static void
test_chat_events_are_data(void **state)
{
	struct fake_pair *e = *state;
	const char *args[] = { "chat", "--loop-socket", e->loop_sock,
	    "--admin-socket", e->admin_sock, NULL };
	struct run_result res;

	approvals_list(e, "shell", HOSTILE);
	fake_admin_reply(e->admin, "refuse", "{\"kind\":\"ok\"}");
	script_hostile_turn(e, true);
	run_bxctl(args, e->dir, "go\nn\n", &res);
	assert_int_equal(res.status, 1);
	assert_clean(&res);
	/* session, model, call, two block lines, refused, result, error. */
	assert_int_equal(lines(res.out), 8);
	assert_non_null(strstr(res.out, "\nmodel: \\u001b[2J"));
	assert_non_null(strstr(res.out, "\nresult call_0: result (private, "
	    "untrusted): \\u001b[2J"));
	assert_non_null(strstr(res.out, "\nerror: \\u001b[2J"));
	assert_string_equal(res.err, "approve 41? [y]es once, [f]or a while, [N]o ");
	run_result_free(&res);
}

/* --json answers no approval, so its turn goes on without waiting. */
static void
test_chat_json_events_are_data(void **state)
{
	struct fake_pair *e = *state;
	const char *json[] = { "chat", "--json", "--loop-socket", e->loop_sock,
	    NULL };
	struct run_result res;

	script_hostile_turn(e, false);
	run_bxctl(json, e->dir, "go\n", &res);
	assert_int_equal(res.status, 1);
	assert_clean(&res);
	assert_int_equal(lines(res.out), 6);
	assert_non_null(strstr(res.out, "\"text\":\"\\u001b[2J\\u001b[H"));
	assert_string_equal(res.err, "");
	assert_int_equal(fake_count(e->admin), 0);
	run_result_free(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_approvals_arguments_are_data, fake_pair_setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_invalid_utf8_frame, fake_pair_setup,
		    fake_pair_teardown),
		cmocka_unit_test_setup_teardown(
		    test_grants_and_errors_are_data, fake_pair_setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_chat_events_are_data,
		    fake_pair_setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_chat_json_events_are_data,
		    fake_pair_setup, fake_pair_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
