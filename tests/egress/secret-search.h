/*
 * secret-search.h: finding a secret in text that should not hold it, in
 * every form tls-host's /echo routes send it back in (echo-forms.h), so
 * that the tests which search logs, results and requests for a leaked
 * value all search the same forms: test-egress-secret.c and the secret-scan
 * program of the end-to-end test.
 *
 * What is searched for, for each subject of echo-forms.h (the whole
 * header value, and the secret inside it):
 *   raw, pct-upper, pct-lower, pct-mix, hex-upper, hex-lower   the text
 *   json, json-mix            the text between {"auth":" and "}
 *   b64-K-..., b64url-K-...   the characters that only the subject's
 *                             bytes determine, at byte alignment K: those
 *                             a longer base64 text holding it has too
 * and any 8 bytes in a row of the secret itself (the spec's shortest
 * occurrence that a cut output must not leave).
 */
#ifndef SECRET_SEARCH_H
#define SECRET_SEARCH_H

#include <stddef.h>

/* One thing searched for; its label is "SUBJECT FORM" or "8 bytes at N". */
struct secret_needle {
	char	*sn_label;
	char	*sn_text;
};

/* Every needle of a secret; its owner frees it with secret_needles_free. */
struct secret_needles {
	struct secret_needle	*sn_list;
	size_t			 sn_count;
	size_t			 sn_forms;	/* lines and runs they came from */
};

/*
 * The needles of secret (NUL-ended) sent as the header value header
 * (NUL-ended; equal to secret for kind "header"). Exits with err(1) when
 * memory runs out.
 */
void	secret_needles_make(struct secret_needles *, const char *header,
	    const char *secret);
void	secret_needles_free(struct secret_needles *);

/*
 * The first needle found in text (len bytes, NULs allowed), or NULL when
 * none is.
 */
const struct secret_needle *secret_search(const struct secret_needles *,
	    const char *text, size_t len);

#endif
