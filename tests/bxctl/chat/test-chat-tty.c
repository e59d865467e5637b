/*
 * test-chat-tty.c: bxctl chat as an owner sees it, in a pseudo-terminal
 * (ptyrun.h), against the fake loopd and admin socket: the model's pieces
 * shown while the turn still runs, the status line drawn and erased
 * before the next output, a call and its result one line each without
 * ids, Ctrl-C stopping the turn (bxctl closes the connection, which is
 * how loopd learns it) and then, at the prompt, ending the chat; the
 * history keeps the messages and not the answers to approvals. Nothing
 * here sleeps: each step waits for what the terminal shows, or for what
 * the fakes received.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "bxctl/common/show.h"
#include "fake.h"
#include "proto/types.h"
#include "ptyrun.h"
#include "run.h"

#define SESSION		"chat-1758200000000"
#define EVENT(final, rest) \
	"{\"kind\":\"turn_event\",\"final\":" #final "," rest "}"
#define STARTED \
	EVENT(false, "\"type\":\"started\",\"session\":\"" SESSION "\"")
#define DELTA(piece) EVENT(false, "\"type\":\"text_delta\",\"text\":\"" \
	piece "\"")
#define DONE(reply) EVENT(true, "\"type\":\"done\",\"reply\":\"" reply "\"")
#define ERASE		"\r\033[K"
/* How long the test waits for a fake to see what bxctl did. */
#define FAKE_WAIT_MS	20000

static void
start(struct fake_pair *e, struct pty *p)
{
	const char *args[] = { "chat", "--loop-socket", e->loop_sock,
	    "--admin-socket", e->admin_sock, NULL };

	pty_start(p, args, e->dir);
	pty_prompt(p, "> ");
}

/* Waits until the fake loopd has recorded line. */
static void
await_received(struct fake *f, const char *line)
{
	struct timespec nap = { 0, 10 * 1000000L };
	long waited = 0;
	size_t i;

	for (;;) {
		for (i = 0; i < fake_count(f); i++)
			if (strcmp(fake_received(f, i), line) == 0)
				return;
		if (waited > FAKE_WAIT_MS)
			fail_msg("waited %d ms for the fake to record %s",
			    FAKE_WAIT_MS, line);
		nanosleep(&nap, NULL);
		waited += 10;
	}
}

/* The history file's text, or NULL. */
static char *
history(struct fake_pair *e)
{
	char path[1024], *text;
	FILE *fp;
	long len;

	snprintf(path, sizeof(path), "%s/.local/state/boxmaker/chat_history",
	    e->dir);
	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	return text;
}

static void
test_streams_with_status_and_compact_lines(void **state)
{
	char result[2200];
	struct fake_pair *e = *state;
	struct pty p;
	size_t at;
	char *hist;

	/* A result of 1508 bytes: its first line and "(… 1.5 KB)". */
	snprintf(result, sizeof(result), EVENT(false, "\"type\":"
	    "\"tool_result\",\"call\":\"call_0\",\"status\":\"result\","
	    "\"content\":\"# Notes\\n%01500d\",\"class\":\"private\","
	    "\"untrusted\":false"), 0);
	fake_loop_script(e->loop, STARTED);
	fake_loop_script(e->loop, "@gate");
	fake_loop_script(e->loop, DELTA("Let me"));
	fake_loop_script(e->loop, DELTA(" look."));
	fake_loop_script(e->loop, "@gate");
	fake_loop_script(e->loop, EVENT(false, "\"type\":\"text\",\"text\":"
	    "\"Let me look.\""));
	fake_loop_script(e->loop, EVENT(false, "\"type\":\"tool_call\","
	    "\"call\":\"call_0\",\"tool\":\"read_file\",\"arguments\":"
	    "\"{\\\"path\\\":\\\"/home/kyle/notes/a.md\\\"}\""));
	fake_loop_script(e->loop, "@gate");
	fake_loop_script(e->loop, result);
	fake_loop_script(e->loop, DONE("One note."));
	start(e, &p);
	pty_type(&p, "what is in my notes?\r");
	/* The model works: the status line says so, dim. */
	pty_expect(&p, ERASE "\033[2mthinking, ");
	fake_loop_release(e->loop);
	/* The pieces, after the status line was erased, before the end. */
	pty_expect(&p, ERASE "model: Let me look.");
	assert_false(pty_shown(&p, "One note."));
	fake_loop_release(e->loop);
	/* The call in one line, no id; then the status line names it. */
	pty_expect(&p, ERASE "read_file /home/kyle/notes/a.md\r\n");
	pty_expect(&p, "read_file running, ");
	fake_loop_release(e->loop);
	pty_expect(&p, ERASE "  # Notes (\xe2\x80\xa6 1.5 KB)\r\n");
	/* The status line drawn after the result is erased before the reply. */
	at = pty_expect(&p, "model: One note.\r\n");
	assert_true(at >= strlen(ERASE));
	assert_memory_equal(p.p_out + at - strlen(ERASE), ERASE,
	    strlen(ERASE));
	pty_prompt(&p, "> ");
	assert_false(pty_shown(&p, "call_0"));
	pty_type(&p, "\004");
	assert_int_equal(pty_finish(&p), 0);
	pty_free(&p);
	hist = history(e);
	assert_non_null(hist);
	assert_non_null(strstr(hist, "what"));
	free(hist);
}

