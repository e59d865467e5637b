/*
 * redact.c: a secret's redactor: its patterns searched in a response and
 * in the response's decoded copy, the spans merged into markers, the
 * output limit and the cut start, and the passes that check the result
 * (see redact.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/redact.h"
#include "proto/redact_decode.h"
#include "proto/redact_pattern.h"
#include "proto/wipe.h"

struct bx_redactor {
	char			 marker[BX_REDACT_NAME_MAX + 16];
	size_t			 marker_len;
	struct redact_pattern	*patterns;
	size_t			 npatterns;
};

/* A text being redacted: its bytes and, where it has escapes, its decoded copy. */
struct pass {
	const char		*text;
	size_t			 len;
	struct redact_decoded	 dec;
	int			 has_dec;
};

static int
check_name(const char *name, struct bx_error *err)
{
	size_t i, len;

	if (name == NULL || (len = strlen(name)) == 0)
		return bx_fail(err, "redaction: the secret has no name");
	if (len > BX_REDACT_NAME_MAX)
		return bx_fail(err, "redaction: secret name of %zu characters "
		    "(at most %d)", len, BX_REDACT_NAME_MAX);
	for (i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= '0' && name[i] <= '9') || name[i] == '-'))
			return bx_fail(err, "redaction: secret name: character "
			    "%zu is not one of a-z, 0-9 and -", i + 1);
	return 0;
}

static int
check_form(const char *name, const char *form, size_t index,
    struct bx_error *err)
{
	size_t i, len;

	if (form == NULL)
		return bx_fail(err, "redaction: secret %s: form %zu is NULL",
		    name, index + 1);
	len = strlen(form);
	if (len < BX_REDACT_FORM_MIN || len > BX_REDACT_FORM_MAX)
		return bx_fail(err, "redaction: secret %s: form %zu is %zu "
		    "bytes (%d to %d)", name, index + 1, len,
		    BX_REDACT_FORM_MIN, BX_REDACT_FORM_MAX);
	for (i = 0; i < len; i++)
		if (form[i] < 0x20 || form[i] > 0x7e)
			return bx_fail(err, "redaction: secret %s: form %zu: "
			    "byte %zu is not printable ASCII", name, index + 1,
			    i + 1);
	return 0;
}

struct bx_redactor *
bx_redactor_new(const char *name, const char *const *forms, size_t nforms,
    struct bx_error *err)
{
	struct bx_redactor *rd;
	size_t i;

	if (check_name(name, err) == -1)
		return NULL;
	if (nforms == 0 || forms == NULL) {
		bx_fail(err, "redaction: secret %s: no form to redact", name);
		return NULL;
	}
	if (nforms > BX_REDACT_FORMS_MAX) {
		bx_fail(err, "redaction: secret %s: %zu forms (at most %d)",
		    name, nforms, BX_REDACT_FORMS_MAX);
		return NULL;
	}
	for (i = 0; i < nforms; i++)
		if (check_form(name, forms[i], i, err) == -1)
			return NULL;
	if ((rd = calloc(1, sizeof(*rd))) == NULL) {
		bx_fail(err, "redaction: out of memory");
		return NULL;
	}
	rd->marker_len = (size_t)snprintf(rd->marker, sizeof(rd->marker),
	    "[secret %s]", name);
	for (i = 0; i < nforms; i++)
		if (redact_patterns_add(&rd->patterns, &rd->npatterns,
		    forms[i], strlen(forms[i]), err) == -1) {
			bx_redactor_free(rd);
			return NULL;
		}
	return rd;
}

void
bx_redactor_free(struct bx_redactor *rd)
{
	if (rd == NULL)
		return;
	redact_patterns_free(rd->patterns, rd->npatterns);
	explicit_bzero(rd, sizeof(*rd));
	free(rd);
}

/* Decodes the text when it holds anything an escape starts with. */
static int
pass_start(struct pass *ps, const char *text, size_t len,
    struct bx_error *err)
{
	memset(ps, 0, sizeof(*ps));
	ps->text = text;
	ps->len = len;
	if (memchr(text, '%', len) == NULL && memchr(text, '\\', len) == NULL)
		return 0;
	if (redact_decode(text, len, &ps->dec, err) == -1)
		return -1;
	ps->has_dec = ps->dec.rd_changed;
	return 0;
}

