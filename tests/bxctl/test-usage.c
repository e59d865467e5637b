/*
 * test-usage.c: bxctl's command line, run as the real binary: --help for
 * bxctl and every command (exit 0, on stdout), unknown commands and
 * options, missing and extra operands (the usage line on stderr, exit 2),
 * and man/bxctl.1 naming every command and option --help lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run.h"

/* Every command but audit verify, which its own test covers. */
static const char *const commands[][2] = {
	{ "approvals", NULL },
	{ "approve", NULL },
	{ "refuse", NULL },
	{ "grants", "check" },
	{ "chat", NULL },
	{ "audit", "head" },
	{ "log", NULL },
	{ "status", NULL },
	{ "sessions", NULL },
	{ "explain", NULL },
	{ "grants", "list" },
	{ "grants", "add" },
	{ "grants", "remove" },
	{ "secrets", "add" },
	{ "secrets", "list" },
	{ "secrets", "remove" },
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void
run2(struct run_result *res, const char *a, const char *b, const char *c,
    const char *d)
{
	const char *args[5] = { a, b, c, d, NULL };

	run_bxctl(args, "/nonexistent", NULL, res);
}

/* "usage: bxctl <name>" for the command's own usage line. */
static void
usage_prefix(size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "usage: bxctl %s%s%s", commands[i][0],
	    commands[i][1] != NULL ? " " : "",
	    commands[i][1] != NULL ? commands[i][1] : "");
}

static void
test_top_level(void **state)
{
	struct run_result res;
	size_t i;

	(void)state;
	run2(&res, "--help", NULL, NULL, NULL);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.err, "");
	assert_true(strncmp(res.out, "usage: bxctl ", 13) == 0);
	for (i = 0; i < NCOMMANDS; i++)
		assert_non_null(strstr(res.out, commands[i][0]));
	run_result_free(&res);

	run2(&res, NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 2);
	assert_string_equal(res.out, "");
	assert_true(strncmp(res.err, "usage: bxctl ", 13) == 0);
	run_result_free(&res);

	run2(&res, "frobnicate", NULL, NULL, NULL);
	assert_int_equal(res.status, 2);
	assert_true(strncmp(res.err, "bxctl: unknown command 'frobnicate'\n"
	    "usage: bxctl ", 49) == 0);
	run_result_free(&res);

	run2(&res, "grants", "frob", NULL, NULL);
	assert_int_equal(res.status, 2);
	assert_true(strncmp(res.err, "bxctl: unknown command 'grants frob'\n",
	    37) == 0);
	run_result_free(&res);

	run2(&res, "grants", NULL, NULL, NULL);
	assert_int_equal(res.status, 2);
	assert_true(strncmp(res.err, "bxctl: 'grants' needs a subcommand\n",
	    35) == 0);
	run_result_free(&res);
}

static void
test_every_command_has_help(void **state)
{
	struct run_result res;
	char prefix[64];
	size_t i;

	(void)state;
	for (i = 0; i < NCOMMANDS; i++) {
		usage_prefix(i, prefix, sizeof(prefix));
		if (commands[i][1] != NULL)
			run2(&res, commands[i][0], commands[i][1], "--help",
			    NULL);
		else
			run2(&res, commands[i][0], "--help", NULL, NULL);
		assert_int_equal(res.status, 0);
		assert_string_equal(res.err, "");
		assert_true(strncmp(res.out, prefix, strlen(prefix)) == 0);
		assert_non_null(strstr(res.out, "--help"));
		run_result_free(&res);
	}
}

static void
test_unknown_option_is_usage_error(void **state)
{
	struct run_result res;
	char want[256], prefix[64];
	size_t i;

	(void)state;
	for (i = 0; i < NCOMMANDS; i++) {
		usage_prefix(i, prefix, sizeof(prefix));
		if (commands[i][1] != NULL)
			run2(&res, commands[i][0], commands[i][1], "--frob",
			    NULL);
		else
			run2(&res, commands[i][0], "--frob", NULL, NULL);
		snprintf(want, sizeof(want), "bxctl %s%s%s: unknown option "
		    "'--frob'\n%s", commands[i][0],
		    commands[i][1] != NULL ? " " : "",
		    commands[i][1] != NULL ? commands[i][1] : "", prefix);
		assert_int_equal(res.status, 2);
		assert_string_equal(res.out, "");
		assert_true(strncmp(res.err, want, strlen(want)) == 0);
		run_result_free(&res);
	}
}

