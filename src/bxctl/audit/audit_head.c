/*
 * audit_head.c: `bxctl audit head`, the last record of the audit log as
 * SEQ:HASH on one line, for the owner to keep where brokerd cannot write
 * and check later with `bxctl audit verify --anchor` (anchors.h). The log
 * is verified first: the head of a chain that does not verify is not
 * worth keeping, so nothing is printed on stdout then, and stdout can be
 * appended to an anchors file as it is.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include "bxctl/audit/anchors.h"
#include "bxctl/audit/audit_read.h"
#include "bxctl/commands.h"
#include "bxctl/common/options.h"

static const char head_help[] =
    "Verifies the audit log as bxctl audit verify does and prints its\n"
    "last record as SEQ:HASH (the record's seq and the SHA-256 of its\n"
    "line). Keep it somewhere brokerd cannot write; bxctl audit verify\n"
    "--anchor SEQ:HASH later says whether the log still holds it.\n"
    "\n"
    "  --home PATH  the Boxmaker home (default $BOXMAKER_HOME, else\n"
    "               /var/lib/boxmaker for root and\n"
    "               ~/.local/share/boxmaker for anyone else)\n"
    "  --help       this text\n";

static int
head(const char *home)
{
	char path[PATH_MAX], text[ANCHOR_TEXT_MAX];
	struct bx_chain_report *r;
	struct bx_error err;
	int rv = CLI_OK;

	if (audit_home(home, path, &err) == -1 ||
	    audit_read(path, NULL, NULL, &r, &err) == -1)
		return cli_fail("%s", err.msg);
	if (r->failed)
		rv = cli_fail("the audit log does not verify: %s:%" PRIu64
		    ": %s; no head printed", r->failure.at.file,
		    r->failure.at.line, r->failure.what);
	else if (!r->has_head)
		rv = cli_fail("the audit log in %s/audit holds no record yet: "
		    "there is no head", path);
	else {
		anchor_format(r->next_seq - 1, &r->head, text);
		printf("%s\n", text);
	}
	bx_chain_report_free(r);
	return rv;
}

int
cmd_audit_head(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *home = NULL;
	int ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'H':
			home = optarg;
			break;
		case 'h':
			return cli_help(cmd, head_help);
		default:
			return cli_option_error(cmd, ch, argv);
		}
	}
	if ((r = options_operands(cmd, argc, argv, 0, "")) != CLI_OK)
		return r;
	return head(home);
}
