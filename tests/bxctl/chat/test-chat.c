/*
 * test-chat.c: bxctl chat, run as the real binary against a fake loopd
 * and a fake admin socket: what it prints for each event, the approval
 * asked on stderr and answered through stdin (y approves, anything else
 * refuses), the session carried to the next turn, --say, --json, and the
 * frames bxctl sent to both daemons.
 */
#include <setjmp.h>
#include <stdarg.h>
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

#define SESSION		"chat-1758200000000"
#define ARGS		"{\\\"command\\\": \\\"rm -rf /home/kyle/scratch/build\\\"}"
#define ARGS_SHOWN	"{\"command\": \"rm -rf /home/kyle/scratch/build\"}"
/* A turn_event frame as loopd sends it: final, then the rest of its keys. */
#define EVENT(final, rest) \
	"{\"kind\":\"turn_event\",\"final\":" #final "," rest "}"
#define STARTED \
	EVENT(false, "\"type\":\"started\",\"session\":\"" SESSION "\"")

/* When approval 41 expires, set by setup for every test. */
static char	expires[BX_TIME_LEN + 1];

static int
setup(void **state)
{
	struct fake_pair *e;
	char created[BX_TIME_LEN + 1], list[2048];
	int64_t now = show_now();

	fake_pair_setup(state);
	e = *state;
	/*
	 * "5 min ago  expires in 9 min", and still so a minute later: both
	 * sit half a second into their minute, so a slow start changes
	 * nothing.
	 */
	bx_time_format(now - 300500, created);
	bx_time_format(now + 599500, expires);
	snprintf(list, sizeof(list), "{\"kind\":\"approval_list\",\"items\":"
	    "[{\"approval\":41,\"session\":\"" SESSION "\",\"call\":\"call_0\","
	    "\"tool\":\"shell\",\"arguments\":\"" ARGS "\",\"grant\":"
	    "\"shell-scratch\",\"taint\":\"private\",\"created\":\"%s\","
	    "\"expires\":\"%s\"}]}", created, expires);
	fake_admin_reply(e->admin, "approvals", list);
	fake_admin_reply(e->admin, "approve", "{\"kind\":\"approve_result\","
	    "\"outcome\":{\"outcome\":\"ask\"}}");
	fake_admin_reply(e->admin, "refuse", "{\"kind\":\"ok\"}");
	return 0;
}

/* A turn that asks for approval 41 and goes on by the answer. */
static void
script_approval(struct fake_pair *e)
{
	char pending[512];

	snprintf(pending, sizeof(pending), "{\"kind\":\"turn_event\","
	    "\"final\":false,\"type\":\"approval_pending\",\"approval\":41,"
	    "\"tool\":\"shell\",\"expires\":\"%s\"}", expires);
	fake_loop_script(e->loop, STARTED);
	fake_loop_script(e->loop, EVENT(false,
	    "\"type\":\"text\",\"text\":\"Let me look.\""));
	fake_loop_script(e->loop, EVENT(false,
	    "\"type\":\"tool_call\",\"call\":\"call_0\",\"tool\":\"shell\","
	    "\"arguments\":\"" ARGS "\""));
	fake_loop_script(e->loop, pending);
	fake_loop_script(e->loop, "@wait");
	fake_loop_script(e->loop, "@approved {\"kind\":\"turn_event\","
	    "\"final\":false,\"type\":\"tool_result\",\"call\":\"call_0\","
	    "\"status\":\"failed\",\"content\":\"no tool runs: the "
	    "runner kind is refuse\","
	    "\"class\":\"public\",\"untrusted\":false}");
	fake_loop_script(e->loop, "@refused {\"kind\":\"turn_event\","
	    "\"final\":false,\"type\":\"tool_result\",\"call\":\"call_0\","
	    "\"status\":\"denied\",\"content\":\"Denied: the owner refused "
	    "this call.\",\"class\":\"public\",\"untrusted\":false}");
	fake_loop_script(e->loop, EVENT(true,
	    "\"type\":\"done\",\"reply\":\"That did not run.\""));
}

/* A turn with no tool calls. */
static void
script_simple(struct fake_pair *e)
{
	fake_loop_script(e->loop, STARTED);
	fake_loop_script(e->loop, EVENT(false,
	    "\"type\":\"text\",\"text\":\"Hello.\""));
	fake_loop_script(e->loop, EVENT(true,
	    "\"type\":\"done\",\"reply\":\"Hello.\""));
}

