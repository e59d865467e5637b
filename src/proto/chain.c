/*
 * chain.c: the ChainVerifier (chain.h). Each line is held back until the
 * next one arrives, because only the next line can say whether it was torn
 * and recovered; the held line is then committed, recovered or failed.
 * After a failure, lines are only scanned for the AcceptedBreak that clears
 * it, and for the values such a break must carry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/audit_fast.h"
#include "proto/audit_record.h"
#include "proto/chain.h"
#include "proto/chain_asks.h"
#include "proto/sha256.h"

/* The line held back until the next one (or the end) says what it was. */
struct held {
	bool			 present;
	struct bx_location	 at;
	struct bx_hash		 hash;
	const char		*bytes;		/* the caller's, for on_record */
	uint64_t		 len;
	bool			 has_newline;
	bool			 file_after;	/* a new file began after it */
	bool			 parsed;
	bool			 ok;		/* parsed and chains */
	struct bx_audit_fast	 fast;		/* fast.sum when parsed */
	bool			 canonical;	/* and all of fast */
	char			 what[BX_ERROR_MAX];
};

struct bx_chain {
	bool			 broken;	/* out of memory or hashing */
	struct bx_error		 err;
	char			**files;
	size_t			 nfiles, capfiles;
	uint64_t		 lineno;

	bool			 has_head;
	struct bx_hash		 head;
	uint64_t		 next_seq;
	bool			 has_time;
	int64_t			 last_time;
	uint64_t		 records;
	bool			 has_last;	/* hash of the last resolved line */
	struct bx_hash		 last;
	const char		*last_file;	/* and the file it is in */
	bool			 resumed;	/* from a line not fed here */

	struct held		 slots[2];	/* the held line and the next */
	struct held		*held;

	bool			 failed;
	struct bx_chain_failure	 failure;
	struct bx_hash		 fail_last_good;
	uint64_t		 fail_seq;
	bool			 has_max;
	uint64_t		 max_seq;

	struct bx_location	*recoveries;
	size_t			 nrecoveries, caprecoveries;
	struct bx_chain_break	*breaks;
	size_t			 nbreaks, capbreaks;
	struct bx_location	*clock;
	size_t			 nclock, capclock;
	struct chain_asks	 asks;
	bx_chain_record_fn	 on_record;
	void			*on_record_ctx;
};

static const struct bx_hash zero_hash;

static void
oom(struct bx_chain *c)
{
	if (!c->broken)
		bx_fail(&c->err, "audit verify: out of memory");
	c->broken = true;
}

static void
push_location(struct bx_chain *c, struct bx_location **arr, size_t *n,
    size_t *cap, const struct bx_location *at)
{
	if (!chain_grow(arr, cap, *n, sizeof(**arr))) {
		oom(c);
		return;
	}
	(*arr)[(*n)++] = *at;
}

static struct bx_chain *
chain_alloc(void)
{
	struct bx_chain *c;

	if ((c = calloc(1, sizeof(*c))) != NULL)
		c->held = &c->slots[0];
	return c;
}

struct bx_chain *
bx_chain_new(void)
{
	return chain_alloc();
}

struct bx_chain *
bx_chain_resume(uint64_t next_seq, const struct bx_hash *prev)
{
	struct bx_chain *c;

	if ((c = chain_alloc()) == NULL)
		return NULL;
	c->has_head = true;
	c->head = *prev;
	c->next_seq = next_seq;
	c->has_last = true;
	c->last = *prev;
	c->resumed = true;
	return c;
}

void
bx_chain_file(struct bx_chain *c, const char *name)
{
	char *copy;

	if (c->held->present)
		c->held->file_after = true;
	c->lineno = 0;
	if ((copy = strdup(name)) == NULL ||
	    !chain_grow(&c->files, &c->capfiles, c->nfiles,
	    sizeof(*c->files))) {
		free(copy);
		oom(c);
		return;
	}
	c->files[c->nfiles++] = copy;
}

