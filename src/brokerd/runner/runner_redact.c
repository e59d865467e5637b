/*
 * runner_redact.c: a secret call's result through the redactor
 * (runner_redact.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/runner_redact.h"
#include "proto/utf8.h"
#include "proto/wipe.h"

/*
 * The length of s[0..len) without a UTF-8 sequence a cut split at its
 * end: the redactor cuts at a byte count, and the text must stay UTF-8.
 */
static size_t
whole_utf8(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, back;

	for (back = 1; back <= 3 && back <= len; back++) {
		i = len - back;
		if ((u[i] & 0xc0) == 0x80)
			continue;		/* a continuation byte */
		if (u[i] >= 0xc2 && u[i] <= 0xf4 &&
		    bx_utf8_len(u + i, back) == 0)
			return i;		/* a lead whose rest was cut */
		return len;
	}
	return len;
}

int
redact_output(const struct bx_redactor *rd, size_t limit,
    struct exec_outcome *o, bool *ret_cut, size_t *ret_removed,
    struct bx_error *err)
{
	char *out = NULL;
	size_t len, removed, again;

	/* Whole first, to know whether the limit cuts; then cut. */
	if (bx_redact(rd, o->eo_out, o->eo_out_len, (size_t)-1, &out, &len,
	    &removed, err) == -1)
		return -1;
	*ret_cut = len > limit;
	if (*ret_cut) {
		free(out);
		if (bx_redact(rd, o->eo_out, o->eo_out_len, limit, &out, &len,
		    &removed, err) == -1)
			return -1;
	}
	/* A sequence cut at the end goes; what that uncovers is redacted. */
	if (whole_utf8(out, len) < len) {
		len = whole_utf8(out, len);
		bx_wipe_free(o->eo_out, o->eo_out_len);
		o->eo_out = NULL;
		if (bx_redact(rd, out, len, len, &o->eo_out, &o->eo_out_len,
		    &again, err) == -1) {
			free(out);
			return -1;
		}
		free(out);
		removed += again;
	} else {
		bx_wipe_free(o->eo_out, o->eo_out_len);
		o->eo_out = out;
		o->eo_out_len = len;
	}
	*ret_removed = removed;
	return 0;
}

int
redact_result(const struct bx_redactor *rd, const char *name, size_t removed,
    struct run_result *r, struct bx_error *err)
{
	char *text = NULL, *noted;
	size_t len, more;

	if (bx_redact(rd, r->rr_text, strlen(r->rr_text), strlen(r->rr_text),
	    &text, &len, &more, err) == -1)
		return -1;
	removed += more;
	text[whole_utf8(text, len)] = '\0';
	if (removed > 0) {
		if (asprintf(&noted, "%s%s[%zu occurrence%s of the secret %s "
		    "%s removed]", text, text[0] != '\0' ? "\n" : "", removed,
		    removed == 1 ? "" : "s", name,
		    removed == 1 ? "was" : "were") == -1) {
			free(text);
			return bx_fail(err, "runner: out of memory");
		}
		free(text);
		text = noted;
	}
	bx_wipe_free(r->rr_text, strlen(r->rr_text));
	r->rr_text = text;
	r->rr_removed = removed;
	return 0;
}
