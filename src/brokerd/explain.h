/*
 * explain.h: `brokerd explain`, the owner's dry run of a decision.
 *
 *	brokerd explain --config PATH [--taint CLASS] [--now TIMESTAMP]
 *	    [--json] TOOL ARGUMENTS_JSON
 *
 * It loads the grants exactly as a decision does, decides, and prints the
 * outcome, the matched grant, and for every candidate why it was or was not
 * chosen; --json prints the same as one JSON object. It writes no file and
 * needs no running brokerd. This is a command, not a library function: it
 * is the top of the program for this subcommand and prints to the streams
 * it is given.
 */
#ifndef BROKERD_EXPLAIN_H
#define BROKERD_EXPLAIN_H

#include <stdio.h>

/* Exit statuses: explained (whatever the outcome), failed, usage. */
#define EXPLAIN_EXIT_OK		0
#define EXPLAIN_EXIT_FAILED	1
#define EXPLAIN_EXIT_USAGE	2

#define EXPLAIN_USAGE	"brokerd explain [--config PATH] [--taint CLASS] " \
	"[--now TIMESTAMP] [--json] TOOL ARGUMENTS_JSON"

struct decision;
struct grant;
struct grants;
struct policy_candidate;

/*
 * The reasoning itself, shared with admin.sock's explain
 * (admin_explain.c): why candidate c (grant g) of decision d was or was
 * not chosen, in words ("matched", or "ruled out:" and every reason),
 * written to out without a newline.
 */
void	explain_why(FILE *out, const struct decision *d,
	    const struct policy_candidate *c, const struct grant *g);

/* The grant of set with that id, or NULL. */
const struct grant	*explain_find_grant(const struct grants *set,
			    const char *id);

/*
 * argv[0] is "explain"; the report goes to out, errors and usage to errs.
 * Returns the exit status.
 */
int	explain_main(int argc, char **argv, FILE *out, FILE *errs);

#endif