void
bx_chain_on_record(struct bx_chain *c, bx_chain_record_fn fn, void *ctx)
{
	c->on_record = fn;
	c->on_record_ctx = ctx;
}

static const char *
current_file(struct bx_chain *c)
{
	if (c->nfiles == 0)
		bx_chain_file(c, "(input)");
	return c->nfiles > 0 ? c->files[c->nfiles - 1] : "(input)";
}

static void
fail(struct bx_chain *c, const struct held *h)
{
	c->failed = true;
	c->failure.at = h->at;
	memcpy(c->failure.what, h->what, sizeof(c->failure.what));
	c->fail_last_good = c->has_head ? c->head : zero_hash;
	/* After a resume, head is the resume point: the last good line. */
	c->fail_seq = c->next_seq;
	c->has_max = false;
}

/* The seq an AcceptedBreak for the current failure must carry. */
static uint64_t
break_seq(const struct bx_chain *c)
{
	if (c->has_max && c->max_seq + 1 > c->fail_seq)
		return c->max_seq + 1;
	return c->fail_seq;
}

static void
commit(struct bx_chain *c, const struct held *h)
{
	const struct bx_audit_summary *s = &h->fast.sum;
	struct bx_chain_record rec;

	c->records++;
	c->has_head = true;
	c->head = h->hash;
	c->next_seq = s->seq + 1;
	if (c->has_time && s->time < c->last_time)
		push_location(c, &c->clock, &c->nclock, &c->capclock, &h->at);
	c->has_time = true;
	c->last_time = s->time;
	if (s->type == BX_AUDIT_DECISION && s->ask) {
		if (!chain_asks_add(&c->asks, s->seq))
			oom(c);
	} else if (s->type == BX_AUDIT_APPROVAL)
		chain_asks_remove(&c->asks, s->decision);
	if (c->on_record != NULL) {
		rec.at = h->at;
		rec.sum = s;
		rec.fast = h->canonical ? &h->fast : NULL;
		rec.hash = h->hash;
		rec.bytes = h->bytes;
		rec.len = h->len;
		c->on_record(c->on_record_ctx, &rec);
	}
}

/* Whether rec, a Recovery, describes h exactly and chains from before it. */
static bool
recovers(const struct bx_chain *c, const struct held *h,
    const struct bx_audit_summary *rec)
{
	return rec->type == BX_AUDIT_RECOVERY && h->has_newline &&
	    !h->file_after && rec->torn_bytes == h->len &&
	    bx_hash_equal(&rec->torn_sha256, &h->hash) &&
	    bx_hash_equal(&rec->prev, c->has_head ? &c->head : &zero_hash) &&
	    rec->seq == c->next_seq;
}

/* Whether h, after a failure, is the AcceptedBreak that clears it. */
static bool
accepts(const struct bx_chain *c, const struct held *h)
{
	const struct bx_audit_summary *s = &h->fast.sum;

	return h->parsed && s->type == BX_AUDIT_ACCEPTED_BREAK &&
	    h->has_newline && strcmp(s->file, c->failure.at.file) == 0 &&
	    s->line == c->failure.at.line &&
	    bx_hash_equal(&s->last_good, &c->fail_last_good) &&
	    bx_hash_equal(&s->prev, c->has_last ? &c->last : &zero_hash) &&
	    s->seq == break_seq(c);
}

static void
accept_break(struct bx_chain *c, const struct held *h)
{
	struct bx_chain_break b = { .at = h->at, .accepted = c->failure.at };

	if (!chain_grow(&c->breaks, &c->capbreaks, c->nbreaks, sizeof(b)))
		oom(c);
	else
		c->breaks[c->nbreaks++] = b;
	c->failed = false;
	c->has_time = false;
	commit(c, h);
}

