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
boolean(struct cursor *c)
{
	return LIT(c, "true") || LIT(c, "false");
}

static bool
id_char(char ch, bool call)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
	    ch == '-' || (call && ((ch >= 'A' && ch <= 'Z') || ch == '_'));
}

/* An identifier (types.h): 1 to BX_ID_MAX characters of its set. */
static bool
id(struct cursor *c, bool call)
{
	const char *s;
	size_t len, i;
	bool plain;

	if (!str(c, &s, &len, &plain) || !plain || len == 0 ||
	    len > BX_ID_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!id_char(s[i], call))
			return false;
	return true;
}

static bool
any_str(struct cursor *c)
{
	const char *s;
	size_t len;
	bool plain;

	return str(c, &s, &len, &plain);
}

static bool
opt_str(struct cursor *c)
{
	return LIT(c, "null") || any_str(c);
}

static bool
class(struct cursor *c)
{
	return LIT(c, "\"public\"") || LIT(c, "\"private\"") ||
	    LIT(c, "\"secret\"");
}

static bool
session_call(struct cursor *c)
{
	return LIT(c, ",\"session\":") && id(c, false) &&
	    LIT(c, ",\"call\":") && id(c, true);
}

/* {"outcome":"allowed"}, {"outcome":"ask"}, {"outcome":"denied","reason":R} */
static bool
outcome(struct cursor *c, bool *ret_ask)
{
	const char *r;
	char buf[32];
	enum bx_deny reason;
	size_t len;
	bool plain;

	if (!LIT(c, ",\"outcome\":{\"outcome\":"))
		return false;
	*ret_ask = false;
	if (LIT(c, "\"allowed\"}"))
		return true;
	if (LIT(c, "\"ask\"}")) {
		*ret_ask = true;
		return true;
	}
	if (!LIT(c, "\"denied\",\"reason\":"))
		return false;
	if (!str(c, &r, &len, &plain) || !plain || len >= sizeof(buf))
		return false;
	memcpy(buf, r, len);
	buf[len] = '\0';
	return bx_deny_parse(buf, &reason, NULL) == 0 && LIT(c, "}");
}

static bool
decision(struct cursor *c, struct bx_audit_summary *s)
{
	struct bx_hash h;

	if (!session_call(c) || !LIT(c, ",\"tool\":") || !any_str(c) ||
	    !LIT(c, ",\"arguments\":") || !any_str(c) || !outcome(c, &s->ask))
		return false;
	if (!LIT(c, ",\"grant\":") || !(LIT(c, "null") || id(c, false)))
		return false;
	if (!LIT(c, ",\"grant_sha256\":") || !(LIT(c, "null") || hash(c, &h)))
		return false;
	return LIT(c, ",\"taint\":") && class(c) &&
	    LIT(c, ",\"untrusted\":") && boolean(c);
}

static bool
approval(struct cursor *c, struct bx_audit_summary *s)
{
	static const char *answers[] = { "approved", "refused", "expired" };
	bool ask;

	return session_call(c) && LIT(c, ",\"decision\":") &&
	    u64(c, &s->decision) && LIT(c, ",\"answer\":") &&
	    name(c, answers, 3) >= 0 && LIT(c, ",\"by\":") && opt_str(c) &&
	    LIT(c, ",\"post\":") && opt_str(c) &&
	    LIT(c, ",\"reason\":") && opt_str(c) && outcome(c, &ask);
}

static bool
result(struct cursor *c, struct bx_audit_summary *s)
{
	struct bx_hash h;
	uint64_t bytes;

	return session_call(c) && LIT(c, ",\"decision\":") &&
	    u64(c, &s->decision) &&
	    (LIT(c, ",\"status\":\"result\"") ||
	    LIT(c, ",\"status\":\"failed\"")) &&
	    LIT(c, ",\"class\":") && class(c) &&
	    LIT(c, ",\"untrusted\":") && boolean(c) &&
	    LIT(c, ",\"truncated\":") && boolean(c) &&
	    LIT(c, ",\"bytes\":") && u64(c, &bytes) &&
	    LIT(c, ",\"sha256\":") && hash(c, &h) &&
	    LIT(c, ",\"taint_after\":") && class(c);
}

static bool
accepted_break(struct cursor *c, struct bx_audit_summary *s)
{
	const char *f;
	size_t len;
	bool plain;

	if (!LIT(c, ",\"file\":") || !str(c, &f, &len, &plain) || !plain ||
	    len == 0 || len > BX_AUDIT_FILE_MAX || memchr(f, '/', len) != NULL)
		return false;
	memcpy(s->file, f, len);
	s->file[len] = '\0';
	return LIT(c, ",\"line\":") && u64(c, &s->line) &&
	    LIT(c, ",\"last_good\":") && hash(c, &s->last_good);
}

static bool
event(struct cursor *c, struct bx_audit_summary *s)
{
	if (LIT(c, "\"decision\"")) {
		s->type = BX_AUDIT_DECISION;
		return decision(c, s);
	}
	if (LIT(c, "\"result\"")) {
		s->type = BX_AUDIT_RESULT;
		return result(c, s);
	}
	if (LIT(c, "\"approval\"")) {
		s->type = BX_AUDIT_APPROVAL;
		return approval(c, s);
	}
	if (LIT(c, "\"recovery\"")) {
		s->type = BX_AUDIT_RECOVERY;
		return LIT(c, ",\"torn_bytes\":") && u64(c, &s->torn_bytes) &&
		    LIT(c, ",\"torn_sha256\":") && hash(c, &s->torn_sha256);
	}
	if (LIT(c, "\"accepted_break\"")) {
		s->type = BX_AUDIT_ACCEPTED_BREAK;
		return accepted_break(c, s);
	}
	return false;
}

static bool
fast(const char *line, size_t len, struct bx_audit_summary *s)
{
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
	    LIT(&c, ",\"event\":{\"type\":") && event(&c, s) &&
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
bx_audit_record_scan_fast(const char *line, size_t len,
    struct bx_audit_summary *ret)
{
	struct bx_audit_summary s;

	/* The decoder's limit holds here too, or the two would disagree. */
	if (len > BX_AUDIT_LINE_MAX)
		return -1;
	memset(&s, 0, sizeof(s));
	if (!fast(line, len, &s))
		return -1;
	*ret = s;
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
