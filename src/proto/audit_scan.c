/*
 * audit_scan.c: bx_audit_record_scan, the chain verifier's reader. A line
 * in the encoder's canonical form (fields in order, compact, strings as
 * jansson writes them) is checked byte by byte without allocating, which
 * is what lets bxctl audit verify keep up with sha256sum. Anything else,
 * or anything the fast path is unsure of, goes to the full decoder, so the
 * scan accepts exactly the lines bx_audit_record_decode accepts.
 */
#include <stdio.h>
#include <string.h>

#include "proto/audit_fast.h"
#include "proto/audit_record.h"
#include "proto/utf8.h"

struct cursor {
	const char	*p;
	const char	*end;
};

static bool
lit(struct cursor *c, const char *s, size_t n)
{
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
		return false;
	c->p += n;
	return true;
}

#define LIT(c, s)	lit((c), (s), sizeof(s) - 1)

/* A canonical integer: 0, or no leading zero; at most BX_AUDIT_U64_MAX. */
static bool
u64(struct cursor *c, uint64_t *ret)
{
	uint64_t v = 0;
	const char *start = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		if (v > (BX_AUDIT_U64_MAX - (uint64_t)(*c->p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*c->p - '0');
		c->p++;
	}
	if (c->p == start || (*start == '0' && c->p - start > 1))
		return false;
	*ret = v;
	return true;
}

static bool
upper_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'F');
}

/*
 * The length of the escape at p (a backslash) as the canonical encoder
 * writes it: a short escape, or \u00XX in upper-case hex for a control
 * character other than NUL; 0 for anything else.
 */
static size_t
escape_len(const unsigned char *p, const unsigned char *end)
{
	if (end - p < 2)
		return 0;
	if (p[1] != '\0' && strchr("\"\\bfnrt", p[1]) != NULL)
		return 2;
	if (p[1] != 'u' || end - p < 6 || p[2] != '0' || p[3] != '0' ||
	    (p[4] != '0' && p[4] != '1') || !upper_hex((char)p[5]) ||
	    (p[4] == '0' && p[5] == '0'))
		return 0;
	return 6;
}

/*
 * A string as jansson writes it: printable ASCII and valid UTF-8 raw, and
 * only the escapes \" \\ \b \f \n \r \t and \u00XX (01 to 1F). On success
 * *ret and *ret_len are the raw bytes between the quotes and *ret_plain says
 * whether there was no escape at all.
 */
static bool
str(struct cursor *c, const char **ret, size_t *ret_len, bool *ret_plain)
{
	const unsigned char *p = (const unsigned char *)c->p;
	const unsigned char *end = (const unsigned char *)c->end, *start;
	bool plain = true;
	size_t n;

	if (p == end || *p != '"')
		return false;
	start = ++p;
	for (;;) {
		while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' &&
		    *p != '\\')
			p++;
		if (p == end || *p < 0x20)
			return false;
		if (*p == '"')
			break;
		if (*p == '\\') {
			plain = false;
			n = escape_len(p, end);
		} else
			n = bx_utf8_len(p, (size_t)(end - p));
		if (n == 0)
			return false;
		p += n;
	}
	*ret = (const char *)start;
	*ret_len = (size_t)(p - start);
	*ret_plain = plain;
	c->p = (const char *)p + 1;
	return true;
}

/* A string with no escapes, exactly one of names; returns its index. */
static int
name(struct cursor *c, const char **names, int count)
{
	const char *s;
	size_t len;
	bool plain;
	int i;

	if (!str(c, &s, &len, &plain) || !plain)
		return -1;
	for (i = 0; i < count; i++)
		if (strlen(names[i]) == len && memcmp(s, names[i], len) == 0)
			return i;
	return -1;
}