static void
chat(struct fake_pair *e, struct run_result *res, const char *input,
    const char *a, const char *b, const char *c)
{
	const char *args[10] = { "chat", "--loop-socket", e->loop_sock,
	    "--admin-socket", e->admin_sock, a, b, c, NULL, NULL };

	run_bxctl(args, e->dir, input, res);
}

#define APPROVAL_BLOCK \
	"41  5 min ago  expires in 9 min  session chat-1758\xe2\x80\xa6  " \
	"grant shell-scratch  taint private\n" \
	"    shell " ARGS_SHOWN "\n"

static void
test_interactive_yes_approves(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;

	script_approval(e);
	chat(e, &res, "clean up the build\ny\n", NULL, NULL, NULL);
	assert_string_equal(res.out,
	    "session " SESSION "\n"
	    "model: Let me look.\n"
	    "call call_0: shell " ARGS_SHOWN "\n"
	    APPROVAL_BLOCK
	    "approved 41: runs\n"
	    "result call_0: failed (public): no tool runs: the runner "
	    "kind is refuse\n"
	    "model: That did not run.\n");
	assert_string_equal(res.err, "approve 41? [y]es once, [f]or a while, [N]o ");
	assert_int_equal(res.status, 0);
	assert_int_equal(fake_count(e->loop), 1);
	assert_string_equal(fake_received(e->loop, 0),
	    "{\"kind\":\"chat\",\"session\":null,\"text\":\"clean up the "
	    "build\"}");
	assert_int_equal(fake_count(e->admin), 2);
	assert_string_equal(fake_received(e->admin, 0), "{\"kind\":\"approvals\"}");
	assert_string_equal(fake_received(e->admin, 1),
	    "{\"kind\":\"approve\",\"approval\":41,\"by\":null,"
	    "\"post\":null}");
	run_result_free(&res);
}

static void
test_interactive_no_refuses(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;

	script_approval(e);
	chat(e, &res, "clean up the build\nn\n", NULL, NULL, NULL);
	assert_string_equal(res.out,
	    "session " SESSION "\n"
	    "model: Let me look.\n"
	    "call call_0: shell " ARGS_SHOWN "\n"
	    APPROVAL_BLOCK
	    "refused 41\n"
	    "result call_0: denied (public): Denied: the owner refused this "
	    "call.\n"
	    "model: That did not run.\n");
	assert_string_equal(res.err, "approve 41? [y]es once, [f]or a while, [N]o ");
	assert_int_equal(res.status, 0);
	assert_int_equal(fake_count(e->admin), 2);
	assert_string_equal(fake_received(e->admin, 1),
	    "{\"kind\":\"refuse\",\"approval\":41,\"reason\":null,"
	    "\"by\":null,\"post\":null}");
	run_result_free(&res);
}

static void
test_anything_but_yes_refuses(void **state)
{
	static const char *answers[] = { "\n", "yep\n", "", "Y es\n" };
	struct fake_pair *e = *state;
	struct run_result res;
	char input[64];
	size_t i;

	script_approval(e);
	for (i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
		snprintf(input, sizeof(input), "go\n%s", answers[i]);
		chat(e, &res, input, NULL, NULL, NULL);
		assert_non_null(strstr(res.out, "refused 41\n"));
		assert_int_equal(res.status, 0);
		assert_string_equal(fake_received(e->admin, 2 * i + 1),
		    "{\"kind\":\"refuse\",\"approval\":41,\"reason\":null,"
		    "\"by\":null,\"post\":null}");
		run_result_free(&res);
	}
	chat(e, &res, "go\nYES\n", NULL, NULL, NULL);
	assert_non_null(strstr(res.out, "approved 41: runs\n"));
	run_result_free(&res);
}

static void
test_session_carries_to_next_turn(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;

	script_simple(e);
	chat(e, &res, "one\n\ntwo\n", NULL, NULL, NULL);
	assert_string_equal(res.out, "session " SESSION "\n"
	    "model: Hello.\n" "model: Hello.\n");
	assert_string_equal(res.err, "");
	assert_int_equal(res.status, 0);
	assert_int_equal(fake_count(e->loop), 2);
	assert_string_equal(fake_received(e->loop, 0),
	    "{\"kind\":\"chat\",\"session\":null,\"text\":\"one\"}");
	assert_string_equal(fake_received(e->loop, 1),
	    "{\"kind\":\"chat\",\"session\":\"" SESSION "\",\"text\":\"two\"}");
	assert_int_equal(fake_count(e->admin), 0);
	run_result_free(&res);
}