/* Settles the held line now that next (NULL at the end) is known. */
static void
resolve(struct bx_chain *c, const struct bx_audit_summary *next)
{
	struct held *h = c->held;

	if (!h->present)
		return;
	h->present = false;
	if (c->failed) {
		if (accepts(c, h)) {
			accept_break(c, h);
		} else if (h->parsed && (!c->has_max || h->fast.sum.seq > c->max_seq)) {
			c->has_max = true;
			c->max_seq = h->fast.sum.seq;
		}
	} else if (next != NULL && recovers(c, h, next)) {
		push_location(c, &c->recoveries, &c->nrecoveries,
		    &c->caprecoveries, &h->at);
	} else if (h->ok) {
		commit(c, h);
	} else {
		fail(c, h);
		if (h->parsed) {
			c->has_max = true;
			c->max_seq = h->fast.sum.seq;
		}
	}
	c->has_last = true;
	c->last = h->hash;
	c->last_file = h->at.file;
}

/* Checks a parsed line against the chain as it stands. */
static void
check(struct bx_chain *c, struct held *h, bool first_in_file)
{
	const struct bx_hash *want = c->has_head ? &c->head : &zero_hash;
	const char *prevfile = c->last_file;
	const struct bx_audit_summary *s = &h->fast.sum;
	const char *after = "";
	char ctx[BX_AUDIT_FILE_MAX + 64] = "";

	if (first_in_file && prevfile != NULL && prevfile != h->at.file) {
		snprintf(ctx, sizeof(ctx), "the file does not chain from the "
		    "last line of %s: ", prevfile);
		after = ctx;
	} else if (first_in_file && prevfile == NULL && c->resumed) {
		after = "the file does not chain from the last line of the "
		    "file before it: ";
	}
	if (s->type == BX_AUDIT_ACCEPTED_BREAK) {
		snprintf(h->what, sizeof(h->what), "%san accepted break for "
		    "%s:%llu, but nothing failed there", after, s->file,
		    (unsigned long long)s->line);
	} else if (s->seq != c->next_seq) {
		snprintf(h->what, sizeof(h->what), "%sseq %llu where %llu was "
		    "expected", after, (unsigned long long)s->seq,
		    (unsigned long long)c->next_seq);
	} else if (!bx_hash_equal(&s->prev, want)) {
		snprintf(h->what, sizeof(h->what), "%sprev is not the hash of "
		    "the line before", after);
	} else {
		h->ok = true;
	}
}

/* "not an audit record: why", without the decoder's own "audit record: ". */
static void
not_a_record(struct held *h, const struct bx_error *err)
{
	static const char prefix[] = "audit record: ";
	const char *why = err->msg;

	if (strncmp(why, prefix, sizeof(prefix) - 1) == 0)
		why += sizeof(prefix) - 1;
	snprintf(h->what, sizeof(h->what), "not an audit record: %s", why);
}

void
bx_chain_line(struct bx_chain *c, const char *bytes, size_t len,
    bool last_in_file, bool has_newline)
{
	struct held *h = c->held == &c->slots[0] ? &c->slots[1] : &c->slots[0];
	struct bx_error err;
	bool first;

	/* Field by field: clearing the whole slot costs more than hashing. */
	h->present = true;
	h->at.file = current_file(c);
	first = c->lineno == 0;
	h->at.line = ++c->lineno;
	h->bytes = bytes;
	h->len = len;
	h->has_newline = has_newline;
	h->file_after = h->parsed = h->ok = false;
	h->what[0] = '\0';
	if (bx_sha256(bytes, len, &h->hash, &err) == -1) {
		if (!c->broken)
			c->err = err;
		c->broken = true;
		return;
	}
	/* The whole canonical line at once, for the record hook's reader. */
	h->canonical = bx_audit_scan_full(bytes, len, &h->fast) == 0;
	if (h->canonical ||
	    bx_audit_record_scan(bytes, len, &h->fast.sum, &err) == 0)
		h->parsed = true;
	else
		not_a_record(h, &err);
	if (c->held->present && !c->held->has_newline && !c->failed) {
		/* A line without its newline is only allowed at the very end. */
		c->held->ok = false;
		snprintf(c->held->what, sizeof(c->held->what), "the line has "
		    "no newline at its end, but more lines follow");
	}
	resolve(c, h->parsed ? &h->fast.sum : NULL);
	if (!has_newline && !last_in_file)
		snprintf(h->what, sizeof(h->what), "the line has no newline at "
		    "its end, but more lines follow");
	else if (!c->failed && h->parsed)
		check(c, h, first);
	c->held = h;
}

