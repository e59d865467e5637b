/*
 * audit-verify.c: `bxctl audit verify` (see audit-verify.h). Each file is
 * mapped whole and every line is hashed where it lies, as it is, so the
 * verifier goes about as fast as reading and hashing the bytes.
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

#include "bxctl/audit-verify.h"
#include "bxctl/escape.h"
#include "bxctl/options.h"
#include "proto/audit_files.h"
#include "proto/chain.h"
#include "proto/defaults.h"

static const char verify_help[] =
    "Reads every audit file in HOME/audit in name order, checks the hash\n"
    "chain, and prints \"audit: ok, N records, head HEX\" with a line for\n"
    "each recovery, accepted break, abandoned approval and clock warning;\n"
    "or the first failure as FILE:LINE: WHAT, with exit status 1.\n"
    "brokerd need not be running.\n"
    "\n"
    "  --home PATH  the Boxmaker home (default $BOXMAKER_HOME, else\n"
    "               /var/lib/boxmaker for root and\n"
    "               ~/.local/share/boxmaker for anyone else)\n"
    "  --help       this text\n";

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

/* Feeds every file to c; on failure prints why and returns CLI_FAIL. */
static int
feed_all(struct bx_chain *c, const char *dir)
{
	struct bx_error err;
	const char *buf;
	char **names;
	size_t i, n, len;
	int dirfd, rv = CLI_FAIL;

	if ((dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return cli_fail("cannot open %s: %s", dir, strerror(errno));
	if (bx_audit_list(dirfd, &names, &n, &err) == -1) {
		close(dirfd);
		return cli_fail("%s: %s", dir, err.msg);
	}
	for (i = 0; i < n; i++) {
		if (bx_audit_map(dirfd, names[i], &buf, &len, &err) == -1) {
			cli_fail("%s", err.msg);
			goto out;
		}
		bx_audit_feed(c, names[i], buf, len);
		bx_audit_unmap(buf, len);
	}
	rv = CLI_OK;
out:
	bx_audit_names_free(names, n);
	close(dirfd);
	return rv;
}

static int
verify(const char *home)
{
	struct bx_chain_report *r;
	struct bx_error err;
	struct bx_chain *c;
	char dir[PATH_MAX];
	int rv;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/audit", home) >= sizeof(dir))
		return cli_fail("the home path is too long");
	if ((c = bx_chain_new()) == NULL)
		return cli_fail("out of memory");
	if ((rv = feed_all(c, dir)) != CLI_OK) {
		bx_chain_free(c);
		return rv;
	}
	if (bx_chain_finish(c, &r, &err) == -1)
		return cli_fail("%s", err.msg);
	rv = print_report(r);
	bx_chain_report_free(r);
	if (fflush(stdout) == EOF)
		return cli_fail("cannot write the report: %s", strerror(errno));
	return rv;
}

int
cmd_audit_verify(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bx_defaults defaults;
	struct bx_error err;
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
			return cli_help(cmd, verify_help);
		default:
			return cli_option_error(cmd, ch, argv);
		}
	}
	if ((r = options_operands(cmd, argc, argv, 0, "")) != CLI_OK)
		return r;
	if (home != NULL)
		return verify(home);
	if (bx_defaults_get(&defaults, &err) == -1)
		return cli_fail("%s", err.msg);
	return verify(defaults.d_home);
}
