/*
 * audit_read.c: bx_audit_record_read, a whole record from a line as fast as
 * the chain verifier scans it, for readers of many records (bxctl log,
 * brokerd's sessions). A canonical line's strings are unescaped into one
 * block; any other line goes to jansson's decoder, so both accept exactly
 * the lines bx_audit_record_decode accepts and give the same record.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/audit_fast.h"
#include "proto/audit_record.h"

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	return ch - 'A' + 10;
}

/*
 * Unescapes sp into *out (the scanner let through only \" \\ \b \f \n \r
 * \t and \u00XX for 01 to 1F), NUL-terminates it, and moves *out past it.
 * Returns the string, or NULL for a null field.
 */
static const char *
unescape(const struct bx_audit_span *sp, char **out)
{
	static const char from[] = "\"\\bfnrt", to[] = "\"\\\b\f\n\r\t";
	const char *p = sp->s, *end, *start = *out;
	char *o = *out;

	if (p == NULL)
		return NULL;
	end = p + sp->len;
	if (sp->plain) {
		memcpy(o, p, sp->len);
		o += sp->len;
	}
	while (!sp->plain && p < end) {
		if (*p != '\\') {
			*o++ = *p++;
		} else if (p[1] == 'u') {
			*o++ = (char)(hexval(p[4]) << 4 | hexval(p[5]));
			p += 6;
		} else {
			*o++ = to[strchr(from, p[1]) - from];
			p += 2;
		}
	}
	*o++ = '\0';
	*out = o;
	return start;
}

/* The record of a canonical line, its strings in one new block. */
static int
from_fast(const struct bx_audit_fast *f, size_t len,
    struct bx_audit_record *ret, struct bx_error *err)
{
	struct bx_audit_record r = f->rec;
	struct bx_audit_event *e = &r.event;
	char *o;

	/* Unescaped strings are never longer; eight NULs at most. */
	if ((r.storage = o = malloc(len + 8)) == NULL)
		return bx_fail(err, "audit record: out of memory");
	r.seq = f->sum.seq;
	r.time = f->sum.time;
	r.prev = f->sum.prev;
	e->type = f->sum.type;
	switch (e->type) {
	case BX_AUDIT_DECISION:
		e->decision.session = unescape(&f->session, &o);
		e->decision.call = unescape(&f->call, &o);
		e->decision.tool = unescape(&f->tool, &o);
		e->decision.arguments = unescape(&f->arguments, &o);
		e->decision.grant = unescape(&f->grant, &o);
		break;
	case BX_AUDIT_APPROVAL:
		e->approval.session = unescape(&f->session, &o);
		e->approval.call = unescape(&f->call, &o);
		e->approval.by = unescape(&f->by, &o);
		e->approval.post = unescape(&f->post, &o);
		e->approval.reason = unescape(&f->reason, &o);
		break;
	case BX_AUDIT_RESULT:
		e->result.session = unescape(&f->session, &o);
		e->result.call = unescape(&f->call, &o);
		break;
	case BX_AUDIT_RECOVERY:
		e->recovery.torn_bytes = f->sum.torn_bytes;
		e->recovery.torn_sha256 = f->sum.torn_sha256;
		break;
	default:
		memcpy(o, f->sum.file, strlen(f->sum.file) + 1);
		e->accepted_break.file = o;
		e->accepted_break.line = f->sum.line;
		e->accepted_break.last_good = f->sum.last_good;
		break;
	}
	*ret = r;
	return 0;
}

int
bx_audit_record_from_scan(const char *line, size_t len,
    const struct bx_audit_fast *f, struct bx_audit_record *ret,
    struct bx_error *err)
{
	if (f != NULL)
		return from_fast(f, len, ret, err);
	return bx_audit_record_decode(line, len, ret, err);
}

int
bx_audit_record_read(const char *line, size_t len,
    struct bx_audit_record *ret, struct bx_error *err)
{
	struct bx_audit_fast f;

	if (bx_audit_scan_full(line, len, &f) == 0)
		return from_fast(&f, len, ret, err);
	return bx_audit_record_decode(line, len, ret, err);
}