static void
pass_end(struct pass *ps)
{
	if (ps->dec.rd_text != NULL)
		redact_decoded_free(&ps->dec);
}

/* Every occurrence of every pattern, raw or decoded, into reach. */
static void
find_all(const struct bx_redactor *rd, const struct pass *ps,
    uint32_t *reach)
{
	struct redact_text raw = { ps->text, ps->len, NULL };
	struct redact_text dec = { ps->dec.rd_text, ps->dec.rd_len,
	    ps->dec.rd_map };
	size_t i;

	for (i = 0; i < rd->npatterns; i++) {
		redact_pattern_find(&rd->patterns[i], &raw, reach);
		if (ps->has_dec)
			redact_pattern_find(&rd->patterns[i], &dec, reach);
	}
}

/*
 * The merged spans of reach written over the text into out (NULL: only
 * counted): each becomes the marker. The output's length in *ret_len, the
 * number of markers in *ret_markers.
 */
static void
replace_spans(const struct bx_redactor *rd, const struct pass *ps,
    const uint32_t *reach, char *out, size_t *ret_len, size_t *ret_markers)
{
	size_t i = 0, j, end, o = 0, markers = 0;

	while (i < ps->len) {
		if (reach[i] == 0) {
			if (out != NULL)
				out[o] = ps->text[i];
			o++;
			i++;
			continue;
		}
		/* Whatever starts inside the span joins it. */
		end = reach[i];
		for (j = i + 1; j < end; j++)
			if (reach[j] > end)
				end = reach[j];
		if (out != NULL)
			memcpy(out + o, rd->marker, rd->marker_len);
		o += rd->marker_len;
		markers++;
		i = end;
	}
	*ret_len = o;
	*ret_markers = markers;
}

/* Where to cut len bytes of text to at most limit: never in a marker. */
static size_t
cut_at(const struct bx_redactor *rd, const char *text, size_t len,
    size_t limit)
{
	size_t s;

	if (len <= limit)
		return len;
	s = limit >= rd->marker_len ? limit - rd->marker_len + 1 : 0;
	for (; s < limit; s++)
		if (s + rd->marker_len <= len &&
		    memcmp(text + s, rd->marker, rd->marker_len) == 0)
			return s;
	return limit;
}

/* The earliest input offset of a start of a pattern ending t. */
static size_t
tail_in(const struct bx_redactor *rd, const struct redact_text *t,
    size_t best)
{
	size_t i, s;

	for (i = 0; i < rd->npatterns; i++)
		if ((s = redact_pattern_tail(&rd->patterns[i], t)) < best)
			best = s;
	return best;
}

/*
 * The length of the text without the start of an occurrence at its end,
 * if that start is BX_REDACT_CUT_MIN bytes or more: raw, decoded, and
 * decoded without an escape the end cut short ("%4"), which then goes too.
 */
static size_t
cut_start(const struct bx_redactor *rd, const struct pass *ps)
{
	struct redact_text raw = { ps->text, ps->len, NULL };
	struct redact_text dec = { ps->dec.rd_text, ps->dec.rd_len,
	    ps->dec.rd_map };
	size_t s;

	s = tail_in(rd, &raw, ps->len);
	if (ps->has_dec) {
		s = tail_in(rd, &dec, s);
		if (ps->dec.rd_partial < ps->dec.rd_len) {
			dec.rt_len = ps->dec.rd_partial;
			s = tail_in(rd, &dec, s);
		}
	}
	return ps->len - s >= BX_REDACT_CUT_MIN ? s : ps->len;
}

/*
 * The text's occurrences replaced: *ret_markers of them; *ret_out is NULL
 * when there was none.
 */
static int
replace_all(const struct bx_redactor *rd, const char *text, size_t len,
    char **ret_out, size_t *ret_len, size_t *ret_markers,
    struct bx_error *err)
{
	struct pass ps;
	uint32_t *reach;
	size_t outlen = 0, markers = 0;
	char *out;

