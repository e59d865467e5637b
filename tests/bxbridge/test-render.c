/*
 * test-render.c: the posts bxbridge writes (src/bxbridge/render.h). One
 * request in full, as the owner reads it; then the hostile arguments of
 * the issue (backtick runs, @channel, @all, @here, a user, links, ESC
 * sequences, U+202E, U+200B, 10 KB, 9,000 backticks), each checked the
 * way Markdown would read the post: every line outside a code block is
 * the bridge's own, every block's fence is longer than any backtick run
 * inside it, nothing anywhere is a control, a bidi control or a
 * zero-width character, and the post stays under RENDER_POST_MAX. Then
 * each outcome's patched post.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bxbridge/render.h"
#include "proto/escape.h"

/* 2026-12-06T05:00:00.000Z and 15 minutes later. */
#define CREATED	1796533200000LL
#define EXPIRES	(CREATED + 15 * 60 * 1000)

/* What a post holds, read as Markdown fences read it. */
struct shape {
	char	outside[RENDER_POST_MAX];	/* lines outside blocks */
	char	inside[RENDER_POST_MAX];	/* lines inside blocks */
	size_t	nblocks;
};

static struct bx_pending_approval
pending(const char *tool, const char *arguments)
{
	struct bx_pending_approval pa = {
		.approval = 42,
		.session = (char *)"s-20261206-0001",
		.call = (char *)"call-7",
		.tool = (char *)tool,
		.arguments = (char *)arguments,
		.grant = (char *)"shell-build",
		.taint = BX_CLASS_PRIVATE,
		.created = CREATED,
		.expires = EXPIRES,
	};

	return pa;
}

static size_t
backtick_run(const char *s, size_t len)
{
	size_t i, run = 0, longest = 0;

	for (i = 0; i < len; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
}

/* Whether line (len bytes) is only backticks, at least min of them. */
static bool
fence_line(const char *line, size_t len, size_t min)
{
	return len >= min && len >= 3 && backtick_run(line, len) == len;
}

static void
append(char *dst, const char *line, size_t len)
{
	size_t have = strlen(dst);

	assert_true(have + len + 2 <= RENDER_POST_MAX);
	memcpy(dst + have, line, len);
	dst[have + len] = '\n';
	dst[have + len + 1] = '\0';
}

/* Reads msg and checks what every post must be (see the top). */
static void
read_post(const char *msg, struct shape *sh)
{
	const char *line = msg, *nl;
	size_t len, fence = 0;
	char *esc;

	memset(sh, 0, sizeof(*sh));
	assert_true(strlen(msg) < RENDER_POST_MAX);
	for (; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);	/* every line ends */
		len = (size_t)(nl - line);
		/* Nothing on the line that escape.h would escape. */
		esc = escape_string(line, len);
		assert_non_null(esc);
		assert_int_equal(strlen(esc), len);
		assert_memory_equal(esc, line, len);
		free(esc);
		if (fence == 0 && fence_line(line, len, 3)) {
			fence = len;
			sh->nblocks++;
		} else if (fence > 0 && fence_line(line, len, fence))
			fence = 0;
		else if (fence > 0) {
			assert_true(backtick_run(line, len) < fence);
			append(sh->inside, line, len);
		} else
			append(sh->outside, line, len);
	}
	assert_int_equal(fence, 0);
}

static void
assert_contains(const char *hay, const char *needle)
{
	if (strstr(hay, needle) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", hay, needle);
}

static void
assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle) != NULL)
		fail_msg("\"%s\" has \"%s\"", hay, needle);
}

/* The bridge's own words: none of what the model could have written. */
static void
outside_is_ours(const struct shape *sh)
{
	assert_lacks(sh->outside, "@");
	assert_lacks(sh->outside, "http");
	assert_lacks(sh->outside, "](");
	assert_lacks(sh->outside, "<");
	assert_lacks(sh->outside, "\\u");
	assert_lacks(sh->outside, "rm -rf");
}

static char *
request(const struct bx_pending_approval *pa, struct shape *sh)
{
	struct bx_error err;
	char *msg = NULL;

	if (render_request(pa, &msg, &err) == -1)
		fail_msg("%s", err.msg);
	read_post(msg, sh);
	outside_is_ours(sh);
	return msg;
}

static void
test_request(void **state)
{
	static const char want[] =
	    "**Boxmaker asks: may this tool call run?** (approval 42)\n"
	    "```\n"
	    "approval   42\n"
	    "tool       shell\n"
	    "session    s-20261206-0001\n"
	    "call       call-7\n"
	    "grant      shell-build\n"
	    "taint      private\n"
	    "created    2026-12-06T05:00:00.000Z\n"
	    "expires    2026-12-06T05:15:00.000Z\n"
	    "arguments\n"
	    "{\"argv\":[\"make\",\"check\"]}\n"
	    "```\n"
	    "To answer, react with :white_check_mark: or :+1: to approve, or "
	    ":x: or :-1: to refuse; or reply in this thread with `approve`, or "
	    "`refuse` and an optional reason. At the terminal: `bxctl approve "
	    "42` or `bxctl refuse 42`. Unanswered, the call is refused at "
	    "2026-12-06T05:15:00.000Z.\n";
	struct bx_pending_approval pa;
	struct shape sh;
	char *msg;

	(void)state;
	pa = pending("shell", "{\"argv\":[\"make\",\"check\"]}");
	msg = request(&pa, &sh);
	assert_string_equal(msg, want);
	assert_int_equal(sh.nblocks, 1);
	free(msg);
}

