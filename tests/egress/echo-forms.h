/*
 * echo-forms.h: the body of tls-host's /echo routes. A received header's
 * value, and the secret inside it, written out in each form a server
 * could echo a secret in and that the redaction of http_fetch results has
 * to find. The secret tests fetch it through brokerd and check that no
 * line's text survives.
 *
 * The subjects, in this order (a subject that does not apply is left out):
 *   value           the whole header value, spaces and tabs at either end
 *                   removed ("Bearer abc", "Basic a3lsZTpwdw==", "abc")
 *   token           "Bearer" (any case), spaces, TOKEN: TOKEN
 *   basic           "Basic" (any case), spaces, B64: B64
 *   basic-decoded   B64 decoded, when it is base64 of printable ASCII
 *   basic-password  basic-decoded after its first ':', when it has one
 *
 * For each subject S, one line a form, "SUBJECT FORM: TEXT\n":
 *   raw                    S
 *   b64-K-end              base64 of K filler bytes then S (K = 0, 1, 2;
 *                          a filler byte is '-'), padded
 *   b64-K-end-nopad        the same without its '=' padding
 *   b64-K-inside           base64 of K filler bytes, S, then "-trailer"
 *   b64-K-inside-nopad     the same without its '=' padding
 *   b64url-...             the same twelve, in the base64url alphabet
 *   pct-upper              every byte %XX, upper-case hex
 *   pct-lower              bytes outside RFC 3986's unreserved set
 *                          (A-Z a-z 0-9 - . _ ~) %xx, lower-case hex; the
 *                          others as they are
 *   pct-mix                byte i encoded when i is even or it is outside
 *                          the unreserved set, plain otherwise; its hex
 *                          upper-case when i mod 4 is 0 or 1, else lower
 *   json                   {"auth":"S"}: '"' and '\' escaped with '\',
 *                          '/' as "\/", control bytes as \u00xx
 *   json-mix               as json, and character i as \u00XX (upper-case
 *                          hex) when i mod 3 is 1, as \u00xx (lower-case)
 *                          when i mod 3 is 2
 *   hex-upper, hex-lower   each byte as two hex digits
 * The base64 lines of every subject come in the order above: b64 K = 0
 * end, end-nopad, inside, inside-nopad, then K = 1, K = 2, then b64url.
 */
#ifndef ECHO_FORMS_H
#define ECHO_FORMS_H

#include <stddef.h>

/* A growing byte string; its owner frees eb_data with free(). */
struct echo_body {
	char	*eb_data;
	size_t	 eb_len;
	size_t	 eb_cap;
};

/* Appends len bytes; exits with err(3) when memory runs out. */
void	echo_append(struct echo_body *, const void *, size_t);

/*
 * Appends the lines above for the header value value (len bytes, no NUL
 * inside); exits with err(3) when memory runs out.
 */
void	echo_forms(struct echo_body *, const char *value, size_t len);

#endif
