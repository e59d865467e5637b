/*
 * redact-fuzzer.c: libFuzzer harness for the redactor (src/proto/redact.c),
 * which reads a server's bytes and must leave none of a secret's forms in
 * what the model sees (spec 2.5). The harness builds a secret and a
 * response that embeds its forms in every listed encoding among arbitrary
 * bytes, redacts it, and checks the result with encoders, a decoder and a
 * search of its own, written apart from the code under test.
 *
 * The input: 8 bytes of settings (the secret's kind, whether and where the
 * output limit cuts, and how the response's last occurrence is cut
 * short), then two pieces (fuzz.h), the value and basic's user (each byte
 * mapped to printable ASCII, no space at either end), then segments to the
 * end: an op byte, and either a piece of raw text or an encoding of one of
 * the forms (as it is, hex in chosen cases, base64 or base64url at an
 * alignment with or without padding, percent-encoding, JSON escapes, or
 * both, byte by byte as a seed chooses).
 *
 * What must hold, or the harness aborts:
 * - bx_redact succeeds, or fails only to withhold a response its marker
 *   keeps recreating the value in;
 * - the output is at most the limit;
 * - no form survives, raw or after decoding the output's percent and JSON
 *   escapes, as it is, in hex of any case, or as a base64 or base64url
 *   core at any alignment (the characters that no neighbouring byte
 *   changes, found here by encoding between 0x00 and between 0xff fillers);
 * - a response cut short after 8 or more bytes of an occurrence's encoding
 *   (past base64's filler characters) loses them: after the separator byte
 *   put before that cut occurrence, at most those filler characters stay;
 * - the output under a limit is a prefix of the output without one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/redact.h"
#include "fuzz.h"

#define FUZZ_INPUT_MAX		65536
/* The response the harness builds stops growing past this. */
#define RESPONSE_MAX		(256 * 1024)
#define VALUE_MAX		4096
#define USER_MAX		64
/* Neither printable nor an escape: no occurrence reaches across it. */
#define SEP			'\x01'

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

