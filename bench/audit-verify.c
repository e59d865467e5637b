/*
 * audit-verify.c: how fast bxctl audit verify is against the floor,
 * hashing every byte with sha256sum. Generates a valid log of 1,000,000
 * records over five daily files in a temporary home (decisions, approvals
 * and results in brokerd's proportions), then times, in the same run and
 * with the files in the page cache, `bxctl audit verify` and `sha256sum`
 * over the same files, best of three each, and prints both and the ratio
 * (the target is at most 3).
 *
 *	bench-audit-verify [RECORDS]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auditgen.h"
#include "timing.h"

#define RECORDS		1000000
#define RUNS		3

static void
die(const char *what)
{
	fprintf(stderr, "bench-audit-verify: %s\n", what);
	exit(1);
}

int
main(int argc, char **argv)
{
	char home[4096], out[4096 + 16];
	char *verify[] = { BXCTL_PATH, "audit", "verify", "--home", home, NULL };
	char *sum[AUDITGEN_DAYS + 2] = { "/usr/bin/sha256sum" };
	struct auditgen gen;
	double tv = 1e9, ts = 1e9, t;
	unsigned records = argc > 1 ? (unsigned)atoi(argv[1]) : RECORDS;
	char first[256] = "";
	FILE *fp;
	int i;

	auditgen_home("bench-audit", home, sizeof(home), records, &gen);
	for (i = 0; i < AUDITGEN_DAYS; i++)
		sum[i + 1] = gen.files[i];
	sum[AUDITGEN_DAYS + 1] = NULL;
	snprintf(out, sizeof(out), "%s/verify.out", home);
	/* A first pass of each warms the page cache; then best of RUNS. */
	bench_timed(sum, NULL, NULL);
	for (i = 0; i < RUNS; i++) {
		if ((t = bench_timed(verify, out, NULL)) < tv)
			tv = t;
		if ((t = bench_timed(sum, NULL, NULL)) < ts)
			ts = t;
	}
	if ((fp = fopen(out, "r")) == NULL || fgets(first, sizeof(first),
	    fp) == NULL || strncmp(first, "audit: ok, ", 11) != 0)
		die("bxctl audit verify did not say ok");
	fclose(fp);
	printf("audit verify benchmark: %u records, %d files, %.1f MB "
	    "(%.0f bytes a record)\n", records, AUDITGEN_DAYS,
	    (double)gen.bytes / 1e6, (double)gen.bytes / records);
	printf("  %s", first);
	printf("  bxctl audit verify: %.3f s  (%.2f M records/s, %.0f MB/s)\n",
	    tv, records / tv / 1e6, (double)gen.bytes / tv / 1e6);
	printf("  sha256sum:          %.3f s  (%.0f MB/s)\n", ts,
	    (double)gen.bytes / ts / 1e6);
	printf("  ratio verify / sha256sum: %.2f (target <= 3)\n", tv / ts);
	if (getenv("BENCH_KEEP") == NULL)
		bench_rmtree(home);
	else
		printf("  kept %s\n", home);
	return 0;
}