static void
test_session_option(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;

	script_simple(e);
	chat(e, &res, NULL, "--session", SESSION, "--say");
	assert_int_equal(res.status, 2);
	run_result_free(&res);
	{
		const char *args[] = { "chat", "--loop-socket", e->loop_sock,
		    "--session", SESSION, "--say", "hi", NULL };

		run_bxctl(args, e->dir, NULL, &res);
	}
	assert_string_equal(res.out, "model: Hello.\n");
	assert_int_equal(res.status, 0);
	assert_string_equal(fake_received(e->loop, 0),
	    "{\"kind\":\"chat\",\"session\":\"" SESSION "\",\"text\":\"hi\"}");
	run_result_free(&res);
}

static void
test_say_shows_block_without_asking(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;
	char pending[512];

	snprintf(pending, sizeof(pending), "{\"kind\":\"turn_event\","
	    "\"final\":false,\"type\":\"approval_pending\",\"approval\":41,"
	    "\"tool\":\"shell\",\"expires\":\"%s\"}", expires);
	fake_loop_script(e->loop, STARTED);
	fake_loop_script(e->loop, pending);
	fake_loop_script(e->loop, EVENT(false,
	    "\"type\":\"tool_result\",\"call\":\"call_0\",\"status\":"
	    "\"denied\",\"content\":\"Denied: the approval request expired "
	    "without an answer.\",\"class\":\"public\",\"untrusted\":false"));
	fake_loop_script(e->loop, EVENT(true,
	    "\"type\":\"done\",\"reply\":\"It expired.\""));
	chat(e, &res, "y\n", "--say", "clean up", NULL);
	assert_string_equal(res.out, "session " SESSION "\n" APPROVAL_BLOCK
	    "result call_0: denied (public): Denied: the approval request "
	    "expired without an answer.\n"
	    "model: It expired.\n");
	assert_string_equal(res.err, "");
	assert_int_equal(res.status, 0);
	assert_int_equal(fake_count(e->admin), 1);
	assert_string_equal(fake_received(e->admin, 0), "{\"kind\":\"approvals\"}");
	run_result_free(&res);
}

static void
test_json_prints_events_only(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;

	fake_loop_script(e->loop, STARTED);
	fake_loop_script(e->loop, EVENT(false,
	    "\"type\":\"approval_pending\",\"approval\":41,\"tool\":\"shell\","
	    "\"expires\":\"2026-09-18T12:15:00.000Z\""));
	/* A raw é, DEL, a C1 CSI and a bidi override; an escaped ESC. */
	fake_loop_script(e->loop, EVENT(true,
	    "\"type\":\"done\",\"reply\":\"caf\xc3\xa9 \x7f \xc2\x9b \xe2\x80\xae"
	    " \\u001b[2J / \\\"q\\\"\""));
	chat(e, &res, "hi\nbye\n", "--json", NULL, NULL);
	assert_string_equal(res.out,
	    "{\"kind\":\"turn_event\",\"final\":false,\"type\":\"started\","
	    "\"session\":\"" SESSION "\"}\n"
	    "{\"kind\":\"turn_event\",\"final\":false,\"type\":"
	    "\"approval_pending\",\"approval\":41,\"tool\":\"shell\","
	    "\"expires\":\"2026-09-18T12:15:00.000Z\"}\n"
	    "{\"kind\":\"turn_event\",\"final\":true,\"type\":\"done\","
	    "\"reply\":\"caf\\u00e9 \\u007f \\u009b \\u202e \\u001b[2J / "
	    "\\\"q\\\"\"}\n"
	    "{\"kind\":\"turn_event\",\"final\":false,\"type\":\"started\","
	    "\"session\":\"" SESSION "\"}\n"
	    "{\"kind\":\"turn_event\",\"final\":false,\"type\":"
	    "\"approval_pending\",\"approval\":41,\"tool\":\"shell\","
	    "\"expires\":\"2026-09-18T12:15:00.000Z\"}\n"
	    "{\"kind\":\"turn_event\",\"final\":true,\"type\":\"done\","
	    "\"reply\":\"caf\\u00e9 \\u007f \\u009b \\u202e \\u001b[2J / "
	    "\\\"q\\\"\"}\n");
	assert_string_equal(res.err, "");
	assert_int_equal(res.status, 0);
	/* No lookup, no answer: the approval is left to bxctl approve. */
	assert_int_equal(fake_count(e->admin), 0);
	assert_string_equal(fake_received(e->loop, 1),
	    "{\"kind\":\"chat\",\"session\":\"" SESSION "\",\"text\":\"bye\"}");
	run_result_free(&res);
}

