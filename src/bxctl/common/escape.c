/*
 * escape.c: the one place bxctl turns untrusted text into printable data
 * (the rules are in escape.h). One step decodes one UTF-8 character, or
 * finds one invalid byte, and produces its printed form; the writers are
 * loops over that step.
 */
#include <sys/types.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/common/escape.h"

/* The longest printed form of one step: "\u202e" and the NUL. */
#define STEP_MAX	7

bool
escape_needed(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return true;
	if (cp == 0x061c || cp == 0xfeff)
		return true;
	if ((cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 || cp == 0x2029)
		return true;
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064))
		return true;
	return cp >= 0x2066 && cp <= 0x2069;
}

/*
 * Decodes one UTF-8 character at s (len > 0 bytes). Returns its length in
 * bytes and sets *ret_cp, or returns 0 if s does not start a valid,
 * complete, shortest-form sequence of a code point that is not a surrogate
 * and at most U+10FFFF.
 */
static size_t
utf8_decode(const unsigned char *s, size_t len, uint32_t *ret_cp)
{
	uint32_t cp, min;
	size_t n, i;

	if (s[0] < 0x80) {
		*ret_cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*ret_cp = cp;
	return n;
}

/*
 * The printed form of the character or invalid byte at s (len > 0) into
 * out (STEP_MAX bytes, NUL-terminated). Returns the input bytes consumed;
 * *ret_outlen is the printed length.
 */
static size_t
escape_step(const unsigned char *s, size_t len, char *out, size_t *ret_outlen)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t cp;
	size_t n;

	n = utf8_decode(s, len, &cp);
	if (n == 0) {
		out[0] = '\\';
		out[1] = 'x';
		out[2] = hex[s[0] >> 4];
		out[3] = hex[s[0] & 0x0f];
		out[4] = '\0';
		*ret_outlen = 4;
		return 1;
	}
	if (escape_needed(cp)) {
		out[0] = '\\';
		out[1] = 'u';
		out[2] = hex[(cp >> 12) & 0x0f];
		out[3] = hex[(cp >> 8) & 0x0f];
		out[4] = hex[(cp >> 4) & 0x0f];
		out[5] = hex[cp & 0x0f];
		out[6] = '\0';
		*ret_outlen = 6;
		return n;
	}
	memcpy(out, s, n);
	out[n] = '\0';
	*ret_outlen = n;
	return n;
}

bool
escape_valid_utf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t i, n;

	for (i = 0; i < len; i += n)
		if ((n = utf8_decode(p + i, len - i, &cp)) == 0)
			return false;
	return true;
}

/* How many bytes from p on are printable ASCII, which pass as they are. */
static size_t
plain_run(const unsigned char *p, size_t len)
{
	size_t i = 0;

	while (i < len && p[i] >= 0x20 && p[i] < 0x7f)
		i++;
	return i;
}

/*
 * Whether s[0..len) (len > 0) starts a UTF-8 sequence longer than len: a
 * lead byte and only continuation bytes after it. Whether it turns out
 * valid is for the bytes that complete it to say.
 */
static bool
utf8_incomplete(const unsigned char *s, size_t len)
{
	size_t n, i;

	if ((s[0] & 0xe0) == 0xc0)
		n = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4;
	else
		return false;
	if (len >= n)
		return false;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return false;
	return true;
}

/*
 * Writes the escaped form of p[0..len) to fp; with hold, stops before an
 * incomplete sequence at the end. *ret_done is the bytes written.
 */
static int
write_some(FILE *fp, const unsigned char *p, size_t len, bool hold,
    size_t *ret_done)
{
	char out[STEP_MAX];
	size_t i = 0, n, outlen;

	while (i < len) {
		/* Most text is a run of printable ASCII: one write for it. */
		if ((n = plain_run(p + i, len - i)) > 0) {
			if (fwrite(p + i, 1, n, fp) != n)
				return -1;
			i += n;
			continue;
		}
		if (hold && utf8_incomplete(p + i, len - i))
			break;
		n = escape_step(p + i, len - i, out, &outlen);
		if (fwrite(out, 1, outlen, fp) != outlen)
			return -1;
		i += n;
	}
	*ret_done = i;
	return 0;
}

int
escape_write(FILE *fp, const char *s, size_t len)
{
	size_t done;

	return write_some(fp, (const unsigned char *)s, len, false, &done);
}

