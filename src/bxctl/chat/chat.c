/*
 * chat.c: `bxctl chat`, a conversation with loopd: one chat frame per
 * line the owner types (or the one --say text), its turn events printed
 * as they arrive, and approvals asked for on the terminal. On a terminal
 * the line is edited with libedit and kept in a history (prompt.h).
 * Ctrl-C during a turn stops the turn (turn.h); at the prompt it ends
 * the chat.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/chat/interrupt.h"
#include "bxctl/chat/linein.h"
#include "bxctl/chat/prompt.h"
#include "bxctl/chat/turn.h"
#include "bxctl/commands.h"
#include "proto/escape.h"
#include "bxctl/common/options.h"
#include "proto/types.h"

/*
 * The longest message, in bytes. A frame holds 1 MiB, and JSON may write
 * a byte of text as six ("\u001b"), so this leaves room to spare.
 */
#define CHAT_TEXT_MAX	65536

static const char chat_help[] =
    "Talks to loopd. Without --say, reads one message per line from\n"
    "stdin until end of file, and asks on stderr whether to approve each\n"
    "call that waits for approval: y approves once, f approves and lets\n"
    "the same call through for a while (asked, 1h by default), anything\n"
    "else refuses. On a terminal, lines are edited as in a shell and kept\n"
    "in a history; a status line says what the turn is doing; calls and\n"
    "results are one line each. Ctrl-C stops the turn; at the prompt, it\n"
    "ends the chat.\n"
    "\n"
    "  --session ID         go on with session ID (default: a new one)\n"
    "  --say TEXT           send TEXT as one message, print the events\n"
    "                       and exit; approvals are not asked for\n"
    "  --json               print each turn event as one JSON line;\n"
    "                       approvals are not asked for\n"
    "  --verbose            print calls and results whole, with their\n"
    "                       ids, on a terminal too\n"
    "  --config PATH        brokerd.toml, for the grants directory of\n"
    "                       [f]or a while (default: brokerd's own)\n"
    "  --loop-socket PATH   loopd's socket (default\n"
    "                       <home>/" BX_HOME_LOOP_SOCKET ")\n"
    "  --admin-socket PATH  brokerd's admin socket, to show and answer\n"
    "                       approvals (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --help               this text\n";

/* Whether text can be sent: UTF-8, at most CHAT_TEXT_MAX bytes. */
static bool
sendable(const char *text, size_t len)
{
	return len <= CHAT_TEXT_MAX && escape_valid_utf8(text, len);
}

/* One turn, and its exit status; a turn that cannot run is printed. */
static int
one_turn(const struct turn_opts *opts, char *session, const char *text,
    bool *ret_stop)
{
	struct bx_error err;
	enum turn_end end;

	if (turn_run(opts, session, text, &end, &err) == -1) {
		*ret_stop = true;
		return cli_fail("%s", err.msg);
	}
	*ret_stop = false;
	return end == TURN_DONE ? CLI_OK : CLI_FAIL;
}

/*
 * The next message, edited (p) or read plainly into *line; NULL at end of
 * file or on Ctrl-C, which both end the chat.
 */
static const char *
next_line(const struct turn_opts *opts, bool show)
{
	const char *line;
	bool interrupted;
	size_t len;

	if (opts->prompt != NULL)
		return prompt_read(opts->prompt, "> ", &interrupted);
	if (show) {
		fprintf(stderr, "> ");
		fflush(stderr);
	}
	if (linein_read(opts->answers, &line, &len) != 1)
		return NULL;
	return line;
}

/*
 * Reads messages from stdin, one per line, until end of file. Empty
 * lines are skipped. The exit status is CLI_FAIL if loopd could not be
 * reached (which ends the chat) or any turn ended in an error.
 */