static void
put(struct buf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		check((b->p = realloc(b->p, b->cap)) != NULL);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
putc_(struct buf *b, char c)
{
	put(b, &c, 1);
}

/* xorshift32: the per-byte choices of an encoding, from a seed. */
static uint32_t
next_choice(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static const char upper_hex[] = "0123456789ABCDEF";
static const char lower_hex[] = "0123456789abcdef";

/* Two hex digits of c, each in the case the seed picks (mode 2). */
static void
put_hex(struct buf *b, unsigned char c, int mode, uint32_t *seed)
{
	int i;

	for (i = 0; i < 2; i++) {
		unsigned d = i == 0 ? c >> 4 : c & 0xf;
		int up = mode == 2 ? (int)(next_choice(seed) & 1) : mode;

		putc_(b, up ? upper_hex[d] : lower_hex[d]);
	}
}

/* base64 by a bit accumulator, as RFC 4648 describes it. */
static void
put_base64(struct buf *b, const unsigned char *p, size_t n, int url, int pad)
{
	const char *abc = url ?
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" :
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t acc = 0;
	int bits = 0;
	size_t i, chars = 0;

	for (i = 0; i < n; i++) {
		acc = acc << 8 | p[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			putc_(b, abc[(acc >> bits) & 0x3f]);
			chars++;
		}
	}
	if (bits > 0) {
		putc_(b, abc[(acc << (6 - bits)) & 0x3f]);
		chars++;
	}
	while (pad && chars % 4 != 0) {
		putc_(b, '=');
		chars++;
	}
}

/*
 * One form encoded as op says; the seed picks what each byte becomes.
 * *ret_filler is how many characters at the start come from base64's
 * filler bytes alone.
 */
static void
encode(struct buf *b, const char *form, int op, uint32_t seed,
    size_t *ret_filler)
{
	size_t n = strlen(form), i, align;
	unsigned char *tmp;
	uint32_t r;

	*ret_filler = 0;
	seed |= 1;
	switch (op) {
	case 1:
		put(b, form, n);
		break;
	case 2:
	case 7:
		for (i = 0; i < n; i++)
			put_hex(b, (unsigned char)form[i], op == 7 ? 1 :
			    (int)(seed % 3), &seed);
		break;
	case 3:
		/* Filler bytes before, two bytes after, from the seed. */
		align = seed % 3;
		check((tmp = malloc(n + 4)) != NULL);
		for (i = 0; i < align; i++)
			tmp[i] = (unsigned char)(seed >> (8 + 8 * i));
		memcpy(tmp + align, form, n);
		i = (seed >> 4) % 3;
		tmp[align + n] = (unsigned char)(seed >> 24);
		tmp[align + n + 1] = (unsigned char)(seed >> 16);
		put_base64(b, tmp, align + n + i, (seed >> 2) & 1,
		    (seed >> 3) & 1);
		free(tmp);
		/* Chars whose six bits are all filler's. */
		*ret_filler = align * 8 / 6;
		break;
	default:
		/* 4: percent, 5: JSON, 6: either, byte by byte. */
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)form[i];
			int how = (int)((r = next_choice(&seed)) % 4);

			if (op == 4 || (op == 6 && (r & 16)))
				how = how == 0 ? 0 : 1;
			else
				how = how == 0 ? 0 : how + 1;
			if (how == 0) {
				putc_(b, (char)c);
			} else if (how == 1) {
				putc_(b, '%');
				put_hex(b, c, 2, &seed);
			} else if (how == 4 && (c == '/' || c == '"' ||
			    c == '\\')) {
				putc_(b, '\\');
				putc_(b, (char)c);
			} else {
				put(b, "\\u00", 4);
				put_hex(b, c, how == 2 ? 0 : 2, &seed);
			}
		}
		break;
	}
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The text with its escapes decoded as spec 2.5 lists them: %XX, and the
 * JSON escapes of ASCII (\uXXXX below 0x80, and the short ones), once,
 * left to right.
 */
static void
decode(const char *s, size_t n, struct buf *out)
{
	static const char shorts[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	const char *sh;
	size_t i = 0;
	int v;

	while (i < n) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			putc_(out, (char)(hexval(s[i + 1]) * 16 +
			    hexval(s[i + 2])));
			i += 3;
			continue;
		}
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == 'u' && i + 5 < n &&
		    s[i + 2] == '0' && s[i + 3] == '0' &&
		    (v = hexval(s[i + 4])) >= 0 && v < 8 &&
		    hexval(s[i + 5]) >= 0) {
			putc_(out, (char)(v * 16 + hexval(s[i + 5])));
			i += 6;
			continue;
		}
		if (s[i] == '\\' && i + 1 < n && s[i + 1] != '\0' &&
		    (sh = strchr(shorts, s[i + 1])) != NULL &&
		    (sh - shorts) % 2 == 0) {
			putc_(out, sh[1]);
			i += 2;
			continue;
		}
		putc_(out, s[i++]);
	}
}

static void
lower(struct buf *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		if (b->p[i] >= 'A' && b->p[i] <= 'Z')
			b->p[i] = (char)(b->p[i] + 32);
}

/* What must not survive of the forms: as they are, hex, base64 cores. */
struct oracle {
	struct buf	plain[3 + 3 * 6];
	size_t		nplain;
	struct buf	hex[3];
	size_t		nhex;
};

/* The chars of base64(filler + form + filler) no filler changes. */
static void
add_core(struct oracle *o, const char *form, size_t align, int url)
{
	struct buf lo = { 0 }, hi = { 0 }, *core = &o->plain[o->nplain++];
	size_t n = strlen(form), i, s, e;
	unsigned char tmp[3 + VALUE_MAX * 2];

	for (i = 0; i < 2; i++) {
		memset(tmp, i == 0 ? 0x00 : 0xff, sizeof(tmp));
		memcpy(tmp + align, form, n);
		put_base64(i == 0 ? &lo : &hi, tmp, align + n + 2, url, 0);
	}
	for (s = 0; lo.p[s] != hi.p[s]; s++)
		;
	for (e = s; e < lo.len && lo.p[e] == hi.p[e]; e++)
		;
	memset(core, 0, sizeof(*core));
	put(core, lo.p + s, e - s);
	free(lo.p);
	free(hi.p);
}