static void
test_operands(void **state)
{
	static const struct {
		const char	*a, *b, *c, *d;
		const char	*err;
	} cases[] = {
		{ "approve", NULL, NULL, NULL, "bxctl approve: missing "
		    "approval ID\nusage: bxctl approve [--for DURATION [--config "
		    "PATH]] [--admin-socket PATH] ID\n" },
		{ "refuse", "--reason", "x", NULL, "bxctl refuse: missing "
		    "approval ID\n" },
		{ "approve", "41", "42", NULL, "bxctl approve: unexpected "
		    "argument '42'\n" },
		{ "approve", "4x", NULL, NULL, "bxctl approve: '4x' is not an "
		    "approval id (a number)\n" },
		{ "approve", "-1", NULL, NULL, "bxctl approve: unknown option "
		    "'-1'\n" },
		{ "approve", "9223372036854775808", NULL, NULL, "bxctl approve: "
		    "'9223372036854775808' is not an approval id (a number)\n" },
		{ "approve", "--reason", "x", "41", "bxctl approve: unknown "
		    "option '--reason'\n" },
		{ "refuse", "41", "--reason", NULL, "bxctl refuse: option "
		    "'--reason' needs an argument\n" },
		{ "approvals", "extra", NULL, NULL, "bxctl approvals: "
		    "unexpected argument 'extra'\n" },
		{ "chat", "--session", "Not/Valid", NULL, "bxctl chat: "
		    "--session: " },
		{ "chat", "--say", NULL, NULL, "bxctl chat: option '--say' "
		    "needs an argument\n" },
		{ "chat", "--say", "\xff", NULL, "bxctl chat: --say must be "
		    "UTF-8 text of at most 65536 bytes\n" },
		{ "chat", "--say", "", NULL, "bxctl chat: --say needs a "
		    "message\n" },
		{ "chat", "hello", NULL, NULL, "bxctl chat: unexpected "
		    "argument 'hello'\n" },
		{ "approvals", "\x1b[31m", NULL, NULL, "bxctl approvals: "
		    "unexpected argument '\\u001b[31m'\n" },
		{ "explain", "shell", NULL, NULL, "bxctl explain: missing TOOL "
		    "and ARGUMENTS_JSON\n" },
		{ "explain", "shell", "{}", "x", "bxctl explain: unexpected "
		    "argument 'x'\n" },
		{ "sessions", "extra", NULL, NULL, "bxctl sessions: unexpected "
		    "argument 'extra'\n" },
		{ "grants", "list", "extra", NULL, "bxctl grants list: "
		    "unexpected argument 'extra'\n" },
		{ "approve", "--for", "1x", "41", "bxctl approve: --for: '1x' "
		    "is not a duration" },
		{ "approve", "--for", "31d", "41", "bxctl approve: --for: "
		    "'31d' is not between 1 s and 30 d\n" },
		{ "approve", "--config", "/x", "41", "bxctl approve: --config "
		    "is only for --for\n" },
		{ "grants", "add", "--mode", "auto", "bxctl grants add: missing "
		    "TOOL\n" },
		{ "grants", "remove", NULL, NULL, "bxctl grants remove: missing "
		    "grant ID\n" },
		{ "secrets", "add", "--bearer", "--host=h.example", "bxctl "
		    "secrets add: missing NAME\n" },
		{ "secrets", "add", "gh", "--host=h.example", "bxctl secrets "
		    "add: give one of --bearer, --header NAME and --basic "
		    "USER\n" },
		{ "secrets", "add", "gh", "--bearer", "bxctl secrets add: "
		    "missing --host HOST\n" },
		{ "secrets", "remove", NULL, NULL, "bxctl secrets remove: "
		    "missing NAME\n" },
		{ "secrets", "list", "extra", NULL, "bxctl secrets list: "
		    "unexpected argument 'extra'\n" },
		{ "audit", "head", "--home", NULL, "bxctl audit head: option "
		    "'--home' needs an argument\n" },
	};
	struct run_result res;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run2(&res, cases[i].a, cases[i].b, cases[i].c, cases[i].d);
		if (res.status != 2 || strncmp(res.err, cases[i].err,
		    strlen(cases[i].err)) != 0)
			fail_msg("case %zu: status %d, stderr %s", i,
			    res.status, res.err);
		assert_string_equal(res.out, "");
		assert_non_null(strstr(res.err, "\nusage: bxctl "));
		run_result_free(&res);
	}
}

/* Every command, and every option any --help shows, is in bxctl(1). */
static void
test_man_page_lists_everything(void **state)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char path[4096], *man, *opt, *end, name[64], want[80];
	struct run_result res;
	size_t i, len;
	FILE *fp;

	(void)state;
	assert_non_null(root);
	snprintf(path, sizeof(path), "%s/man/bxctl.1", root);
	assert_non_null(fp = fopen(path, "r"));
	man = calloc(1, 1 << 20);
	assert_non_null(man);
	len = fread(man, 1, (1 << 20) - 1, fp);
	fclose(fp);
	man[len] = '\0';
	for (i = 0; i < NCOMMANDS; i++) {
		snprintf(want, sizeof(want), ".Cm %s%s%s\n", commands[i][0],
		    commands[i][1] != NULL ? " " : "",
		    commands[i][1] != NULL ? commands[i][1] : "");
		assert_non_null(strstr(man, want));
		if (commands[i][1] != NULL)
			run2(&res, commands[i][0], commands[i][1], "--help",
			    NULL);
		else
			run2(&res, commands[i][0], "--help", NULL, NULL);
		for (opt = res.out; (opt = strstr(opt, "  --")) != NULL;
		    opt = end) {
			opt += 4;
			end = opt + strcspn(opt, " \n");
			snprintf(name, sizeof(name), "%.*s", (int)(end - opt),
			    opt);
			snprintf(want, sizeof(want), ".It Fl -%s", name);
			if (strstr(man, want) == NULL)
				fail_msg("bxctl.1 lacks %s", want);
		}
		run_result_free(&res);
	}
	assert_non_null(strstr(man, ".Cm audit verify\n"));
	/* Options --help shows for audit verify, which the loop skips. */
	assert_non_null(strstr(man, ".It Fl -anchor Ar seq:hash"));
	assert_non_null(strstr(man, ".It Fl -anchors Ar file"));
	assert_non_null(strstr(man, ".Sh EXIT STATUS"));
	free(man);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_level),
		cmocka_unit_test(test_every_command_has_help),
		cmocka_unit_test(test_unknown_option_is_usage_error),
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_man_page_lists_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