	if ((reach = calloc(len + 1, sizeof(*reach))) == NULL)
		return bx_fail(err, "redaction: out of memory");
	if (pass_start(&ps, text, len, err) == -1) {
		free(reach);
		return -1;
	}
	find_all(rd, &ps, reach);
	pass_end(&ps);
	replace_spans(rd, &ps, reach, NULL, &outlen, &markers);
	*ret_markers = markers;
	if (markers == 0) {
		free(reach);
		*ret_out = NULL;
		return 0;
	}
	if ((out = malloc(outlen + 1)) == NULL) {
		free(reach);
		return bx_fail(err, "redaction: out of memory");
	}
	replace_spans(rd, &ps, reach, out, &outlen, &markers);
	free(reach);
	*ret_out = out;
	*ret_len = outlen;
	return 0;
}

/*
 * One pass: text's occurrences replaced (*ret_markers), the result cut to
 * limit, and a start of an occurrence at the end removed (*ret_cut set)
 * if the pass is the first (the response itself may end inside one) or
 * if it cut. Only once per cut: what the removal leaves at the end was
 * followed by the removed start, not by the rest of an occurrence.
 * *ret_out is NULL when the pass changed nothing.
 */
static int
redact_pass(const struct bx_redactor *rd, const char *text, size_t len,
    size_t limit, int first, char **ret_out, size_t *ret_len,
    size_t *ret_markers, int *ret_cut, struct bx_error *err)
{
	struct pass ps;
	size_t outlen = 0, markers = 0, kept, whole;
	char *out = NULL;

	if (replace_all(rd, text, len, &out, &outlen, &markers, err) == -1)
		return -1;
	if (out == NULL) {
		if ((out = malloc(len + 1)) == NULL)
			return bx_fail(err, "redaction: out of memory");
		memcpy(out, text, len);
		outlen = len;
	}
	whole = outlen;
	kept = outlen = cut_at(rd, out, outlen, limit);
	if (first || outlen < whole) {
		if (pass_start(&ps, out, outlen, err) == -1) {
			free(out);
			return -1;
		}
		kept = cut_start(rd, &ps);
		pass_end(&ps);
	}
	/*
	 * What the cut and the removed start leave past the end is not
	 * shown, but would stay in the buffer: the start of an occurrence.
	 */
	explicit_bzero(out + kept, whole - kept);
	*ret_cut = kept < outlen;
	*ret_markers = markers;
	if (markers == 0 && kept == len) {
		free(out);
		*ret_out = NULL;
		return 0;
	}
	out[kept] = '\0';
	*ret_out = out;
	*ret_len = kept;
	return 0;
}

int
bx_redact(const struct bx_redactor *rd, const char *in, size_t len,
    size_t limit, char **ret_out, size_t *ret_len, size_t *ret_removed,
    struct bx_error *err)
{
	char *cur = NULL, *next = NULL;
	size_t curlen = len, nextlen = 0, markers = 0, removed = 0;
	int pass, cut = 0;

	if (len > BX_REDACT_INPUT_MAX)
		return bx_fail(err, "redaction: a response of %zu bytes is "
		    "more than the %d it can take", len, BX_REDACT_INPUT_MAX);
	for (pass = 0; ; pass++) {
		/* A text between passes may still hold what the next would take. */
		if (redact_pass(rd, cur != NULL ? cur : in, curlen, limit,
		    pass == 0, &next, &nextlen, &markers, &cut, err) == -1) {
			bx_wipe_free(cur, curlen);
			return -1;
		}
		if (next == NULL)
			break;
		if (pass == BX_REDACT_PASSES && markers > 0) {
			bx_wipe_free(next, nextlen);
			bx_wipe_free(cur, curlen);
			return bx_fail(err, "redaction: %.*s was still found "
			    "after %d passes (its own marker next to the text "
			    "makes it again): the response is withheld",
			    (int)rd->marker_len, rd->marker,
			    BX_REDACT_PASSES);
		}
		removed += markers + (cut ? 1 : 0);
		bx_wipe_free(cur, curlen);
		cur = next;
		curlen = nextlen;
	}
	if (cur == NULL) {
		if ((cur = malloc(len + 1)) == NULL)
			return bx_fail(err, "redaction: out of memory");
		memcpy(cur, in, len);
		cur[len] = '\0';
	}
	*ret_out = cur;
	*ret_len = curlen;
	*ret_removed = removed;
	return 0;
}