static void
oracle_add(struct oracle *o, const char *form)
{
	struct buf *h = &o->hex[o->nhex++];
	uint32_t seed = 1;
	size_t i, align;

	memset(h, 0, sizeof(*h));
	for (i = 0; form[i] != '\0'; i++)
		put_hex(h, (unsigned char)form[i], 0, &seed);
	memset(&o->plain[o->nplain], 0, sizeof(o->plain[0]));
	put(&o->plain[o->nplain++], form, strlen(form));
	for (align = 0; align < 3; align++) {
		add_core(o, form, align, 0);
		add_core(o, form, align, 1);
	}
}

static void
oracle_free(struct oracle *o)
{
	size_t i;

	for (i = 0; i < o->nplain; i++)
		free(o->plain[i].p);
	for (i = 0; i < o->nhex; i++)
		free(o->hex[i].p);
}

/* Whether any form survives in s, raw or decoded. */
static int
survives(const struct oracle *o, const char *s, size_t n)
{
	struct buf views[2] = { { 0 }, { 0 } }, folded;
	size_t v, i;
	int found = 0;

	/* Both allocated even when empty: memmem takes no NULL. */
	put(&views[0], s, n);
	put(&views[1], "", 0);
	decode(s, n, &views[1]);
	for (v = 0; v < 2 && !found; v++) {
		for (i = 0; i < o->nplain && !found; i++)
			found = memmem(views[v].p, views[v].len,
			    o->plain[i].p, o->plain[i].len) != NULL;
		folded = views[v];
		lower(&folded);
		for (i = 0; i < o->nhex && !found; i++)
			found = memmem(folded.p, folded.len, o->hex[i].p,
			    o->hex[i].len) != NULL;
	}
	free(views[0].p);
	free(views[1].p);
	return found;
}

/* The piece as printable ASCII, no space at either end. */
static void
printable(const char *p, size_t n, struct buf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (i == 0 || i == n - 1)
			putc_(out, (char)(0x21 + c % 94));
		else
			putc_(out, (char)(0x20 + c % 95));
	}
}

