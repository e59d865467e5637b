/*
 * test-secret-search.c: the search the secret tests rely on finds every
 * form tls-host echoes, whole and inside other text, and nothing in a
 * text that holds only the redaction marker or another secret; so a
 * clean search of a log means something.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "echo-forms.h"
#include "secret-search.h"

#define SECRET	"bxs3cr3t/V4lue+0123\"456789abcdef"
#define BEARER	"Bearer " SECRET

/* Each line of the echo body, alone and between other bytes, is found. */
static void
every_line_found(const char *header, const char *secret)
{
	struct echo_body body = { 0 }, wrapped;
	struct secret_needles sn;
	size_t at, end, lines = 0;

	secret_needles_make(&sn, header, secret);
	echo_forms(&body, header, strlen(header));
	for (at = 0; at < body.eb_len; at = end + 1) {
		end = at + strcspn(body.eb_data + at, "\n");
		wrapped = (struct echo_body){ 0 };
		echo_append(&wrapped, "{\"x\":1,\"t\":\"", 12);
		echo_append(&wrapped, body.eb_data + at, end - at);
		echo_append(&wrapped, "\"}\n", 3);
		if (secret_search(&sn, body.eb_data + at, end - at) == NULL ||
		    secret_search(&sn, wrapped.eb_data, wrapped.eb_len) == NULL)
			fail_msg("not found: %.*s", (int)(end - at),
			    body.eb_data + at);
		free(wrapped.eb_data);
		lines++;
	}
	/* Subjects "value" and "token" (or basic's four), 32 lines each. */
	assert_true(lines >= 64);
	free(body.eb_data);
	secret_needles_free(&sn);
}

static void
test_bearer_forms(void **state)
{
	(void)state;
	every_line_found(BEARER, SECRET);
}

static void
test_basic_forms(void **state)
{
	(void)state;
	/* base64 of "kyle:" SECRET */
	every_line_found("Basic a3lsZTpieHMzY3IzdC9WNGx1ZSswMTIzIjQ1Njc4OWFiY2RlZg==",
	    SECRET);
}

/* Any 8 bytes of the secret in a row, however they are cut out. */
static void
test_runs(void **state)
{
	struct secret_needles sn;
	char text[64];
	size_t i;

	(void)state;
	secret_needles_make(&sn, BEARER, SECRET);
	for (i = 0; i + 8 <= strlen(SECRET); i++) {
		snprintf(text, sizeof(text), "..%.8s..", SECRET + i);
		assert_non_null(secret_search(&sn, text, strlen(text)));
		snprintf(text, sizeof(text), "..%.7s..", SECRET + i);
		assert_null(secret_search(&sn, text, strlen(text)));
	}
	secret_needles_free(&sn);
}

/* What the model gets after redaction, and another secret: nothing. */
static void
test_clean_texts(void **state)
{
	struct echo_body other = { 0 };
	struct secret_needles sn;
	const char *redacted = "value raw: [secret github]\ntoken b64-1-inside: "
	    "LS[secret github]LXRyYWlsZXI=\n[64 occurrences of the secret "
	    "github were removed]\n";

	(void)state;
	secret_needles_make(&sn, BEARER, SECRET);
	assert_null(secret_search(&sn, redacted, strlen(redacted)));
	echo_forms(&other, "Bearer another-token-9876543210", 31);
	assert_null(secret_search(&sn, other.eb_data, other.eb_len));
	free(other.eb_data);
	secret_needles_free(&sn);
	secret_needles_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bearer_forms),
		cmocka_unit_test(test_basic_forms),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_clean_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