static void
test_error_event_fails(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;

	fake_loop_script(e->loop, STARTED);
	fake_loop_script(e->loop, EVENT(true,
	    "\"type\":\"error\",\"message\":\"the model server is "
	    "unavailable\""));
	chat(e, &res, NULL, "--say", "hi", NULL);
	assert_string_equal(res.out, "session " SESSION "\n"
	    "error: the model server is unavailable\n");
	assert_string_equal(res.err, "");
	assert_int_equal(res.status, 1);
	run_result_free(&res);
}

static void
test_loopd_error_frame(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;

	fake_loop_script(e->loop, "{\"kind\":\"error\",\"code\":\"busy\","
	    "\"message\":\"session chat-1 has a turn running\"}");
	chat(e, &res, NULL, "--say", "hi", NULL);
	assert_string_equal(res.out, "");
	assert_string_equal(res.err, "bxctl: loopd answered error busy: "
	    "session chat-1 has a turn running\n");
	assert_int_equal(res.status, 1);
	run_result_free(&res);
}

static void
test_loopd_not_running(void **state)
{
	struct fake_pair *e = *state;
	const char *args[] = { "chat", "--say", "hi", NULL };
	struct run_result res;
	char want[700];

	fake_stop(e->loop);
	e->loop = NULL;
	snprintf(want, sizeof(want), "bxctl: loopd is not running at %s\n",
	    e->loop_sock);
	chat(e, &res, NULL, "--say", "hi", NULL);
	assert_string_equal(res.out, "");
	assert_string_equal(res.err, want);
	assert_int_equal(res.status, 1);
	run_result_free(&res);
	/* Interactive: the first line fails, and the chat ends there. */
	chat(e, &res, "hi\nagain\n", NULL, NULL, NULL);
	assert_string_equal(res.err, want);
	assert_int_equal(res.status, 1);
	run_result_free(&res);
	/* The default path, under BOXMAKER_HOME. */
	snprintf(want, sizeof(want), "bxctl: loopd is not running at "
	    "%s/run/owner-loop/loop.sock\n", e->dir);
	run_bxctl(args, e->dir, NULL, &res);
	assert_string_equal(res.err, want);
	assert_int_equal(res.status, 1);
	run_result_free(&res);
}

static void
test_approval_not_listed(void **state)
{
	struct fake_pair *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "approvals",
	    "{\"kind\":\"approval_list\",\"items\":[]}");
	fake_admin_reply(e->admin, "refuse", "{\"kind\":\"error\",\"code\":"
	    "\"no_such_approval\",\"message\":\"no pending approval 41\"}");
	script_approval(e);
	chat(e, &res, "go\nn\n", NULL, NULL, NULL);
	assert_non_null(strstr(res.out, "call call_0: shell " ARGS_SHOWN "\n"
	    "41  expires in 9 min  shell\n"
	    "result call_0: denied"));
	assert_string_equal(res.err, "bxctl: brokerd does not list approval "
	    "41; it may have been answered or expired\n"
	    "approve 41? [y]es once, [f]or a while, [N]o "
	    "bxctl: brokerd answered error no_such_approval: no pending "
	    "approval 41\n");
	assert_int_equal(res.status, 0);
	run_result_free(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_interactive_yes_approves,
		    setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_interactive_no_refuses,
		    setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_anything_but_yes_refuses,
		    setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(
		    test_session_carries_to_next_turn, setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_session_option, setup,
		    fake_pair_teardown),
		cmocka_unit_test_setup_teardown(
		    test_say_shows_block_without_asking, setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_json_prints_events_only,
		    setup, fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_error_event_fails, setup,
		    fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_loopd_error_frame, setup,
		    fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_loopd_not_running, setup,
		    fake_pair_teardown),
		cmocka_unit_test_setup_teardown(test_approval_not_listed,
		    setup, fake_pair_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
