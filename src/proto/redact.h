/*
 * redact.h: takes every echo of one secret out of a response before any of
 * it reaches the model or the session log (issue 41, spec section 2.5).
 * The caller is the http_fetch secret call path, which comes with it in
 * brokerd; this piece knows nothing of grants, files or curl.
 *
 * A redactor is built from the plain strings a secret is sent as (its
 * "forms": the value, the whole header value, and for basic the base64 of
 * user:value). Each occurrence of a form is replaced by "[secret NAME]",
 * in any of these shapes:
 * - the form as it is;
 * - hex, in any mix of upper and lower case;
 * - base64 and base64url, with or without padding, at each of the three
 *   byte alignments (the form inside a longer base64 text): the characters
 *   that depend on the form's bytes alone, widened by the partial
 *   character at either end when its form bits agree, and the padding;
 * - any of those with any mix of percent-encoded bytes (%XX, either case)
 *   and JSON string escapes (\" \\ \/ \b \f \n \r \t, \uXXXX either case)
 *   among plain ones.
 * Overlapping occurrences become one marker. Then the output limit cuts
 * the result (never inside a marker), and a start of 8 or more bytes of any
 * form left at the very end is removed too (the response or the cut ended
 * inside an occurrence). See docs/decisions.md, "Redaction", for the
 * limits: what it does not find.
 *
 * Ownership: bx_redactor_new() copies what it needs from its arguments;
 * the caller frees the redactor with bx_redactor_free() (NULL is fine),
 * which overwrites everything it made from the forms before freeing it;
 * so does every copy of the text bx_redact() frees on its way (the
 * decoded copy, a pass's text, what a cut leaves past the end). The
 * caller's own input is the caller's to overwrite.
 * bx_redact() allocates *ret_out, which the caller frees with free(3). A
 * redactor is not changed by bx_redact(), so threads may share one.
 */
#ifndef BX_REDACT_H
#define BX_REDACT_H

#include <stddef.h>

#include "proto/error.h"

/* A secret's name: 1 to 64 of [a-z0-9-]. */
#define BX_REDACT_NAME_MAX	64
/* Forms of one secret: the value, the header value, basic's base64. */
#define BX_REDACT_FORMS_MAX	8
/*
 * A form's length. Shorter forms would take ordinary words out; the
 * longest is basic's base64 of a user and a 4096-byte value.
 */
#define BX_REDACT_FORM_MIN	8
#define BX_REDACT_FORM_MAX	8192
/*
 * The longest response redacted. Redaction holds about ten bytes per
 * input byte (the decoded copy, its map to the input, the spans).
 */
#define BX_REDACT_INPUT_MAX	(16 * 1024 * 1024)
/*
 * A start of an occurrence this long or longer left at the very end of
 * the output is removed (spec 2.5: "8 bytes or more of any form").
 */
#define BX_REDACT_CUT_MIN	8
/*
 * Passes over the output before it is given up: each pass redacts what
 * the previous one's markers and cut brought together; an occurrence
 * still there after the last withholds the whole output.
 */
#define BX_REDACT_PASSES	4

struct bx_redactor;

/*
 * A redactor for the secret name whose forms are the nforms strings of
 * forms: each printable ASCII (0x20 to 0x7e), BX_REDACT_FORM_MIN to
 * BX_REDACT_FORM_MAX bytes. Fails, saying which argument, on a bad name,
 * no form, too many, or a bad form; and when memory runs out.
 */
struct bx_redactor *bx_redactor_new(const char *name,
	    const char *const *forms, size_t nforms, struct bx_error *err);

void	bx_redactor_free(struct bx_redactor *rd);

/*
 * Redacts the len bytes at in (at most BX_REDACT_INPUT_MAX; NUL bytes are
 * text like any other), then cuts the result to at most limit bytes, then
 * removes a start of an occurrence of BX_REDACT_CUT_MIN or more bytes left
 * at its end. On success *ret_out is the result with a NUL after it,
 * *ret_len its length, and *ret_removed how many occurrences were taken
 * out: one per marker written (markers the limit then cut away included)
 * and one per removed start. Fails on an input too long, when memory runs
 * out, and when an occurrence is still there after BX_REDACT_PASSES passes
 * (then nothing of the response may be shown: the message says so).
 */
int	bx_redact(const struct bx_redactor *rd, const char *in, size_t len,
	    size_t limit, char **ret_out, size_t *ret_len, size_t *ret_removed,
	    struct bx_error *err);

#endif
