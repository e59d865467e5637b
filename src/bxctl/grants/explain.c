/*
 * explain.c: `bxctl explain TOOL ARGUMENTS_JSON`, the decision brokerd
 * would make now for that call in a session (its real taint, the grant
 * files as they are), asked on admin.sock: the outcome, the grant that
 * matched, and every candidate with why it was or was not chosen, in the
 * words of `brokerd explain`. brokerd writes no record, raises no taint
 * and runs nothing for it.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bxctl/commands.h"
#include "bxctl/common/admin.h"
#include "proto/escape.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/options.h"
#include "proto/types.h"

/*
 * The longest ARGUMENTS_JSON: the kernel passes no longer argument
 * (MAX_ARG_STRLEN), and even written six bytes a byte ("\u001b") it fits
 * in one request frame.
 */
#define EXPLAIN_ARGS_MAX	(128 * 1024)
/* The session asked about when none is named: a new one. */
#define EXPLAIN_SESSION		"bxctl-explain"

static const char explain_help[] =
    "Asks brokerd what it would decide now for a call of TOOL with\n"
    "ARGUMENTS_JSON (the arguments as the model writes them), with the\n"
    "session's real taint and the grant files as they are, and prints the\n"
    "outcome, the grant that matched and every grant for the tool with\n"
    "why it was or was not chosen. Nothing is recorded, no taint is\n"
    "raised, nothing runs.\n"
    "\n"
    "  --session ID         decide for session ID (default: a new session,\n"
    "                       at taint private and trusted)\n"
    "  --json               the answer as one JSON object\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --help               this text\n";

/* "label: text", text escaped. */
static void
line(const char *label, const char *text)
{
	printf("%s: ", label);
	escape_puts(stdout, text);
	printf("\n");
}

static void
grant(const struct bx_explanation *x)
{
	const struct bx_matched_grant *g = &x->grant;

	if (!x->has_grant) {
		printf("grant: none\n");
		return;
	}
	printf("grant: ");
	escape_puts(stdout, g->id);
	printf(" (%s, result_class %s, untrusted %s", g->mode,
	    bx_class_name(g->result_class), g->untrusted ? "true" : "false");
	if (g->matched_path != NULL) {
		printf(", matched path ");
		escape_puts(stdout, g->matched_path);
	}
	printf(")\n");
}

static void
text(const struct bx_explanation *x, const char *tool)
{
	const struct bx_grant_problem *p;
	size_t i;

	printf("session: ");
	escape_puts(stdout, x->session);
	printf(" (taint %s, %s)\n", bx_class_name(x->taint),
	    x->untrusted ? "untrusted" : "trusted");
	printf("outcome: %s", bx_outcome_name(x->outcome.kind));
	if (x->outcome.kind == BX_OUTCOME_DENIED)
		printf(" (%s)", bx_deny_name(x->outcome.reason));
	printf("\n");
	for (i = 0; i < x->nproblems; i++) {
		p = &x->problems[i];
		printf("problem: ");
		escape_puts(stdout, p->file);
		if (p->has_line)
			printf(":%" PRIu64, p->line);
		line("", p->problem);
	}
	if (x->nproblems > 0)
		printf("see docs/runbook.md#grants-invalid\n");
	if (x->outcome.kind == BX_OUTCOME_DENIED &&
	    x->outcome.reason == BX_DENY_STATE_UNREADABLE)
		printf("see docs/runbook.md#broker-state-damaged\n");
	if (x->detail != NULL)
		line("arguments", x->detail);
	grant(x);
	if (x->ncandidates == 0 && x->nproblems == 0 && x->detail == NULL) {
		printf("candidates: none (no grant for ");
		escape_puts(stdout, tool);
		printf(")\n");
	} else if (x->ncandidates > 0)
		printf("candidates:\n");
	for (i = 0; i < x->ncandidates; i++) {
		printf("  ");
		escape_puts(stdout, x->candidates[i].grant);
		printf(" (%s)", x->candidates[i].mode);
		line("", x->candidates[i].why);
	}
}