void
escape_stream_init(struct escape_stream *es)
{
	es->es_nheld = 0;
}

/*
 * The held bytes and the first few of p: the steps that start in the
 * held bytes. Returns how many bytes of p they took, or len when the
 * sequence is still incomplete (then held again); -1 if a write failed.
 */
static ssize_t
write_held(struct escape_stream *es, FILE *fp, const unsigned char *p,
    size_t len)
{
	unsigned char tmp[sizeof(es->es_held) + 4];
	char out[STEP_MAX];
	size_t k = len < 4 ? len : 4, total, i = 0, n, outlen;

	memcpy(tmp, es->es_held, es->es_nheld);
	memcpy(tmp + es->es_nheld, p, k);
	total = es->es_nheld + k;
	while (i < es->es_nheld) {
		/* Only when all of p is in tmp can it still be incomplete. */
		if (utf8_incomplete(tmp + i, total - i)) {
			memmove(es->es_held, tmp + i, total - i);
			es->es_nheld = total - i;
			return (ssize_t)len;
		}
		n = escape_step(tmp + i, total - i, out, &outlen);
		if (fwrite(out, 1, outlen, fp) != outlen)
			return -1;
		i += n;
	}
	n = es->es_nheld;
	es->es_nheld = 0;
	return (ssize_t)(i - n);
}

int
escape_stream_write(struct escape_stream *es, FILE *fp, const char *s,
    size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, done;
	ssize_t r;

	if (len == 0)
		return 0;
	if (es->es_nheld > 0) {
		if ((r = write_held(es, fp, p, len)) == -1)
			return -1;
		used = (size_t)r;
	}
	if (write_some(fp, p + used, len - used, true, &done) == -1)
		return -1;
	used += done;
	/* What is left is one incomplete sequence, at most 3 bytes. */
	memcpy(es->es_held + es->es_nheld, p + used, len - used);
	es->es_nheld += len - used;
	return 0;
}

int
escape_stream_end(struct escape_stream *es, FILE *fp)
{
	size_t done;
	int r;

	r = write_some(fp, es->es_held, es->es_nheld, false, &done);
	es->es_nheld = 0;
	return r;
}

int
escape_puts(FILE *fp, const char *s)
{
	return escape_write(fp, s, strlen(s));
}

void
escape_problem(FILE *fp, const char *file, bool has_line, uint64_t line,
    const char *problem)
{
	escape_puts(fp, file);
	if (has_line)
		fprintf(fp, ":%" PRIu64, line);
	fputs(": ", fp);
	escape_puts(fp, problem);
	fputc('\n', fp);
}

void
escape_written(FILE *fp, const char *done, const char *name, const char *dir)
{
	fprintf(fp, "%s %s (", done, name);
	escape_puts(fp, dir);
	fprintf(fp, "/%s.toml)\n", name);
}

char *
escape_string(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char out[STEP_MAX], *buf;
	size_t i = 0, o = 0, n, outlen;

	if (len > (SIZE_MAX - 1) / ESCAPE_GROWTH) {
		errno = ENOMEM;
		return NULL;
	}
	if ((buf = malloc(len * ESCAPE_GROWTH + 1)) == NULL)
		return NULL;
	while (i < len) {
		if ((n = plain_run(p + i, len - i)) > 0) {
			memcpy(buf + o, p + i, n);
			o += n;
			i += n;
			continue;
		}
		n = escape_step(p + i, len - i, out, &outlen);
		memcpy(buf + o, out, outlen);
		o += outlen;
		i += n;
	}
	buf[o] = '\0';
	return buf;
}

char *
escape_buf(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	char out[STEP_MAX];
	size_t len = strlen(s), i, o, n, outlen, total = 0;

	for (i = 0; i < len; i += n) {
		n = escape_step(p + i, len - i, out, &outlen);
		total += outlen;
	}
	/* When all of it does not fit, keep room for "..." after each step. */
	for (i = 0, o = 0; i < len; i += n, o += outlen) {
		n = escape_step(p + i, len - i, out, &outlen);
		if (total >= size && o + outlen + 3 + 1 > size) {
			memcpy(buf + o, "...", 4);
			return buf;
		}
		memcpy(buf + o, out, outlen);
	}
	buf[o] = '\0';
	return buf;
}