/* Line breaks in the arguments stay; each line is escaped alone. */
static void
test_lines(void **state)
{
	struct bx_pending_approval pa;
	struct shape sh;
	char *msg;

	(void)state;
	pa = pending("write_file", "{\n  \"path\": \"a\x1b[1m\",\n"
	    "  \"text\": \"\\n\"\n}\n");
	msg = request(&pa, &sh);
	assert_contains(sh.inside, "arguments\n{\n  \"path\": \"a\\u001b[1m\","
	    "\n  \"text\": \"\\n\"\n}\n\n");
	free(msg);
}

static void
test_hostile(void **state)
{
	static const char args[] =
	    "{\"cmd\":\"```\\n@channel @all @here @kyle\\n````````\\n\","
	    "\"see\":\"[click](https://evil.example/x) <https://evil.example> "
	    "www.evil.example\",\n"
	    "\"esc\":\"\x1b[2J\x1b]8;;https://evil.example\x07link\x1b]8;;\x07"
	    "\x9b" "31m\",\n"
	    "\"rlo\":\"\xe2\x80\xae" "fdp.exe\",\"zw\":\"a\xe2\x80\x8b" "b\","
	    "\"bom\":\"\xef\xbb\xbf\",\"c1\":\"\xc2\x85\xc2\x9b\","
	    "\"del\":\"\x7f\","
	    "\"bad\":\"\xff\xc0\xaf\",\"cr\":\"x\ry\",\"nul\":\"rm -rf /\"}";
	struct bx_pending_approval pa;
	struct shape sh;
	char *msg;

	(void)state;
	pa = pending("sh`ell\n@all \xe2\x80\xae", args);
	msg = request(&pa, &sh);
	assert_int_equal(sh.nblocks, 1);
	/* The fence is longer than the arguments' run of 8. */
	assert_non_null(strstr(msg, "\n`````````\n"));
	assert_contains(sh.inside, "tool       sh`ell\\u000a@all \\u202e\n");
	assert_contains(sh.inside, "@channel @all @here @kyle");
	assert_contains(sh.inside, "[click](https://evil.example/x)");
	assert_contains(sh.inside, "\\u001b[2J\\u001b]8;;https://evil.example"
	    "\\u0007link\\u001b]8;;\\u0007\\x9b31m");
	assert_contains(sh.inside, "\\u202efdp.exe");
	assert_contains(sh.inside, "a\\u200bb");
	assert_contains(sh.inside, "\\ufeff");
	assert_contains(sh.inside, "\\u0085\\u009b");
	assert_contains(sh.inside, "\\u007f");
	assert_contains(sh.inside, "\\xff\\xc0\\xaf");
	assert_contains(sh.inside, "x\\u000dy");
	assert_lacks(msg, "The arguments are");
	free(msg);
}

/* 10 KB of arguments: cut, saying so, well under the limit. */
static void
test_long(void **state)
{
	struct bx_pending_approval pa;
	char *args, *msg;
	struct shape sh;
	size_t i;

	(void)state;
	assert_non_null(args = malloc(10 * 1024 + 1));
	for (i = 0; i < 10 * 1024; i++)
		args[i] = i % 64 == 63 ? '\n' : "@here\xe2\x80\xae"[i % 8];
	args[10 * 1024] = '\0';
	pa = pending("shell", args);
	msg = request(&pa, &sh);
	assert_contains(sh.outside, "The arguments are 10240 bytes, more "
	    "than a post holds: only their start is shown. `bxctl approvals` "
	    "shows them whole while the call waits, `bxctl log` after.\n");
	assert_contains(sh.outside, "To answer, react");
	assert_true(strlen(sh.inside) > RENDER_ARGS_MAX / 2);
	free(msg);

	/* One long line, all of it escapes: still cut after a whole escape. */
	memset(args, '\x1b', 10 * 1024);
	msg = request(&pa, &sh);
	assert_contains(sh.outside, "The arguments are 10240 bytes");
	assert_contains(sh.inside, "\\u001b\\u001b...\n");
	free(msg);

	/* Backticks make the fence as long as the text: less is shown. */
	memset(args, '`', 9000);
	args[9000] = '\0';
	msg = request(&pa, &sh);
	assert_contains(sh.outside, "The arguments are 9000 bytes");
	free(msg);

	/* Just within: nothing said. */
	memset(args, 'a', RENDER_ARGS_MAX);
	args[RENDER_ARGS_MAX] = '\0';
	msg = request(&pa, &sh);
	assert_lacks(sh.outside, "The arguments are");
	free(msg);
	args[RENDER_ARGS_MAX] = 'a';
	args[RENDER_ARGS_MAX + 1] = '\0';
	msg = request(&pa, &sh);
	assert_contains(sh.outside, "The arguments are 8001 bytes");
	free(msg);
	free(args);
}