static void
json(const struct bx_explanation *x)
{
	const struct bx_candidate *c;
	const struct bx_grant_problem *p;
	json_t *o, *cands = json_array(), *probs = json_array();
	size_t i;

	for (i = 0; cands != NULL && i < x->ncandidates; i++) {
		c = &x->candidates[i];
		json_array_append_new(cands, json_pack("{s:s, s:s, s:s, s:s}",
		    "grant", c->grant, "mode", c->mode, "verdict", c->verdict,
		    "why", c->why));
	}
	for (i = 0; probs != NULL && i < x->nproblems; i++) {
		p = &x->problems[i];
		json_array_append_new(probs, json_pack("{s:s, s:o, s:s}",
		    "file", p->file, "line", p->has_line ?
		    json_integer((json_int_t)p->line) : json_null(), "problem",
		    p->problem));
	}
	o = json_pack("{s:s, s:s, s:b, s:o, s:s, s:o, s:o, s:o, s:o, s:o}",
	    "session", x->session, "taint", bx_class_name(x->taint),
	    "untrusted", x->untrusted, "now", jsonout_time(x->now), "outcome",
	    bx_outcome_name(x->outcome.kind), "reason",
	    x->outcome.kind == BX_OUTCOME_DENIED ?
	    json_string(bx_deny_name(x->outcome.reason)) : json_null(),
	    "detail", x->detail != NULL ? json_string(x->detail) : json_null(),
	    "grant", x->has_grant ? json_pack("{s:s, s:s, s:s, s:b, s:o}",
	    "id", x->grant.id, "mode", x->grant.mode, "result_class",
	    bx_class_name(x->grant.result_class), "untrusted",
	    x->grant.untrusted, "matched_path", x->grant.matched_path != NULL ?
	    json_string(x->grant.matched_path) : json_null()) : json_null(),
	    "candidates", cands, "problems", probs);
	if (o != NULL)
		jsonout_print(stdout, o);
	json_decref(o);
}

/* The operands and --session, checked; the exit status. */
static int
check(const struct cli_command *cmd, int argc, char **argv,
    const char *session)
{
	struct bx_error err;
	int r;

	if ((r = options_operands(cmd, argc, argv, 2, "TOOL and "
	    "ARGUMENTS_JSON")) != CLI_OK)
		return r;
	if (bx_session_id_check(session, &err) == -1)
		return cli_usage_error(cmd, "--session: %s", err.msg);
	if (!escape_valid_utf8(argv[optind], strlen(argv[optind])) ||
	    strlen(argv[optind + 1]) > EXPLAIN_ARGS_MAX ||
	    !escape_valid_utf8(argv[optind + 1], strlen(argv[optind + 1])))
		return cli_usage_error(cmd, "TOOL and ARGUMENTS_JSON must be "
		    "UTF-8 text, ARGUMENTS_JSON at most %d bytes",
		    EXPLAIN_ARGS_MAX);
	return CLI_OK;
}

static int
ask(const char *path, const char *session, const char *tool,
    const char *args, bool as_json)
{
	struct bx_msg *req, *answer;
	struct bx_error err;
	int r;

	if ((req = bx_msg_explain(session, tool, args)) == NULL)
		return cli_fail("out of memory");
	r = admin_call(path, req, BX_MSG_EXPLANATION, &answer, &err);
	bx_msg_free(req);
	if (r == -1)
		return cli_fail("%s", err.msg);
	if (as_json)
		json(&answer->explanation);
	else
		text(&answer->explanation, tool);
	bx_msg_free(answer);
	return CLI_OK;
}

int
cmd_explain(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *session = EXPLAIN_SESSION, *socket = NULL;
	char path[SOCK_PATH_MAX];
	bool as_json = false;
	int ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 's')
			session = optarg;
		else if (ch == 'j')
			as_json = true;
		else if (ch == 'a')
			socket = optarg;
		else if (ch == 'h')
			return cli_help(cmd, explain_help);
		else
			return cli_option_error(cmd, ch, argv);
	}
	if ((r = check(cmd, argc, argv, session)) != CLI_OK ||
	    (r = options_socket(cmd, socket, BX_HOME_ADMIN_SOCKET,
	    path)) != CLI_OK)
		return r;
	return ask(path, session, argv[optind], argv[optind + 1], as_json);
}
