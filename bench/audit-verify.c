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
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/audit_record.h"
#include "proto/sha256.h"

#define RECORDS		1000000
#define DAYS		5
#define T0		1758189600000LL	/* 2025-09-18T10:00:00.000Z */
#define DAY_MS		86400000LL
#define RUNS		3

struct gen {
	FILE		*fp;
	uint64_t	 seq;
	struct bx_hash	 prev;
	int64_t		 time;
	uint64_t	 bytes;
	char		 call[32];
	bool		 asked;		/* an ask waits for its approval */
	uint64_t	 ask;		/* its seq */
};

static void
die(const char *what)
{
	fprintf(stderr, "bench-audit-verify: %s\n", what);
	exit(1);
}

static void
emit(struct gen *g, const struct bx_audit_event *ev)
{
	struct bx_audit_record rec = { 0 };
	struct bx_error err;
	char *line;
	size_t len;

	rec.seq = g->seq++;
	rec.time = g->time;
	rec.prev = g->prev;
	rec.event = *ev;
	g->time += 61;
	if (bx_audit_record_encode(&rec, &line, &len, &err) == -1 ||
	    bx_sha256(line, len, &g->prev, &err) == -1)
		die(err.msg);
	line[len] = '\n';
	if (fwrite(line, 1, len + 1, g->fp) != len + 1)
		die("cannot write the log");
	g->bytes += len + 1;
	free(line);
}

/* One record in brokerd's mix: a decision, then its approval or result. */
static void
next_record(struct gen *g, unsigned i)
{
	static const char *args[] = {
		"{\"path\":\"/home/kyle/notes/2025/09/meeting-notes.md\"}",
		"{\"command\":\"make -C /home/kyle/src/boxmaker check\","
		    "\"cwd\":\"/home/kyle/src\"}",
		"{\"url\":\"https://docs.example.com/reference/api/v2\"}",
	};
	struct bx_audit_event ev = { 0 };

	snprintf(g->call, sizeof(g->call), "call_%u", i / 3);
	switch (i % 3) {
	case 0:
		ev.type = BX_AUDIT_DECISION;
		ev.decision.session = "chat-1758189600000";
		ev.decision.call = g->call;
		ev.decision.tool = "read_file";
		ev.decision.arguments = args[i % 9 / 3];
		ev.decision.outcome.kind = i % 30 == 0 ? BX_OUTCOME_ASK :
		    BX_OUTCOME_ALLOWED;
		ev.decision.grant = "notes-read";
		ev.decision.has_grant_sha256 = true;
		ev.decision.grant_sha256 = g->prev;
		ev.decision.taint = BX_CLASS_PRIVATE;
		if (ev.decision.outcome.kind == BX_OUTCOME_ASK) {
			g->asked = true;
			g->ask = g->seq;
		}
		break;
	case 1:
		if (g->asked) {
			ev.type = BX_AUDIT_APPROVAL;
			ev.approval.session = "chat-1758189600000";
			ev.approval.call = g->call;
			ev.approval.decision = g->ask;
			ev.approval.answer = BX_ANSWER_APPROVED;
			ev.approval.by = "bxctl";
			ev.approval.outcome.kind = BX_OUTCOME_ASK;
			g->asked = false;
			break;
		}
		/* FALLTHROUGH */
	default:
		ev.type = BX_AUDIT_RESULT;
		ev.result.session = "chat-1758189600000";
		ev.result.call = g->call;
		ev.result.decision = g->seq - 1;
		ev.result.status = BX_RESULT_STATUS_RESULT;
		ev.result.class = BX_CLASS_PRIVATE;
		ev.result.bytes = 4096 + i % 1000;
		ev.result.sha256 = g->prev;
		ev.result.taint_after = BX_CLASS_PRIVATE;
		break;
	}
	emit(g, &ev);
}

static uint64_t
generate(const char *home, unsigned records, char files[DAYS][4096])
{
	struct gen g = { 0 };
	char date[11];
	unsigned i, per_day = records / DAYS, day;

	g.time = T0;
	for (day = 0; day < DAYS; day++) {
		g.time = T0 + (int64_t)day * DAY_MS;
		bx_time_date(g.time, date);
		snprintf(files[day], sizeof(files[day]), "%s/audit/%s.jsonl",
		    home, date);
		if ((g.fp = fopen(files[day], "w")) == NULL)
			die("cannot create a log file");
		for (i = 0; i < per_day || (day == DAYS - 1 &&
		    day * per_day + i < records); i++)
			next_record(&g, day * per_day + i);
		if (fclose(g.fp) == EOF)
			die("cannot write the log");
	}
	return g.bytes;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs argv with stdout to out (NULL: /dev/null); returns seconds taken. */
static double
timed(char *const *argv, const char *out)
{
	double start = now_s();
	int status, fd;
	pid_t pid;

	if ((pid = fork()) == -1)
		die("fork failed");
	if (pid == 0) {
		fd = open(out != NULL ? out : "/dev/null",
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd == -1 || dup2(fd, 1) == -1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench-audit-verify: %s failed\n", argv[0]);
		exit(1);
	}
	return now_s() - start;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int
main(int argc, char **argv)
{
	char home[4096], dir[4096 + 8], files[DAYS][4096], out[4096 + 16];
	char *verify[] = { BXCTL_PATH, "audit", "verify", "--home", home, NULL };
	char *sum[DAYS + 2] = { "/usr/bin/sha256sum" };
	double tv = 1e9, ts = 1e9, t;
	unsigned records = argc > 1 ? (unsigned)atoi(argv[1]) : RECORDS;
	const char *tmp = getenv("TMPDIR");
	char first[256] = "";
	uint64_t bytes;
	FILE *fp;
	int i;

	snprintf(home, sizeof(home), "%s/bench-audit-XXXXXX",
	    tmp != NULL ? tmp : "/tmp");
	if (records < DAYS || mkdtemp(home) == NULL)
		die("cannot make a temporary home");
	snprintf(dir, sizeof(dir), "%s/audit", home);
	if (mkdir(dir, 0700) == -1)
		die("cannot make the audit directory");
	bytes = generate(home, records, files);
	for (i = 0; i < DAYS; i++)
		sum[i + 1] = files[i];
	sum[DAYS + 1] = NULL;
	snprintf(out, sizeof(out), "%s/verify.out", home);
	/* A first pass of each warms the page cache; then best of RUNS. */
	timed(sum, NULL);
	for (i = 0; i < RUNS; i++) {
		if ((t = timed(verify, out)) < tv)
			tv = t;
		if ((t = timed(sum, NULL)) < ts)
			ts = t;
	}
	if ((fp = fopen(out, "r")) == NULL || fgets(first, sizeof(first),
	    fp) == NULL || strncmp(first, "audit: ok, ", 11) != 0)
		die("bxctl audit verify did not say ok");
	fclose(fp);
	printf("audit verify benchmark: %u records, %d files, %.1f MB "
	    "(%.0f bytes a record)\n", records, DAYS, (double)bytes / 1e6,
	    (double)bytes / records);
	printf("  %s", first);
	printf("  bxctl audit verify: %.3f s  (%.2f M records/s, %.0f MB/s)\n",
	    tv, records / tv / 1e6, (double)bytes / tv / 1e6);
	printf("  sha256sum:          %.3f s  (%.0f MB/s)\n", ts,
	    (double)bytes / ts / 1e6);
	printf("  ratio verify / sha256sum: %.2f (target <= 3)\n", tv / ts);
	if (getenv("BENCH_KEEP") == NULL)
		nftw(home, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	else
		printf("  kept %s\n", home);
	return 0;
}