static bool
hash(struct cursor *c, struct bx_hash *ret)
{
	static const signed char val[256] = {
		['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
		['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
		['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
		['f'] = 16,
	};
	const unsigned char *p = (const unsigned char *)c->p;
	int i, hi, lo;

	if (c->end - c->p < BX_HASH_HEX_LEN + 2 || p[0] != '"' ||
	    p[BX_HASH_HEX_LEN + 1] != '"')
		return false;
	for (i = 0; i < BX_HASH_LEN; i++) {
		hi = val[p[1 + 2 * i]];
		lo = val[p[2 + 2 * i]];
		if (hi == 0 || lo == 0)
			return false;
		ret->bytes[i] = (unsigned char)((hi - 1) << 4 | (lo - 1));
	}
	c->p += BX_HASH_HEX_LEN + 2;
	return true;
}

static bool
boolean(struct cursor *c, bool *ret)
{
	if (LIT(c, "true")) {
		*ret = true;
		return true;
	}
	*ret = false;
	return LIT(c, "false");
}

static bool
id_char(char ch, bool call)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
	    ch == '-' || (call && ((ch >= 'A' && ch <= 'Z') || ch == '_'));
}

/* A string, kept as a span of the line. */
static bool
span(struct cursor *c, struct bx_audit_span *ret)
{
	return str(c, &ret->s, &ret->len, &ret->plain);
}

/* An identifier (types.h): 1 to BX_ID_MAX characters of its set. */
static bool
id(struct cursor *c, bool call, struct bx_audit_span *ret)
{
	size_t i;

	if (!span(c, ret) || !ret->plain || ret->len == 0 ||
	    ret->len > BX_ID_MAX)
		return false;
	for (i = 0; i < ret->len; i++)
		if (!id_char(ret->s[i], call))
			return false;
	return true;
}

/* A string or null (a span with s NULL). */
static bool
opt_str(struct cursor *c, struct bx_audit_span *ret)
{
	if (LIT(c, "null")) {
		ret->s = NULL;
		return true;
	}
	return span(c, ret);
}

static bool
class(struct cursor *c, enum bx_class *ret)
{
	if (LIT(c, "\"public\""))
		*ret = BX_CLASS_PUBLIC;
	else if (LIT(c, "\"private\""))
		*ret = BX_CLASS_PRIVATE;
	else if (LIT(c, "\"secret\""))
		*ret = BX_CLASS_SECRET;
	else
		return false;
	return true;
}

static bool
session_call(struct cursor *c, struct bx_audit_fast *f)
{
	return LIT(c, ",\"session\":") && id(c, false, &f->session) &&
	    LIT(c, ",\"call\":") && id(c, true, &f->call);
}

/* {"outcome":"allowed"}, {"outcome":"ask"}, {"outcome":"denied","reason":R} */
static bool
outcome(struct cursor *c, struct bx_outcome *ret)
{
	const char *r;
	char buf[32];
	size_t len;
	bool plain;

	if (!LIT(c, ",\"outcome\":{\"outcome\":"))
		return false;
	ret->reason = 0;
	ret->kind = BX_OUTCOME_ALLOWED;
	if (LIT(c, "\"allowed\"}"))
		return true;
	ret->kind = BX_OUTCOME_ASK;
	if (LIT(c, "\"ask\"}"))
		return true;
	ret->kind = BX_OUTCOME_DENIED;
	if (!LIT(c, "\"denied\",\"reason\":"))
		return false;
	if (!str(c, &r, &len, &plain) || !plain || len >= sizeof(buf))
		return false;
	memcpy(buf, r, len);
	buf[len] = '\0';
	return bx_deny_parse(buf, &ret->reason, NULL) == 0 && LIT(c, "}");
}

static bool
decision(struct cursor *c, struct bx_audit_fast *f)
{
	struct bx_ev_decision *d = &f->rec.event.decision;

	if (!session_call(c, f) || !LIT(c, ",\"tool\":") ||
	    !span(c, &f->tool) || !LIT(c, ",\"arguments\":") ||
	    !span(c, &f->arguments) || !outcome(c, &d->outcome))
		return false;
	f->sum.ask = d->outcome.kind == BX_OUTCOME_ASK;
	f->grant.s = NULL;
	if (!LIT(c, ",\"grant\":") ||
	    !(LIT(c, "null") || id(c, false, &f->grant)))
		return false;
	d->has_grant_sha256 = false;
	if (!LIT(c, ",\"grant_sha256\":"))
		return false;
	if (!LIT(c, "null")) {
		if (!hash(c, &d->grant_sha256))
			return false;
		d->has_grant_sha256 = true;
	}
	return LIT(c, ",\"taint\":") && class(c, &d->taint) &&
	    LIT(c, ",\"untrusted\":") && boolean(c, &d->untrusted);
}

static bool
approval(struct cursor *c, struct bx_audit_fast *f)
{
	static const char *answers[] = { "approved", "refused", "expired" };
	struct bx_ev_approval *a = &f->rec.event.approval;
	int answer;

	if (!session_call(c, f) || !LIT(c, ",\"decision\":") ||
	    !u64(c, &a->decision) || !LIT(c, ",\"answer\":") ||
	    (answer = name(c, answers, 3)) < 0)
		return false;
	a->answer = (enum bx_answer)answer;
	f->sum.decision = a->decision;
	return LIT(c, ",\"by\":") && opt_str(c, &f->by) &&
	    LIT(c, ",\"post\":") && opt_str(c, &f->post) &&
	    LIT(c, ",\"reason\":") && opt_str(c, &f->reason) &&
	    outcome(c, &a->outcome);
}

static bool
result(struct cursor *c, struct bx_audit_fast *f)
{
	struct bx_ev_result *r = &f->rec.event.result;

	if (!session_call(c, f) || !LIT(c, ",\"decision\":") ||
	    !u64(c, &r->decision))
		return false;
	f->sum.decision = r->decision;
	if (LIT(c, ",\"status\":\"result\""))
		r->status = BX_RESULT_STATUS_RESULT;
	else if (LIT(c, ",\"status\":\"failed\""))
		r->status = BX_RESULT_STATUS_FAILED;
	else
		return false;
	return LIT(c, ",\"class\":") && class(c, &r->class) &&
	    LIT(c, ",\"untrusted\":") && boolean(c, &r->untrusted) &&
	    LIT(c, ",\"truncated\":") && boolean(c, &r->truncated) &&
	    LIT(c, ",\"bytes\":") && u64(c, &r->bytes) &&
	    LIT(c, ",\"sha256\":") && hash(c, &r->sha256) &&
	    LIT(c, ",\"taint_after\":") && class(c, &r->taint_after);
}

static bool
accepted_break(struct cursor *c, struct bx_audit_fast *f)
{
	struct bx_audit_summary *s = &f->sum;
	const char *p;
	size_t len;
	bool plain;

	if (!LIT(c, ",\"file\":") || !str(c, &p, &len, &plain) || !plain ||
	    len == 0 || len > BX_AUDIT_FILE_MAX || memchr(p, '/', len) != NULL)
		return false;
	memcpy(s->file, p, len);
	s->file[len] = '\0';
	return LIT(c, ",\"line\":") && u64(c, &s->line) &&
	    LIT(c, ",\"last_good\":") && hash(c, &s->last_good);
}

static bool
event(struct cursor *c, struct bx_audit_fast *f)
{
	struct bx_audit_summary *s = &f->sum;

	if (LIT(c, "\"decision\"")) {
		s->type = BX_AUDIT_DECISION;
		return decision(c, f);
	}
	if (LIT(c, "\"result\"")) {
		s->type = BX_AUDIT_RESULT;
		return result(c, f);
	}
	if (LIT(c, "\"approval\"")) {
		s->type = BX_AUDIT_APPROVAL;
		return approval(c, f);
	}
	if (LIT(c, "\"recovery\"")) {
		s->type = BX_AUDIT_RECOVERY;
		return LIT(c, ",\"torn_bytes\":") && u64(c, &s->torn_bytes) &&
		    LIT(c, ",\"torn_sha256\":") && hash(c, &s->torn_sha256);
	}
	if (LIT(c, "\"accepted_break\"")) {
		s->type = BX_AUDIT_ACCEPTED_BREAK;
		return accepted_break(c, f);
	}
	return false;
}

static bool
fast(const char *line, size_t len, struct bx_audit_fast *f)
{
	struct bx_audit_summary *s = &f->sum;
	struct cursor c = { line, line + len };
	char tbuf[BX_TIME_LEN + 1];

	if (!LIT(&c, "{\"seq\":") || !u64(&c, &s->seq) ||
	    !LIT(&c, ",\"time\":\"") || c.end - c.p < BX_TIME_LEN)
		return false;
	memcpy(tbuf, c.p, BX_TIME_LEN);
	tbuf[BX_TIME_LEN] = '\0';
	c.p += BX_TIME_LEN;
	if (bx_time_parse(tbuf, &s->time, NULL) == -1)
		return false;
	return LIT(&c, "\",\"prev\":") && hash(&c, &s->prev) &&
	    LIT(&c, ",\"event\":{\"type\":") && event(&c, f) &&
	    LIT(&c, "}}") && c.p == c.end;
}

void
bx_audit_record_summarize(const struct bx_audit_record *rec,
    struct bx_audit_summary *s)
{
	const struct bx_audit_event *e = &rec->event;

	memset(s, 0, sizeof(*s));
	s->seq = rec->seq;
	s->time = rec->time;
	s->prev = rec->prev;
	s->type = e->type;
	switch (e->type) {
	case BX_AUDIT_DECISION:
		s->ask = e->decision.outcome.kind == BX_OUTCOME_ASK;
		break;
	case BX_AUDIT_APPROVAL:
		s->decision = e->approval.decision;
		break;
	case BX_AUDIT_RESULT:
		s->decision = e->result.decision;
		break;
	case BX_AUDIT_RECOVERY:
		s->torn_bytes = e->recovery.torn_bytes;
		s->torn_sha256 = e->recovery.torn_sha256;
		break;
	default:
		snprintf(s->file, sizeof(s->file), "%s",
		    e->accepted_break.file);
		s->line = e->accepted_break.line;
		s->last_good = e->accepted_break.last_good;
		break;
	}
}

int
bx_audit_scan_full(const char *line, size_t len, struct bx_audit_fast *ret)
{
	/* The decoder's limit holds here too, or the two would disagree. */
	if (len > BX_AUDIT_LINE_MAX)
		return -1;
	memset(&ret->sum, 0, sizeof(ret->sum));
	return fast(line, len, ret) ? 0 : -1;
}

int
bx_audit_record_scan_fast(const char *line, size_t len,
    struct bx_audit_summary *ret)
{
	struct bx_audit_fast f;

	if (bx_audit_scan_full(line, len, &f) == -1)
		return -1;
	*ret = f.sum;
	return 0;
}

int
bx_audit_record_scan(const char *line, size_t len,
    struct bx_audit_summary *ret, struct bx_error *err)
{
	struct bx_audit_summary s;
	struct bx_audit_record rec;

	if (bx_audit_record_scan_fast(line, len, ret) == 0)
		return 0;
	if (bx_audit_record_decode(line, len, &rec, err) == -1)
		return -1;
	bx_audit_record_summarize(&rec, &s);
	bx_audit_record_clear(&rec);
	*ret = s;
	return 0;
}