static int
interactive(struct turn_opts *opts, char *session)
{
	bool prompt = isatty(STDIN_FILENO) && !opts->json, stop = false;
	int status = CLI_OK;
	const char *line;
	size_t n;

	if (prompt)
		opts->prompt = prompt_open();
	if (opts->prompt == NULL &&
	    (opts->answers = linein_open(STDIN_FILENO)) == NULL)
		return cli_fail("out of memory");
	for (;;) {
		if ((line = next_line(opts, prompt)) == NULL)
			break;
		if ((n = strlen(line)) == 0)
			continue;
		if (!sendable(line, n)) {
			status = cli_fail("a message must be UTF-8 text of at "
			    "most %d bytes; not sent", CHAT_TEXT_MAX);
			continue;
		}
		if (one_turn(opts, session, line, &stop) != CLI_OK)
			status = CLI_FAIL;
		if (stop)
			break;
	}
	if (prompt && !stop)
		fprintf(stderr, "\n");
	prompt_close(opts->prompt);
	opts->prompt = NULL;
	linein_close(opts->answers);
	opts->answers = NULL;
	return status;
}

/* What the command line asked for; the paths are filled in by parse(). */
struct chat_args {
	const char	*session;	/* NULL: a new session */
	const char	*say;		/* NULL: interactive */
	const char	*config;	/* NULL: brokerd's default */
	bool		 json;
	bool		 verbose;
	char		 loop_path[SOCK_PATH_MAX];
	char		 admin_path[SOCK_PATH_MAX];
};

/* Checks what the options gave; the exit status (a usage error printed). */
static int
check_args(const struct cli_command *cmd, int argc, char **argv,
    const char *loop, const char *admin, struct chat_args *a)
{
	struct bx_error err;
	int r;

	if ((r = options_operands(cmd, argc, argv, 0, "")) != CLI_OK)
		return r;
	if (a->session != NULL && bx_session_id_check(a->session, &err) == -1)
		return cli_usage_error(cmd, "--session: %s", err.msg);
	if ((r = options_socket(cmd, loop, BX_HOME_LOOP_SOCKET,
	    a->loop_path)) != CLI_OK)
		return r;
	if ((r = options_socket(cmd, admin, BX_HOME_ADMIN_SOCKET,
	    a->admin_path)) != CLI_OK)
		return r;
	if (a->say != NULL && a->say[0] == '\0')
		return cli_usage_error(cmd, "--say needs a message");
	if (a->say != NULL && !sendable(a->say, strlen(a->say)))
		return cli_usage_error(cmd, "--say must be UTF-8 text of at "
		    "most %d bytes", CHAT_TEXT_MAX);
	return CLI_OK;
}

/* Parses the command line: 0, or -1 with *ret_status (help or usage). */
static int
parse(const struct cli_command *cmd, int argc, char **argv,
    struct chat_args *a, int *ret_status)
{
	static const struct option longopts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "say", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "config", required_argument, NULL, 'c' },
		{ "loop-socket", required_argument, NULL, 'l' },
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *loop = NULL, *admin = NULL;
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			a->session = optarg;
			break;
		case 'm':
			a->say = optarg;
			break;
		case 'j':
			a->json = true;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'c':
			a->config = optarg;
			break;
		case 'l':
			loop = optarg;
			break;
		case 'a':
			admin = optarg;
			break;
		case 'h':
			*ret_status = cli_help(cmd, chat_help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	*ret_status = check_args(cmd, argc, argv, loop, admin, a);
	return *ret_status == CLI_OK ? 0 : -1;
}

int
cmd_chat(const struct cli_command *cmd, int argc, char **argv)
{
	struct chat_args a;
	char current[BX_ID_MAX + 1];
	struct turn_opts opts;
	int status;
	bool stop, tty = isatty(STDOUT_FILENO);

	memset(&a, 0, sizeof(a));
	if (parse(cmd, argc, argv, &a, &status) == -1)
		return status;
	if (interrupt_install() == -1)
		return cli_fail("cannot catch SIGINT: %s", strerror(errno));
	snprintf(current, sizeof(current), "%s", a.session == NULL ? "" :
	    a.session);
	memset(&opts, 0, sizeof(opts));
	opts.loop_path = a.loop_path;
	opts.admin_path = a.admin_path;
	opts.config = a.config;
	opts.json = a.json;
	opts.ask = a.say == NULL && !a.json;
	opts.compact = tty && !a.verbose && !a.json;
	opts.status = tty && !a.json;
	opts.color = getenv("NO_COLOR") == NULL;
	if (a.say != NULL)
		return one_turn(&opts, current, a.say, &stop);
	return interactive(&opts, current);
}
