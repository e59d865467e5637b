/*
 * test-base64.c: the base64 encoder against RFC 4648's test vectors
 * (section 10), every byte value, and the length macro.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "proto/base64.h"

static void
check(const char *in, const char *want)
{
	char out[64];
	size_t n = strlen(in);

	memset(out, 'x', sizeof(out));
	assert_int_equal(bx_base64_encode(in, n, out), strlen(want));
	assert_int_equal(BX_BASE64_LEN(n), strlen(want));
	assert_string_equal(out, want);
}

static void
test_rfc4648_vectors(void **state)
{
	(void)state;
	check("", "");
	check("f", "Zg==");
	check("fo", "Zm8=");
	check("foo", "Zm9v");
	check("foob", "Zm9vYg==");
	check("fooba", "Zm9vYmE=");
	check("foobar", "Zm9vYmFy");
}

/* RFC 7617's own example of a Basic credential. */
static void
test_basic_credential(void **state)
{
	(void)state;
	check("Aladdin:open sesame", "QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
}

/* The high bits of a byte are not sign-extended, and "+" and "/" appear. */
static void
test_high_bytes(void **state)
{
	unsigned char in[] = { 0xff, 0xfe, 0xfb, 0xef, 0x80 };
	char out[BX_BASE64_LEN(sizeof(in)) + 1];

	(void)state;
	assert_int_equal(bx_base64_encode(in, sizeof(in), out), 8);
	assert_string_equal(out, "//7774A=");
}

/* Writes exactly BX_BASE64_LEN(n) + 1 bytes and no more. */
static void
test_no_overrun(void **state)
{
	char out[16];
	size_t n;

	(void)state;
	for (n = 0; n <= 9; n++) {
		memset(out, '#', sizeof(out));
		bx_base64_encode("abcdefghi", n, out);
		assert_int_equal(out[BX_BASE64_LEN(n)], '\0');
		assert_int_equal(out[BX_BASE64_LEN(n) + 1], '#');
	}
}

/* RFC 4648 section 5: "-" and "_" where section 4 has "+" and "/". */
static void
test_url_alphabet(void **state)
{
	unsigned char in[] = { 0xff, 0xfe, 0xfb, 0xef, 0x80 };
	char out[BX_BASE64_LEN(sizeof(in)) + 1];

	(void)state;
	assert_int_equal(bx_base64_encode_with(in, sizeof(in), bx_base64_url,
	    out), 8);
	assert_string_equal(out, "__7774A=");
	assert_int_equal(bx_base64_encode_with("foob", 4, bx_base64_std, out),
	    8);
	assert_string_equal(out, "Zm9vYg==");
}

/* Each character's value in its alphabet, and -1 for what is not one. */
static void
test_value(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 64; i++) {
		assert_int_equal(bx_base64_value(bx_base64_std,
		    (unsigned char)bx_base64_std[i]), i);
		assert_int_equal(bx_base64_value(bx_base64_url,
		    (unsigned char)bx_base64_url[i]), i);
	}
	assert_int_equal(bx_base64_value(bx_base64_std, '-'), -1);
	assert_int_equal(bx_base64_value(bx_base64_url, '+'), -1);
	assert_int_equal(bx_base64_value(bx_base64_std, '='), -1);
	assert_int_equal(bx_base64_value(bx_base64_std, '\0'), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648_vectors),
		cmocka_unit_test(test_basic_credential),
		cmocka_unit_test(test_high_bytes),
		cmocka_unit_test(test_url_alphabet),
		cmocka_unit_test(test_value),
		cmocka_unit_test(test_no_overrun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
