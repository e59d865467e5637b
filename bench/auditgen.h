/*
 * auditgen.h: a valid audit log for the benchmarks that read one
 * (bench-audit-verify, bench-log): N records over AUDITGEN_DAYS daily
 * files in <home>/audit, in brokerd's proportions of calls. Of every ten
 * calls seven are allowed (a Decision and its Result), two denied (a
 * Decision), and one asks (a Decision, its Approval and its Result), in
 * three sessions, with three kinds of arguments.
 *
 * Nothing is allocated that outlives the call; failures end the program
 * (a benchmark has nothing to go on with).
 */
#ifndef BENCH_AUDITGEN_H
#define BENCH_AUDITGEN_H

#include <stddef.h>
#include <stdint.h>

#define AUDITGEN_DAYS	5

struct auditgen {
	uint64_t	 bytes;				/* all files */
	uint64_t	 calls;
	char		 files[AUDITGEN_DAYS][4096];	/* their paths */
};

/* Writes records records (at least AUDITGEN_DAYS) into home/audit. */
void	auditgen_write(const char *home, unsigned records, struct auditgen *);

/*
 * A new home under $TMPDIR (or /tmp), named <name>-XXXXXX, into home (size
 * bytes), with records records written into its audit/.
 */
void	auditgen_home(const char *name, char *home, size_t size,
	    unsigned records, struct auditgen *);

#endif
