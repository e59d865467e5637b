/*
 * auditgen.c: a valid audit log of any size for the benchmarks
 * (auditgen.h). Each record is encoded by the real encoder and chained by
 * the real hash, so whatever reads it reads what brokerd writes.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auditgen.h"
#include "proto/audit_record.h"
#include "proto/sha256.h"

#define T0		1758189600000LL	/* 2025-09-18T10:00:00.000Z */
#define DAY_MS		86400000LL

struct gen {
	FILE		*fp;
	uint64_t	 seq;
	struct bx_hash	 prev;
	int64_t		 time;
	uint64_t	 bytes;
	uint64_t	 calls;
	char		 call[32];
	char		 session[32];
	int		 step;		/* records of this call so far */
	enum bx_outcome_kind kind;	/* this call's decision */
	uint64_t	 decision;	/* its seq */
};

static void
die(const char *what)
{
	fprintf(stderr, "auditgen: %s\n", what);
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

static void
decision(struct gen *g)
{
	static const char *args[] = {
		"{\"path\":\"/home/kyle/notes/2025/09/meeting-notes.md\"}",
		"{\"command\":\"make -C /home/kyle/src/boxmaker check\","
		    "\"cwd\":\"/home/kyle/src\"}",
		"{\"url\":\"https://docs.example.com/reference/api/v2\"}",
	};
	static const char *tools[] = { "read_file", "shell", "http_fetch" };
	struct bx_audit_event ev = { .type = BX_AUDIT_DECISION };
	unsigned n = (unsigned)g->calls;

	snprintf(g->call, sizeof(g->call), "call_%u", n % 40);
	snprintf(g->session, sizeof(g->session), "chat-17581896%05u",
	    n / 40 % 3);
	g->kind = n % 10 == 9 ? BX_OUTCOME_ASK : n % 10 >= 7 ?
	    BX_OUTCOME_DENIED : BX_OUTCOME_ALLOWED;
	g->decision = g->seq;
	ev.decision.session = g->session;
	ev.decision.call = g->call;
	ev.decision.tool = tools[n % 3];
	ev.decision.arguments = args[n % 3];
	ev.decision.outcome.kind = g->kind;
	ev.decision.outcome.reason = BX_DENY_NO_GRANT;
	if (g->kind != BX_OUTCOME_DENIED) {
		ev.decision.grant = "notes-read";
		ev.decision.has_grant_sha256 = true;
		ev.decision.grant_sha256 = g->prev;
	}
	ev.decision.taint = BX_CLASS_PRIVATE;
	emit(g, &ev);
}

static void
approval(struct gen *g)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_APPROVAL };

	ev.approval.session = g->session;
	ev.approval.call = g->call;
	ev.approval.decision = g->decision;
	ev.approval.answer = BX_ANSWER_APPROVED;
	ev.approval.by = "bxctl";
	ev.approval.outcome.kind = BX_OUTCOME_ASK;
	emit(g, &ev);
}

static void
result(struct gen *g)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_RESULT };

	ev.result.session = g->session;
	ev.result.call = g->call;
	ev.result.decision = g->decision;
	ev.result.status = BX_RESULT_STATUS_RESULT;
	ev.result.class = BX_CLASS_PRIVATE;
	ev.result.bytes = 4096 + g->seq % 1000;
	ev.result.sha256 = g->prev;
	ev.result.taint_after = BX_CLASS_PRIVATE;
	emit(g, &ev);
}

/* The next record: the current call's next one, or a new call. */
static void
next_record(struct gen *g)
{
	int records = g->kind == BX_OUTCOME_ASK ? 3 :
	    g->kind == BX_OUTCOME_DENIED ? 1 : 2;

	if (g->step == 0 || g->step == records) {
		decision(g);
		g->calls++;
		g->step = 1;
	} else if (g->kind == BX_OUTCOME_ASK && g->step == 1) {
		approval(g);
		g->step++;
	} else {
		result(g);
		g->step++;
	}
}

void
auditgen_write(const char *home, unsigned records, struct auditgen *out)
{
	struct gen g = { 0 };
	char date[11];
	unsigned i, per_day = records / AUDITGEN_DAYS, day, n = 0;

	if (records < AUDITGEN_DAYS)
		die("too few records");
	for (day = 0; day < AUDITGEN_DAYS; day++) {
		g.time = T0 + (int64_t)day * DAY_MS;
		bx_time_date(g.time, date);
		snprintf(out->files[day], sizeof(out->files[day]),
		    "%s/audit/%s.jsonl", home, date);
		if ((g.fp = fopen(out->files[day], "w")) == NULL)
			die("cannot create a log file");
		for (i = 0; i < per_day || (day == AUDITGEN_DAYS - 1 &&
		    n < records); i++, n++)
			next_record(&g);
		if (fclose(g.fp) == EOF)
			die("cannot write the log");
	}
	out->bytes = g.bytes;
	out->calls = g.calls;
}

void
auditgen_home(const char *name, char *home, size_t size, unsigned records,
    struct auditgen *out)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096 + 8];

	snprintf(home, size, "%s/%s-XXXXXX", tmp != NULL ? tmp : "/tmp", name);
	if (records < AUDITGEN_DAYS || mkdtemp(home) == NULL)
		die("cannot make a temporary home");
	snprintf(dir, sizeof(dir), "%s/audit", home);
	if (mkdir(dir, 0700) == -1)
		die("cannot make the audit directory");
	auditgen_write(home, records, out);
}
