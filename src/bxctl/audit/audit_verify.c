/*
 * audit_verify.c: `bxctl audit verify` (see audit_verify.h). Each file is
 * mapped whole and every line is hashed where it lies, as it is, so the
 * verifier goes about as fast as reading and hashing the bytes
 * (audit_read.h); anchors are checked as the records go by (anchors.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/audit/anchors.h"
#include "bxctl/audit/audit_read.h"
#include "bxctl/audit/audit_verify.h"
#include "proto/escape.h"
#include "bxctl/common/options.h"
#include "proto/chain.h"

static const char verify_help[] =
    "Reads every audit file in HOME/audit in name order, checks the hash\n"
    "chain, and prints \"audit: ok, N records, head HEX\" with a line for\n"
    "each recovery, accepted break, abandoned approval and clock warning;\n"
    "or the first failure as FILE:LINE: WHAT, with exit status 1.\n"
    "brokerd need not be running.\n"
    "\n"
    "With anchors (SEQ:HASH, as bxctl audit head prints them) it also\n"
    "fails unless the log still holds record SEQ with that hash: a\n"
    "missing record means the tail was cut, another hash that the log\n"
    "was rewritten.\n"
    "\n"
    "  --home PATH     the Boxmaker home (default $BOXMAKER_HOME, else\n"
    "                  /var/lib/boxmaker for root and\n"
    "                  ~/.local/share/boxmaker for anyone else)\n"
    "  --anchor A      check anchor A (SEQ:HASH); may be repeated\n"
    "  --anchors FILE  check every anchor in FILE, one per line (blank\n"
    "                  lines and lines starting with # are skipped)\n"
    "  --help          this text\n";

static void
put_location(const struct bx_location *at)
{
	escape_puts(stdout, at->file);
	printf(":%" PRIu64, at->line);
}

static int
print_report(const struct bx_chain_report *r)
{
	char hex[BX_HASH_HEX_LEN + 1] = "none";
	size_t i;

	if (r->failed) {
		put_location(&r->failure.at);
		printf(": ");
		escape_puts(stdout, r->failure.what);
		printf("\n");
		return CLI_FAIL;
	}
	if (r->has_head)
		bx_hash_format(&r->head, hex);
	printf("audit: ok, %" PRIu64 " records, head %s\n", r->records, hex);
	for (i = 0; i < r->nrecoveries; i++) {
		printf("recovered: ");
		put_location(&r->recoveries[i]);
		printf(": a torn line, described by the Recovery record "
		    "after it\n");
	}
	for (i = 0; i < r->nbreaks; i++) {
		printf("accepted break: ");
		put_location(&r->breaks[i].at);
		printf(": accepts the failure at ");
		put_location(&r->breaks[i].accepted);
		printf("\n");
	}
	for (i = 0; i < r->nabandoned; i++)
		printf("abandoned: decision %" PRIu64 " asked for approval "
		    "and got no answer\n", r->abandoned[i]);
	for (i = 0; i < r->nclock_warnings; i++) {
		printf("clock warning: ");
		put_location(&r->clock_warnings[i]);
		printf(": time went backwards\n");
	}
	if (r->torn) {
		printf("torn tail: ");
		put_location(&r->torn_tail);
		printf(": the last line has no newline (%" PRIu64 " bytes); "
		    "brokerd recovers it when it starts\n", r->torn_bytes);
	}
	return CLI_OK;
}

static int
verify(const char *home, struct anchors *as)
{
	struct bx_chain_report *r;
	struct bx_error err;
	char path[PATH_MAX];
	int rv;

	anchors_sort(as);
	if (audit_home(home, path, &err) == -1 ||
	    audit_read(path, as->n > 0 ? anchors_on_record : NULL, as, &r,
	    &err) == -1)
		return cli_fail("%s", err.msg);
	rv = print_report(r);
	if (anchors_print(stdout, as, r) > 0)
		rv = CLI_FAIL;
	bx_chain_report_free(r);
	if (fflush(stdout) == EOF)
		return cli_fail("cannot write the report: %s", strerror(errno));
	return rv;
}

/* --anchor A and --anchors FILE, in the order given. */
static int
add_anchor(const struct cli_command *cmd, struct anchors *as, int ch,
    const char *arg)
{
	struct bx_error err;

	if (ch == 'a') {
		if (anchors_add(as, arg, &err) == -1)
			return cli_usage_error(cmd, "--anchor '%s': %s", arg,
			    err.msg);
		return CLI_OK;
	}
	if (anchors_load(as, arg, &err) == -1)
		return cli_fail("%s", err.msg);
	return CLI_OK;
}

int
cmd_audit_verify(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "anchor", required_argument, NULL, 'a' },
		{ "anchors", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct anchors as = { 0 };
	const char *home = NULL;
	int ch, r = CLI_OK;

	optind = 0;
	opterr = 0;
	while (r == CLI_OK &&
	    (ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'H':
			home = optarg;
			break;
		case 'a':
		case 'f':
			r = add_anchor(cmd, &as, ch, optarg);
			break;
		case 'h':
			r = cli_help(cmd, verify_help);
			anchors_free(&as);
			return r;
		default:
			r = cli_option_error(cmd, ch, argv);
			break;
		}
	}
	if (r == CLI_OK)
		r = options_operands(cmd, argc, argv, 0, "");
	if (r == CLI_OK)
		r = verify(home, &as);
	anchors_free(&as);
	return r;
}
