/*
 * decide.c: how long one decision takes, grant files read from disk
 * included, for grant directories of 10, 100 and 1,000 files. Prints the
 * median over many runs; the in-memory figure beside it (the same decision
 * against a set already loaded) shows what the reading costs.
 *
 *	bench-decide [RUNS]	(default 201 runs per size)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "brokerd/policy.h"
#include "timing.h"

#define DEFAULT_RUNS	201

static const char *tools[] = { "read_file", "write_file", "shell",
    "http_fetch" };

/* n grant files, a quarter per tool, each with its own directory or host. */
static int
write_grants(const char *dir, int n)
{
	char path[512];
	const char *tool;
	FILE *f;
	int i;

	for (i = 0; i < n; i++) {
		tool = tools[i % 4];
		snprintf(path, sizeof(path), "%s/grant-%04d.toml", dir, i);
		if ((f = fopen(path, "we")) == NULL)
			return -1;
		fprintf(f, "tool = \"%s\"\nmode = \"%s\"\nmax_taint = "
		    "\"secret\"\nresult_class = \"private\"\nexpires = "
		    "\"2099-01-01T00:00:00.000Z\"\n\n[constraints]\n", tool,
		    i % 3 == 0 ? "auto" : i % 3 == 1 ? "ask" : "deny");
		if (i % 4 == 3)
			fprintf(f, "hosts = [\"h%d.example.com\", "
			    "\"*.h%d.example.org\"]\n", i, i);
		else
			fprintf(f, "paths = [\"/data/g%d\", \"/srv/g%d/a\"]\n",
			    i, i);
		if (fclose(f) != 0)
			return -1;
	}
	return 0;
}

static int
run(int n, int runs)
{
	char dir[] = "/tmp/bx-bench-XXXXXX";
	struct policy_request r = { "read_file",
	    "{\"path\":\"/data/g0/notes/today.md\"}", 0, BX_CLASS_PRIVATE,
	    false, 0 };
	int64_t *disk, *mem, t;
	double disk_us, mem_us, p99_us;
	struct grants *set = NULL;
	struct decision *d;
	struct bx_error err;
	int i, rc = -1;

	r.pr_arguments_len = strlen(r.pr_arguments);
	r.pr_now = (int64_t)time(NULL) * 1000;
	disk = calloc((size_t)runs, sizeof(*disk));
	mem = calloc((size_t)runs, sizeof(*mem));
	if (disk == NULL || mem == NULL || mkdtemp(dir) == NULL ||
	    write_grants(dir, n) == -1) {
		fprintf(stderr, "bench-decide: setup: %s\n", strerror(errno));
		goto out;
	}
	for (i = 0; i < runs; i++) {
		t = bench_now_ns();
		if (policy_decide(dir, &r, &d, NULL, &err) == -1)
			goto fail;
		disk[i] = bench_now_ns() - t;
		if (decision_outcome(d).kind != BX_OUTCOME_ALLOWED) {
			snprintf(err.msg, sizeof(err.msg), "unexpected outcome");
			decision_free(d);
			goto fail;
		}
		decision_free(d);
	}
	if (grants_load(dir, &set, &err) == -1)
		goto fail;
	for (i = 0; i < runs; i++) {
		t = bench_now_ns();
		if (policy_decide_grants(set, &r, &d, &err) == -1)
			goto fail;
		mem[i] = bench_now_ns() - t;
		decision_free(d);
	}
	bench_percentiles(disk, (size_t)runs, &disk_us, &p99_us);
	bench_percentiles(mem, (size_t)runs, &mem_us, &p99_us);
	printf("decide: %5d grants: median %9.1f us per decision, reading "
	    "the files included (%d runs; %.1f us with the set in memory)\n",
	    n, disk_us, runs, mem_us);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "bench-decide: %s\n", err.msg);
out:
	grants_free(set);
	bench_rmtree(dir);
	free(disk);
	free(mem);
	return rc;
}

int
main(int argc, char **argv)
{
	static const int sizes[] = { 10, 100, 1000 };
	int runs = argc > 1 ? atoi(argv[1]) : DEFAULT_RUNS;
	size_t i;

	if (runs < 1) {
		fprintf(stderr, "usage: bench-decide [RUNS]\n");
		return 2;
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (run(sizes[i], runs) == -1)
			return 1;
	return 0;
}