static void
test_ctrl_c_stops_the_turn_then_ends_the_chat(void **state)
{
	struct fake_pair *e = *state;
	struct pty p;

	fake_loop_script(e->loop, STARTED);
	fake_loop_script(e->loop, DELTA("Thinking about it"));
	fake_loop_script(e->loop, "@hangup");
	start(e, &p);
	pty_type(&p, "hi\r");
	pty_expect(&p, "model: Thinking about it");
	pty_type(&p, "\003");
	pty_expect(&p, "stopped (Ctrl-C)");
	/* loopd learns it from the closed connection. */
	await_received(e->loop, "@closed");
	/* bxctl goes on: a prompt, and a Ctrl-C there ends it. */
	pty_prompt(&p, "> ");
	pty_type(&p, "\003");
	/* Exited, not killed: status 1, as for a turn that did not end. */
	assert_int_equal(pty_finish(&p), 1);
	pty_free(&p);
}

static void
test_approval_answer_not_in_history(void **state)
{
	char pending[512], list[2048], created[BX_TIME_LEN + 1];
	char expires[BX_TIME_LEN + 1];
	struct fake_pair *e = *state;
	int64_t now = show_now();
	struct pty p;
	char *hist;

	bx_time_format(now - 1000, created);
	bx_time_format(now + 600000, expires);
	snprintf(list, sizeof(list), "{\"kind\":\"approval_list\",\"items\":"
	    "[{\"approval\":41,\"session\":\"" SESSION "\",\"call\":\"call_0\","
	    "\"tool\":\"read_file\",\"arguments\":\"{}\",\"grant\":\"notes\","
	    "\"taint\":\"private\",\"created\":\"%s\",\"expires\":\"%s\"}]}",
	    created, expires);
	fake_admin_reply(e->admin, "approvals", list);
	fake_admin_reply(e->admin, "approve", "{\"kind\":\"approve_result\","
	    "\"outcome\":{\"outcome\":\"ask\"}}");
	snprintf(pending, sizeof(pending), EVENT(false, "\"type\":"
	    "\"approval_pending\",\"approval\":41,\"tool\":\"read_file\","
	    "\"expires\":\"%s\""), expires);
	fake_loop_script(e->loop, STARTED);
	fake_loop_script(e->loop, pending);
	fake_loop_script(e->loop, "@wait");
	fake_loop_script(e->loop, "@approved " DONE("Read."));
	start(e, &p);
	pty_type(&p, "read it\r");
	pty_prompt(&p, "approve 41? [y]es once, [f]or a while, [N]o ");
	pty_type(&p, "y\r");
	pty_expect(&p, "approved 41: runs");
	pty_expect(&p, "model: Read.");
	pty_prompt(&p, "> ");
	pty_type(&p, "\004");
	assert_int_equal(pty_finish(&p), 0);
	pty_free(&p);
	hist = history(e);
	assert_non_null(hist);
	assert_non_null(strstr(hist, "read"));
	/* libedit's file: a header line, then one line per message. */
	assert_null(strstr(hist, "\ny\n"));
	free(hist);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_streams_with_status_and_compact_lines, fake_pair_setup,
		    fake_pair_teardown),
		cmocka_unit_test_setup_teardown(
		    test_ctrl_c_stops_the_turn_then_ends_the_chat, fake_pair_setup,
		    fake_pair_teardown),
		cmocka_unit_test_setup_teardown(
		    test_approval_answer_not_in_history, fake_pair_setup, fake_pair_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