/*
 * A held line that would fail could still be recovered: the writer puts
 * the "\n" that ends a torn line and the Recovery record after it in one
 * write, which a reader may see half done. Only a later file (recovers()
 * never looks across one) or final settles it before the next line.
 */
bool
bx_chain_settle(struct bx_chain *c, bool final)
{
	struct held *h = c->held;

	if (!h->present || (!h->has_newline && !h->file_after))
		return h->present;
	if (!h->has_newline && !c->failed) {
		h->ok = false;
		snprintf(h->what, sizeof(h->what), "the line has no newline at "
		    "its end, but a later file follows");
	}
	if (final || c->failed || h->ok || h->file_after)
		resolve(c, NULL);
	return h->present;
}

const struct bx_chain_failure *
bx_chain_failed(const struct bx_chain *c)
{
	return c->failed ? &c->failure : NULL;
}

static void
report_torn(struct bx_chain *c, struct bx_chain_report *r)
{
	struct held *h = c->held;

	h->present = false;
	r->torn = true;
	r->torn_tail = h->at;
	r->torn_bytes = h->len;
	r->torn_sha256 = h->hash;
	if (c->failed) {
		r->torn_prev = c->has_last ? c->last : zero_hash;
		r->torn_seq = break_seq(c);
	} else {
		r->torn_prev = c->has_head ? c->head : zero_hash;
		r->torn_seq = c->next_seq;
	}
}

int
bx_chain_finish(struct bx_chain *c, struct bx_chain_report **ret,
    struct bx_error *err)
{
	struct bx_chain_report *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		oom(c);
	if (c->broken) {
		*err = c->err;
		free(r);
		bx_chain_free(c);
		return -1;
	}
	if (c->held->present && !c->held->has_newline && !c->held->file_after)
		report_torn(c, r);
	else if (c->held->present && !c->held->has_newline && !c->failed) {
		c->held->ok = false;
		snprintf(c->held->what, sizeof(c->held->what), "the line has no "
		    "newline at its end, but a later file follows");
	}
	resolve(c, NULL);
	r->records = c->records;
	r->has_head = c->has_head;
	r->head = c->head;
	r->next_seq = c->next_seq;
	r->failed = c->failed;
	if (c->failed) {
		r->failure = c->failure;
		r->break_last_good = c->fail_last_good;
		r->break_prev = c->has_last ? c->last : zero_hash;
		r->break_seq = break_seq(c);
	}
	r->recoveries = c->recoveries;
	r->nrecoveries = c->nrecoveries;
	r->breaks = c->breaks;
	r->nbreaks = c->nbreaks;
	r->clock_warnings = c->clock;
	r->nclock_warnings = c->nclock;
	r->abandoned = chain_asks_take(&c->asks, &r->nabandoned);
	r->files = c->files;
	r->nfiles = c->nfiles;
	c->recoveries = NULL;
	c->breaks = NULL;
	c->clock = NULL;
	c->files = NULL;
	c->nfiles = 0;
	bx_chain_free(c);
	*ret = r;
	return 0;
}

void
bx_chain_free(struct bx_chain *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	free(c->recoveries);
	free(c->breaks);
	free(c->clock);
	chain_asks_free(&c->asks);
	free(c);
}

void
bx_chain_report_free(struct bx_chain_report *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->files);
	free(r->recoveries);
	free(r->breaks);
	free(r->abandoned);
	free(r->clock_warnings);
	free(r);
}
