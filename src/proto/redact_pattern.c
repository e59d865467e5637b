/*
 * redact_pattern.c: the patterns of a secret's forms and their search
 * (see redact_pattern.h).
 */
#include <stdlib.h>
#include <string.h>

#include "proto/base64.h"
#include "proto/redact_pattern.h"
#include "proto/wipe.h"

/* A byte of the text as the pattern compares it. */
static unsigned char
fold(const struct redact_pattern *p, unsigned char c)
{
	if (p->rp_fold && c >= 'A' && c <= 'Z')
		return (unsigned char)(c - 'A' + 'a');
	return c;
}

/*
 * Every buffer of a pattern is made from a secret's value (its borders
 * too say how it repeats): overwritten before it is freed.
 */
static void
pattern_free(struct redact_pattern *p)
{
	bx_wipe_free(p->rp_text, p->rp_len);
	if (p->rp_border != NULL)
		bx_wipe_free(p->rp_border, p->rp_len * sizeof(*p->rp_border));
	explicit_bzero(p, sizeof(*p));
}

/*
 * The list one entry longer: a new array, the old one overwritten (its
 * entries hold the partial bits of base64 cores), not realloc(3), which
 * may free the old copy as it was.
 */
static struct redact_pattern *
list_grow(struct redact_pattern *list, size_t n)
{
	struct redact_pattern *grown;

	if ((grown = calloc(n + 1, sizeof(*grown))) == NULL)
		return NULL;
	if (n > 0)
		memcpy(grown, list, n * sizeof(*list));
	bx_wipe_free(list, n * sizeof(*list));
	return grown;
}

static bool
same_pattern(const struct redact_pattern *a, const struct redact_pattern *b)
{
	return a->rp_len == b->rp_len &&
	    memcmp(a->rp_text, b->rp_text, a->rp_len) == 0 &&
	    a->rp_fold == b->rp_fold && a->rp_alphabet == b->rp_alphabet &&
	    a->rp_lbits == b->rp_lbits && a->rp_lval == b->rp_lval &&
	    a->rp_rbits == b->rp_rbits && a->rp_rval == b->rp_rval &&
	    a->rp_pad == b->rp_pad;
}

/*
 * Takes p (its text already set) into the list unless the list has it;
 * computes its KMP borders. p's text is the list's or freed either way.
 */
static int
pattern_push(struct redact_pattern **list, size_t *n,
    struct redact_pattern *p, struct bx_error *err)
{
	struct redact_pattern *grown;
	size_t i, k = 0;

	for (i = 0; i < *n; i++)
		if (same_pattern(&(*list)[i], p)) {
			pattern_free(p);
			return 0;
		}
	if ((p->rp_border = calloc(p->rp_len, sizeof(*p->rp_border))) ==
	    NULL ||
	    (grown = list_grow(*list, *n)) == NULL) {
		pattern_free(p);
		return bx_fail(err, "redaction: out of memory");
	}
	for (i = 1; i < p->rp_len; i++) {
		while (k > 0 && p->rp_text[i] != p->rp_text[k])
			k = p->rp_border[k - 1];
		if (p->rp_text[i] == p->rp_text[k])
			k++;
		p->rp_border[i] = (uint32_t)k;
	}
	grown[*n] = *p;
	*list = grown;
	(*n)++;
	return 0;
}

/* The form as it is, and its hex. */
static int
add_plain(struct redact_pattern **list, size_t *n, const char *form,
    size_t len, struct bx_error *err)
{
	static const char digits[] = "0123456789abcdef";
	struct redact_pattern p;
	size_t i;

	memset(&p, 0, sizeof(p));
	if ((p.rp_text = malloc(len)) == NULL)
		return bx_fail(err, "redaction: out of memory");
	memcpy(p.rp_text, form, len);
	p.rp_len = len;
	if (pattern_push(list, n, &p, err) == -1)
		return -1;
	memset(&p, 0, sizeof(p));
	if ((p.rp_text = malloc(2 * len)) == NULL)
		return bx_fail(err, "redaction: out of memory");
	for (i = 0; i < len; i++) {
		p.rp_text[2 * i] = digits[(unsigned char)form[i] >> 4];
		p.rp_text[2 * i + 1] = digits[(unsigned char)form[i] & 0xf];
	}
	p.rp_len = 2 * len;
	p.rp_fold = true;
	return pattern_push(list, n, &p, err);
}

/*
 * The base64 core of the form after align filler bytes: the chars of
 * base64(filler + form) whose six bits all come from the form, and what
 * the partial chars either side hold of it.
 */
