/* test-sha256.c: known SHA-256 vectors, through unaligned buffers too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "proto/sha256.h"

static void
check(const char *input, size_t len, const char *want)
{
	char buf[BX_HASH_HEX_LEN + 1], shifted[256];
	struct bx_hash h;
	struct bx_error err;
	size_t off;

	assert_int_equal(bx_sha256(input, len, &h, &err), 0);
	bx_hash_format(&h, buf);
	assert_string_equal(buf, want);
	for (off = 1; off < 8 && len + off <= sizeof(shifted); off++) {
		memcpy(shifted + off, input, len);
		assert_int_equal(bx_sha256(shifted + off, len, &h, &err), 0);
		bx_hash_format(&h, buf);
		assert_string_equal(buf, want);
	}
}

static void
test_vectors(void **state)
{
	(void)state;
	check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
	    "7852b855");
	check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff"
	    "61f20015ad");
	check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void
test_hex(void **state)
{
	const unsigned char bytes[] = { 0x00, 0x0f, 0xa5, 0xff };
	char out[9];

	(void)state;
	bx_hex(bytes, sizeof(bytes), out);
	assert_string_equal(out, "000fa5ff");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_hex),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
