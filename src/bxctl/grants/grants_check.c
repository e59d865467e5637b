/*
 * grants_check.c: `bxctl grants check`, brokerd's report on the grant
 * files, and then bxctl's own check of every secret a grant names: its
 * file read as brokerd reads it for a call (present, modes, form) and
 * every host of the grant among the secret's hosts (secret_check_grant(),
 * brokerd/secret.h). brokerd's loading never reads a secret, so this is
 * done here, on the secrets directory beside brokerd.toml. One line per
 * problem, or "grants: ok".
 */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "brokerd/grants.h"
#include "brokerd/secret.h"
#include "bxctl/commands.h"
#include "bxctl/common/admin.h"
#include "bxctl/common/options.h"
#include "bxctl/common/problems.h"

static const char grants_help[] =
    "Asks brokerd to load the grant files as it would for a call, then\n"
    "reads each secret a grant names as brokerd would for the call (its\n"
    "file, its modes and form, and every host of the grant among the\n"
    "secret's), and prints each problem as FILE:LINE: PROBLEM, or\n"
    "\"grants: ok\". Exit status 1 if there are problems.\n"
    "\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --config PATH        brokerd.toml, for the grants directory and\n"
    "                       the secrets beside it (default: brokerd's own\n"
    "                       default)\n"
    "  --help               this text\n";

/* The secrets the grants name, each checked; problems into l. */
static int
check_secrets(const char *config_path, struct problem_list *l)
{
	struct secret_sink sink = { problems_add, l };
	char *config_dir, *grants_dir;
	struct grants *set = NULL;
	struct bx_error err;
	size_t i;
	int status = CLI_OK;

	if ((status = options_config_dirs(config_path, &config_dir,
	    &grants_dir)) != CLI_OK)
		return status;
	if (grants_load(grants_dir, &set, &err) == -1)
		status = cli_fail("%s", err.msg);
	for (i = 0; status == CLI_OK && i < set->gs_len; i++)
		if (secret_check_grant(config_dir, &set->gs_grants[i], &sink,
		    &err) == -1)
			status = cli_fail("%s", err.msg);
	grants_free(set);
	free(config_dir);
	free(grants_dir);
	return status;
}

/* brokerd's report's problems into l, first: 0, or -1 out of memory. */
static int
report_problems(const struct bx_grants_report *report,
    struct problem_list *l)
{
	const struct bx_grant_problem *gp;
	size_t i;

	for (i = 0; i < report->nproblems; i++) {
		gp = &report->problems[i];
		if (problems_add(l, gp->file, gp->has_line ?
		    (int64_t)gp->line : 0, gp->problem) == -1)
			return -1;
	}
	return 0;
}

/* Asks brokerd for the report, checks the secrets, prints; the status. */
static int
check(const char *path, const char *config_path)
{
	struct problem_list problems = { NULL, 0 };
	struct bx_msg *req, *answer;
	struct bx_error err;
	int r;

	if ((req = bx_msg_new(BX_MSG_CHECK_GRANTS)) == NULL)
		return cli_fail("out of memory");
	r = admin_call(path, req, BX_MSG_GRANTS_REPORT, &answer, &err);
	bx_msg_free(req);
	if (r == -1)
		return cli_fail("%s", err.msg);
	if (report_problems(&answer->grants_report, &problems) == -1)
		r = cli_fail("out of memory");
	else
		r = check_secrets(config_path, &problems);
	bx_msg_free(answer);
	if (r == CLI_OK && problems.pl_len == 0)
		printf("grants: ok\n");
	else if (r == CLI_OK) {
		problems_print(stdout, &problems, NULL);
		r = CLI_FAIL;
	}
	problems_clear(&problems);
	return r;
}

/* 0, or -1 with *ret_status the exit status (help, or a usage error). */
static int
parse(const struct cli_command *cmd, int argc, char **argv,
    const char **ret_socket, const char **ret_config, int *ret_status)
{
	static const struct option longopts[] = {
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			*ret_socket = optarg;
			break;
		case 'c':
			*ret_config = optarg;
			break;
		case 'h':
			*ret_status = cli_help(cmd, grants_help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	*ret_status = options_operands(cmd, argc, argv, 0, "");
	return *ret_status == CLI_OK ? 0 : -1;
}

int
cmd_grants_check(const struct cli_command *cmd, int argc, char **argv)
{
	const char *socket = NULL, *config = NULL;
	char path[SOCK_PATH_MAX];
	int status;

	if (parse(cmd, argc, argv, &socket, &config, &status) == -1)
		return status;
	if ((status = options_socket(cmd, socket, BX_HOME_ADMIN_SOCKET,
	    path)) != CLI_OK)
		return status;
	return check(path, config);
}