static int
add_base64(struct redact_pattern **list, size_t *n, const char *form,
    size_t len, size_t align, const char *alphabet, struct bx_error *err)
{
	struct redact_pattern p;
	unsigned char *buf;
	size_t bits = 8 * (align + len), k0, k1, enclen;
	char *enc;

	enclen = BX_BASE64_LEN(align + len) + 1;
	buf = calloc(align + len, 1);
	enc = malloc(enclen);
	if (buf == NULL || enc == NULL) {
		free(buf);
		free(enc);
		return bx_fail(err, "redaction: out of memory");
	}
	memcpy(buf + align, form, len);
	bx_base64_encode_with(buf, align + len, alphabet, enc);
	bx_wipe_free(buf, align + len);
	memset(&p, 0, sizeof(p));
	k0 = (8 * align + 5) / 6;
	k1 = bits / 6;
	p.rp_alphabet = alphabet;
	p.rp_lbits = (unsigned)(6 * k0 - 8 * align);
	if (p.rp_lbits > 0)
		p.rp_lval = (unsigned)bx_base64_value(alphabet,
		    (unsigned char)enc[k0 - 1]) & ((1u << p.rp_lbits) - 1);
	p.rp_rbits = (unsigned)(bits - 6 * k1);
	if (p.rp_rbits > 0)
		p.rp_rval = (unsigned)bx_base64_value(alphabet,
		    (unsigned char)enc[k1]) >> (6 - p.rp_rbits);
	p.rp_pad = (unsigned)((3 - (align + len) % 3) % 3);
	if ((p.rp_text = malloc(k1 - k0)) == NULL) {
		bx_wipe_free(enc, enclen);
		return bx_fail(err, "redaction: out of memory");
	}
	memcpy(p.rp_text, enc + k0, k1 - k0);
	p.rp_len = k1 - k0;
	bx_wipe_free(enc, enclen);
	return pattern_push(list, n, &p, err);
}

int
redact_patterns_add(struct redact_pattern **list, size_t *n,
    const char *form, size_t len, struct bx_error *err)
{
	size_t align;

	if (add_plain(list, n, form, len, err) == -1)
		return -1;
	for (align = 0; align < 3; align++)
		if (add_base64(list, n, form, len, align, bx_base64_std,
		    err) == -1 ||
		    add_base64(list, n, form, len, align, bx_base64_url,
		    err) == -1)
			return -1;
	return 0;
}

void
redact_patterns_free(struct redact_pattern *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pattern_free(&list[i]);
	bx_wipe_free(list, n * sizeof(*list));
}

/* Whether t's byte at i is a base64 char of p whose form bits agree. */
static bool
partial_left(const struct redact_pattern *p, const struct redact_text *t,
    size_t i)
{
	int v = bx_base64_value(p->rp_alphabet, (unsigned char)t->rt_p[i]);

	return v != -1 && ((unsigned)v & ((1u << p->rp_lbits) - 1)) ==
	    p->rp_lval;
}

static bool
partial_right(const struct redact_pattern *p, const struct redact_text *t,
    size_t i)
{
	int v = bx_base64_value(p->rp_alphabet, (unsigned char)t->rt_p[i]);

	return v != -1 && (unsigned)v >> (6 - p->rp_rbits) == p->rp_rval;
}

/* The match [s, e) of t widened over base64's partial chars, padding. */
static void
widen(const struct redact_pattern *p, const struct redact_text *t,
    size_t *s, size_t *e)
{
	unsigned pad;

	if (p->rp_alphabet == NULL)
		return;
	if (p->rp_lbits > 0 && *s > 0 && partial_left(p, t, *s - 1))
		(*s)--;
	if (p->rp_rbits == 0 || *e >= t->rt_len || !partial_right(p, t, *e))
		return;
	(*e)++;
	for (pad = 0; pad < p->rp_pad && *e < t->rt_len &&
	    t->rt_p[*e] == '='; pad++)
		(*e)++;
}

/*
 * KMP: from q bytes of p matched, the number matched after one more text
 * byte. Each step back along the borders was paid for by a step forward,
 * so a whole text costs at most twice its length.
 */
static size_t
step(const struct redact_pattern *p, size_t q, char byte)
{
	unsigned char c = fold(p, (unsigned char)byte);

	while (q > 0 && c != (unsigned char)p->rp_text[q])
		q = p->rp_border[q - 1];
	if (c == (unsigned char)p->rp_text[q])
		q++;
	return q;
}

/* The input offset of t's byte at i (or of its end). */
static size_t
input_at(const struct redact_text *t, size_t i)
{
	return t->rt_map != NULL ? t->rt_map[i] : i;
}

void
redact_pattern_find(const struct redact_pattern *p,
    const struct redact_text *t, uint32_t *reach)
{
	size_t i, q = 0, s, e, in_s, in_e;

	for (i = 0; i < t->rt_len; i++) {
		if ((q = step(p, q, t->rt_p[i])) < p->rp_len)
			continue;
		s = i + 1 - p->rp_len;
		e = i + 1;
		widen(p, t, &s, &e);
		in_s = input_at(t, s);
		in_e = input_at(t, e);
		if (reach[in_s] < in_e)
			reach[in_s] = (uint32_t)in_e;
		q = p->rp_border[q - 1];
	}
}

size_t
redact_pattern_tail(const struct redact_pattern *p,
    const struct redact_text *t)
{
	size_t i, q = 0, s;

	/* A start is shorter than the pattern: only that much can hold it. */
	i = t->rt_len >= p->rp_len ? t->rt_len - (p->rp_len - 1) : 0;
	for (; i < t->rt_len; i++) {
		if ((q = step(p, q, t->rt_p[i])) == p->rp_len)
			q = p->rp_border[q - 1];
	}
	if (q == 0)
		return REDACT_NONE;
	s = t->rt_len - q;
	if (p->rp_alphabet != NULL && p->rp_lbits > 0 && s > 0 &&
	    partial_left(p, t, s - 1))
		s--;
	return input_at(t, s);
}