static char *
outcome(const struct bx_pending_approval *pa, const struct render_outcome *o,
    struct shape *sh)
{
	struct bx_error err;
	char *msg = NULL;

	if (render_outcome(pa, o, &msg, &err) == -1)
		fail_msg("%s", err.msg);
	read_post(msg, sh);
	outside_is_ours(sh);
	assert_lacks(sh->outside, "To answer");
	assert_contains(sh->inside, "approval   42\ntool       shell\n");
	return msg;
}

static void
test_outcomes(void **state)
{
	struct bx_outcome allowed = { BX_OUTCOME_ALLOWED, 0 };
	struct bx_outcome ask = { BX_OUTCOME_ASK, 0 };
	struct bx_outcome denied = { BX_OUTCOME_DENIED,
	    BX_DENY_TAINT_TOO_HIGH };
	struct render_outcome o;
	struct bx_pending_approval pa;
	struct shape sh;
	char *msg;

	(void)state;
	pa = pending("shell", "{\"argv\":[\"@all\"]}");
	memset(&o, 0, sizeof(o));
	o.ro_result = RENDER_APPROVED;
	o.ro_where = RENDER_MATTERMOST;
	msg = outcome(&pa, &o, &sh);
	assert_true(strncmp(msg, "**Approved** here in Mattermost "
	    "(approval 42).\n```\n", 36) == 0);
	free(msg);
	o.ro_decision = &allowed;
	msg = outcome(&pa, &o, &sh);
	assert_contains(sh.outside, "**Approved** here in Mattermost "
	    "(approval 42). The call runs.\n");
	free(msg);
	/* Under an ask grant brokerd's re-decision is ask; the call runs. */
	o.ro_decision = &ask;
	msg = outcome(&pa, &o, &sh);
	assert_contains(sh.outside, "**Approved** here in Mattermost "
	    "(approval 42). The call runs.\n");
	free(msg);
	o.ro_where = RENDER_TERMINAL;
	o.ro_decision = &denied;
	msg = outcome(&pa, &o, &sh);
	assert_contains(sh.outside, "**Approved** at the terminal (bxctl) "
	    "(approval 42). brokerd decided again and denied the call: "
	    "taint_too_high.\n");
	free(msg);

	o.ro_result = RENDER_REFUSED;
	o.ro_where = RENDER_MATTERMOST;
	o.ro_reason = NULL;
	msg = outcome(&pa, &o, &sh);
	assert_contains(sh.outside, "**Refused** here in Mattermost "
	    "(approval 42). No reason given.\n");
	assert_int_equal(sh.nblocks, 1);
	free(msg);
	o.ro_reason = "not @channel, see ```` https://x.example \x1b[2J";
	msg = outcome(&pa, &o, &sh);
	assert_contains(sh.outside, "**Refused** here in Mattermost "
	    "(approval 42). The reason:\n");
	assert_int_equal(sh.nblocks, 2);
	assert_contains(msg, "\n`````\nnot @channel, see ```` "
	    "https://x.example \\u001b[2J\n`````\n");
	free(msg);
	o.ro_where = RENDER_TERMINAL;
	o.ro_reason = "too risky";
	msg = outcome(&pa, &o, &sh);
	assert_contains(sh.outside, "**Refused** at the terminal (bxctl) "
	    "(approval 42). The reason:\n");
	free(msg);

	memset(&o, 0, sizeof(o));
	o.ro_result = RENDER_EXPIRED;
	msg = outcome(&pa, &o, &sh);
	assert_true(strncmp(msg, "**Expired** unanswered (approval 42): the "
	    "call did not run.\n", 59) == 0);
	free(msg);
	o.ro_result = RENDER_GONE;
	msg = outcome(&pa, &o, &sh);
	assert_true(strncmp(msg, "**No longer waiting** (approval 42): "
	    "answered at the terminal (bxctl), or the call ended.\n", 89) ==
	    0);
	free(msg);
}

/* The longest reason and the most backticks together still fit. */
static void
test_outcome_bounds(void **state)
{
	struct bx_pending_approval pa;
	struct render_outcome o;
	char *args, reason[4000];
	struct shape sh;
	char *msg;

	(void)state;
	assert_non_null(args = malloc(20001));
	memset(args, '`', 20000);
	args[20000] = '\0';
	memset(reason, '`', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	pa = pending("shell", args);
	memset(&o, 0, sizeof(o));
	o.ro_result = RENDER_REFUSED;
	o.ro_reason = reason;
	msg = outcome(&pa, &o, &sh);
	assert_int_equal(sh.nblocks, 2);
	assert_contains(sh.outside, "The arguments are 20000 bytes");
	free(msg);
	free(args);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_outcome_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