/* bx_redact, aborting on any failure but the withheld response. */
static int
redact(const struct bx_redactor *rd, const struct buf *in, size_t limit,
    char **out, size_t *len)
{
	struct bx_error err;
	size_t removed;

	if (bx_redact(rd, in->p, in->len, limit, out, len, &removed,
	    &err) == 0) {
		check(*len <= limit);
		check((*out)[*len] == '\0');
		return 0;
	}
	check(strstr(err.msg, "withheld") != NULL);
	return -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct buf value = { 0 }, user = { 0 }, header = { 0 }, basic = { 0 };
	struct buf resp = { 0 }, userpass = { 0 }, cut = { 0 }, ended = { 0 };
	struct oracle o;
	const char *forms[3], *p;
	struct bx_redactor *rd;
	struct bx_error err;
	uint8_t flags, tail_op, op;
	size_t limit, tail_k, n, nforms = 0, filler, olen, flen, i, mark;
	uint32_t tail_seed;
	char *out, *full;
	int ambiguous = 0;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	flags = fuzz_byte(&in);
	limit = fuzz_byte(&in);
	limit |= (size_t)fuzz_byte(&in) << 8;
	tail_op = fuzz_byte(&in);
	tail_k = fuzz_byte(&in);
	tail_k |= (size_t)fuzz_byte(&in) << 8;
	tail_seed = fuzz_byte(&in);
	tail_seed |= (uint32_t)fuzz_byte(&in) << 8;
	p = fuzz_piece(&in, &n);
	printable(p, n < VALUE_MAX ? n : VALUE_MAX, &value);
	p = fuzz_piece(&in, &n);
	printable(p, n < USER_MAX ? n : USER_MAX, &user);
	if (value.len < BX_REDACT_FORM_MIN)
		goto out;

	/* The forms the caller passes for the kind (flags & 3). */
	forms[nforms++] = value.p;
	switch (flags & 3) {
	case 2:
		put(&userpass, user.p != NULL ? user.p : "", user.len);
		putc_(&userpass, ':');
		put(&userpass, value.p, value.len);
		put_base64(&basic, (const unsigned char *)userpass.p,
		    userpass.len, 0, 1);
		put(&header, "Basic ", 6);
		put(&header, basic.p, basic.len);
		forms[nforms++] = header.p;
		forms[nforms++] = basic.p;
		break;
	case 1:
		break;
	default:
		put(&header, "Bearer ", 7);
		put(&header, value.p, value.len);
		forms[nforms++] = header.p;
		break;
	}
	check((rd = bx_redactor_new("k", forms, nforms, &err)) != NULL);
	memset(&o, 0, sizeof(o));
	for (i = 0; i < nforms; i++)
		oracle_add(&o, forms[i]);

	put(&resp, "", 0);
	while (in.fi_len > 0 && resp.len < RESPONSE_MAX) {
		op = fuzz_byte(&in);
		if ((op & 7) == 0) {
			p = fuzz_piece(&in, &n);
			put(&resp, p, n);
			continue;
		}
		tail_seed = tail_seed * 2654435761u + op;
		encode(&resp, forms[(op >> 3) % nforms], op & 7,
		    tail_seed ^ (uint32_t)fuzz_byte(&in) << 16, &filler);
	}
	/* A last occurrence cut short, after a separator (flags & 8). */
	mark = SIZE_MAX;
	if (flags & 8) {
		encode(&cut, forms[(tail_op >> 3) % nforms],
		    (tail_op & 7) == 0 ? 1 : tail_op & 7, tail_seed, &filler);
		tail_k %= cut.len;
		/*
		 * A form with '%' or '\\' of its own, percent- or JSON-encoded
		 * in part: its plain escape-like bytes decode as escapes, a
		 * limit docs/decisions.md names.
		 */
		p = forms[(tail_op >> 3) % nforms];
		ambiguous = (tail_op & 7) >= 4 && (tail_op & 7) <= 6 &&
		    strpbrk(p, "%\\") != NULL;
		putc_(&resp, SEP);
		mark = resp.len;
		put(&resp, cut.p, tail_k);
		cut.len = tail_k;
	}

	if (redact(rd, &resp, SIZE_MAX, &full, &flen) == 0) {
		check(!survives(&o, full, flen));
		/*
		 * At least 8 bytes past the filler, and no whole occurrence:
		 * nothing but the filler stays after the separator.
		 */
		if (mark != SIZE_MAX && tail_k >= filler + BX_REDACT_CUT_MIN &&
		    !survives(&o, cut.p, cut.len) && !ambiguous) {
			const char *sep = memrchr(full, SEP, flen);

			check(sep != NULL);
			check((size_t)(full + flen - sep - 1) <= filler);
		}
		free(full);
	}
	/*
	 * Under a limit (flags & 4): a prefix of the whole output of the
	 * response with a separator after it, which no start at the end
	 * shortens.
	 */
	if ((flags & 4) && redact(rd, &resp, limit, &out, &olen) == 0) {
		check(!survives(&o, out, olen));
		put(&ended, resp.p, resp.len);
		putc_(&ended, SEP);
		if (redact(rd, &ended, SIZE_MAX, &full, &flen) == 0) {
			check(olen <= flen && memcmp(out, full, olen) == 0);
			free(full);
		}
		free(ended.p);
		free(out);
	}
	oracle_free(&o);
	bx_redactor_free(rd);
	free(resp.p);
	free(cut.p);
out:
	free(value.p);
	free(user.p);
	free(header.p);
	free(basic.p);
	free(userpass.p);
	return 0;
}
