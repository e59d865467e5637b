/*
 * test-utf8.c: bx_utf8_len at every edge RFC 3629 draws: the shortest and
 * longest sequence of each length, overlong forms, surrogates, past
 * U+10FFFF, bytes that start nothing, bad continuations, cut sequences.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "proto/utf8.h"

struct utf8_case {
	const char	*bytes;
	size_t		 want;
};

static size_t
len_of(const char *bytes)
{
	return bx_utf8_len((const unsigned char *)bytes, strlen(bytes));
}

static void
test_valid_sequences(void **state)
{
	static const struct utf8_case cases[] = {
		{ "a", 1 }, { "\x7f", 1 },
		{ "\xc2\x80", 2 }, { "\xdf\xbf", 2 },
		{ "\xe0\xa0\x80", 3 }, { "\xed\x9f\xbf", 3 },
		{ "\xee\x80\x80", 3 }, { "\xef\xbf\xbf", 3 },
		{ "\xf0\x90\x80\x80", 4 }, { "\xf4\x8f\xbf\xbf", 4 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(len_of(cases[i].bytes), cases[i].want);
	/* NUL is ASCII; refusing it is the caller's choice. */
	assert_int_equal(bx_utf8_len((const unsigned char *)"", 1), 1);
}

static void
test_invalid_sequences(void **state)
{
	static const char *cases[] = {
		"\x80", "\xbf",				/* a lone continuation */
		"\xc0\x80", "\xc1\xbf",			/* overlong two bytes */
		"\xe0\x80\x80", "\xe0\x9f\xbf",		/* overlong three */
		"\xed\xa0\x80", "\xed\xbf\xbf",		/* surrogates */
		"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",	/* overlong four */
		"\xf4\x90\x80\x80",			/* past U+10FFFF */
		"\xf5\x80\x80\x80", "\xff",		/* start nothing */
		"\xc2\x41", "\xe0\xa0\x41",		/* bad continuation */
		"\xc2", "\xe0\xa0", "\xf0\x90\x80",	/* cut short */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (len_of(cases[i]) != 0)
			fail_msg("case %zu is taken as %zu bytes", i,
			    len_of(cases[i]));
	assert_int_equal(bx_utf8_len((const unsigned char *)"a", 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_sequences),
		cmocka_unit_test(test_invalid_sequences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
