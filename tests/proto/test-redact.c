/*
 * test-redact.c: the redactor (src/proto/redact.c) takes each form of
 * spec 2.5 out of a response, wherever it lies and however it is mixed,
 * counts what it took, cuts to the limit without leaving a start of an
 * occurrence at the end, stays linear on periodic values, withholds what
 * it cannot clean, and refuses bad arguments saying which.
 *
 * The encoded inputs and the expected outputs were written with Python's
 * base64, binascii and json modules, apart from the code under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/redact.h"
#include "freecheck.h"

/* 17 bytes with '>', '?' and '/', so base64 and base64url differ. */
#define VALUE	"s3cr3t>T0k?n/42~x"
#define MARK	"[secret api]"

static struct bx_redactor *
bearer(void)
{
	const char *forms[] = { VALUE, "Bearer " VALUE };
	struct bx_redactor *rd;
	struct bx_error err;

	rd = bx_redactor_new("api", forms, 2, &err);
	assert_non_null(rd);
	return rd;
}

/* in redacted with limit gives want, having removed removed. */
static void
expect_limit(const struct bx_redactor *rd, const char *in, size_t limit,
    const char *want, size_t removed)
{
	struct bx_error err;
	size_t len = 0, n = 0;
	char *out = NULL;

	if (bx_redact(rd, in, strlen(in), limit, &out, &len, &n, &err) != 0)
		fail_msg("bx_redact(\"%s\"): %s", in, err.msg);
	if (strcmp(out, want) != 0 || n != removed)
		fail_msg("bx_redact(\"%s\"):\n got \"%s\" (%zu removed)\n"
		    "want \"%s\" (%zu removed)", in, out, n, want, removed);
	assert_int_equal(len, strlen(want));
	free(out);
}

static void
expect(const struct bx_redactor *rd, const char *in, const char *want,
    size_t removed)
{
	expect_limit(rd, in, SIZE_MAX, want, removed);
}

static void
test_plain_anywhere(void **state)
{
	struct bx_redactor *rd = bearer();

	(void)state;
	expect(rd, VALUE, MARK, 1);
	expect(rd, "token=" VALUE "&next=1", "token=" MARK "&next=1", 1);
	expect(rd, "{\"v\":\"" VALUE "\"}", "{\"v\":\"" MARK "\"}", 1);
	expect(rd, "ends with " VALUE, "ends with " MARK, 1);
	/* The header value overlaps the value: one marker. */
	expect(rd, "Authorization: Bearer " VALUE "\r\n",
	    "Authorization: " MARK "\r\n", 1);
	/* No occurrence: the bytes come back as they were, NULs and all. */
	expect(rd, "nothing here s3cr3t>T0k?n/42~ end", "nothing here "
	    "s3cr3t>T0k?n/42~ end", 0);
	expect(rd, "", "", 0);
	bx_redactor_free(rd);
}

/* The header kind: the header value is the value, passed twice. */
static void
test_same_form_twice(void **state)
{
	const char *forms[] = { VALUE, VALUE };
	struct bx_redactor *rd;
	struct bx_error err;

	(void)state;
	assert_non_null(rd = bx_redactor_new("api", forms, 2, &err));
	expect(rd, "X-Api-Key: " VALUE "\n", "X-Api-Key: " MARK "\n", 1);
	bx_redactor_free(rd);
}

static void
test_nul_is_text(void **state)
{
	struct bx_redactor *rd = bearer();
	const char in[] = "a\0" VALUE "\0b";
	struct bx_error err;
	size_t len, n;
	char *out;

	(void)state;
	assert_int_equal(bx_redact(rd, in, sizeof(in) - 1, SIZE_MAX, &out,
	    &len, &n, &err), 0);
	assert_int_equal(len, 2 + strlen(MARK) + 2);
	assert_memory_equal(out, "a\0" MARK "\0b", len);
	assert_int_equal(out[len], '\0');
	assert_int_equal(n, 1);
	free(out);
	bx_redactor_free(rd);
}

static void
test_counts(void **state)
{
	const char *forms[] = { "abababab" };
	struct bx_redactor *rd = bearer(), *periodic;
	struct bx_error err;

	(void)state;
	expect(rd, VALUE " and " VALUE, MARK " and " MARK, 2);
	/* Touching occurrences do not overlap: two markers. */
	expect(rd, VALUE VALUE, MARK MARK, 2);
	/* The value in plain and in hex, apart. */
	expect(rd, VALUE " 7333637233743e54306b3f6e2f34327e78 ",
	    MARK " " MARK " ", 2);
	assert_non_null(periodic = bx_redactor_new("p", forms, 1, &err));
	/* Occurrences at 0 and 2 overlap: one marker. */
	expect(periodic, "xababababab.", "x[secret p].", 1);
	bx_redactor_free(periodic);
	bx_redactor_free(rd);
}

static void
test_hex(void **state)
{
	struct bx_redactor *rd = bearer();

	(void)state;
	expect(rd, "id=7333637233743e54306b3f6e2f34327e78;", "id=" MARK ";", 1);
	expect(rd, "7333637233743E54306B3F6E2F34327E78", MARK, 1);
	expect(rd, "0x7333637233743e54306B3F6E2f34327E78.", "0x" MARK ".", 1);
	/* "Bearer " in hex, then the value in hex: one span. */
	expect(rd, "42656172657220" "7333637233743e54306b3f6e2f34327e78",
	    MARK, 1);
	bx_redactor_free(rd);
}

/*
 * base64(filler + VALUE + "!tail") at alignments 0, 1, 2, both alphabets:
 * the characters of the value go, with the partial ones at either end.
 */
static void
test_base64_in_longer_text(void **state)
{
	struct bx_redactor *rd = bearer();

	(void)state;
	expect(rd, "czNjcjN0PlQwaz9uLzQyfnghdGFpbA==", MARK "hdGFpbA==", 1);
	expect(rd, "UXMzY3IzdD5UMGs/bi80Mn54IXRhaWw=", "U" MARK "IXRhaWw=", 1);
	expect(rd, "UXMzY3IzdD5UMGs_bi80Mn54IXRhaWw=", "U" MARK "IXRhaWw=", 1);
	expect(rd, "UVFzM2NyM3Q+VDBrP24vNDJ+eCF0YWls", "UV" MARK "F0YWls", 1);
	expect(rd, "UVFzM2NyM3Q-VDBrP24vNDJ-eCF0YWls", "UV" MARK "F0YWls", 1);
	bx_redactor_free(rd);
}

/* The value's own base64, with and without padding, and at its end. */
static void
test_base64_whole(void **state)
{
	struct bx_redactor *rd = bearer();

	(void)state;
	expect(rd, "k=czNjcjN0PlQwaz9uLzQyfng=;", "k=" MARK ";", 1);
	expect(rd, "k=czNjcjN0PlQwaz9uLzQyfng;", "k=" MARK ";", 1);
	expect(rd, "UXMzY3IzdD5UMGs/bi80Mn54", "U" MARK, 1);
	expect(rd, "UVFzM2NyM3Q+VDBrP24vNDJ+eA==", "UV" MARK, 1);
	expect(rd, "UVFzM2NyM3Q-VDBrP24vNDJ-eA", "UV" MARK, 1);
	/* base64 percent-encoded in a URL: '+' and '=' as %2B and %3D. */
	expect(rd, "?t=UVFzM2NyM3Q%2BVDBrP24vNDJ%2BeA%3D%3D&x",
	    "?t=UV" MARK "&x", 1);
	bx_redactor_free(rd);
}

static void
test_percent(void **state)
{
	struct bx_redactor *rd = bearer();

	(void)state;
	expect(rd, "q=%73%33%63%72%33%74%3E%54%30%6B%3F%6E%2F%34%32%7E%78&",
	    "q=" MARK "&", 1);
	expect(rd, "q=%73%33%63%72%33%74%3e%54%30%6b%3f%6e%2f%34%32%7e%78&",
	    "q=" MARK "&", 1);
	/* Only what RFC 3986 does not leave unreserved. */
	expect(rd, "q=s3cr3t%3ET0k%3Fn%2F42~x&", "q=" MARK "&", 1);
	/* Any other mix, cases mixed too. */
	expect(rd, "q=s%33c%72%33t>%54%30k%3fn/%342%7ex", "q=" MARK, 1);
	expect(rd, "Bearer%20" VALUE, MARK, 1);
	bx_redactor_free(rd);
}

static void
test_json(void **state)
{
	struct bx_redactor *rd = bearer();

	(void)state;
	expect(rd, "{\"t\":\"s3cr3t>T0k?n\\/42~x\"}", "{\"t\":\"" MARK "\"}", 1);
	expect(rd, "\"\\u0073\\u0033\\u0063\\u0072\\u0033\\u0074\\u003E\\u0054"
	    "\\u0030\\u006B\\u003F\\u006E\\u002F\\u0034\\u0032\\u007E\\u0078\"",
	    "\"" MARK "\"", 1);
	expect(rd, "\"s3cr3t\\u003eT0\\u006b?n\\/42\\u007Ex\"", "\"" MARK "\"",
	    1);
	/* JSON and percent in one occurrence. */
	expect(rd, "s3cr%33t\\u003eT0k%3Fn\\/42~x", MARK, 1);
	/* A value with a quote and a backslash, escaped by JSON. */
	{
		const char *forms[] = { "pa\"ss\\word" };
		struct bx_redactor *q;
		struct bx_error err;

		assert_non_null(q = bx_redactor_new("q", forms, 1, &err));
		expect(q, "{\"p\":\"pa\\\"ss\\\\word\"}", "{\"p\":\"[secret q]\"}",
		    1);
		bx_redactor_free(q);
	}
	bx_redactor_free(rd);
}

static void
test_basic(void **state)
{
	/* base64("kyle:" VALUE), as the caller passes it. */
	const char *forms[] = { VALUE, "Basic a3lsZTpzM2NyM3Q+VDBrP24vNDJ+eA==",
	    "a3lsZTpzM2NyM3Q+VDBrP24vNDJ+eA==" };
	struct bx_redactor *rd;
	struct bx_error err;

	(void)state;
	assert_non_null(rd = bx_redactor_new("api", forms, 3, &err));
	expect(rd, "\"Authorization\": \"Basic a3lsZTpzM2NyM3Q+VDBrP24vNDJ+eA"
	    "==\"", "\"Authorization\": \"" MARK "\"", 1);
	expect(rd, "auth a3lsZTpzM2NyM3Q+VDBrP24vNDJ+eA== end",
	    "auth " MARK " end", 1);
	/* The base64 of the base64 (a re-encoding echo). */
	expect(rd, "YTNsc1pUcHpNMk55TTNRK1ZEQnJQMjR2TkRKK2VBPT0=", MARK, 1);
	bx_redactor_free(rd);
}

/* A response that ends inside an occurrence loses that start. */
static void
test_cut_start_at_end(void **state)
{
	struct bx_redactor *rd = bearer();

	(void)state;
	/* 8 and 16 bytes of the value go, 7 stay. */
	expect(rd, "body s3cr3t>T", "body ", 1);
	expect(rd, "body s3cr3t>T0k?n/42~", "body ", 1);
	expect(rd, "body s3cr3t>", "body s3cr3t>", 0);
	/* Of the hex, the base64, and "Bearer ". */
	expect(rd, "id 7333637233", "id ", 1);
	expect(rd, "id 7333637", "id 7333637", 0);
	expect(rd, "t czNjcjN0PlQwa", "t ", 1);
	expect(rd, "h: Bearer s3", "h: ", 1);
	/* Percent-encoded: 8 bytes of the form as written, an escape cut short too. */
	expect(rd, "x=%73%33%63", "x=", 1);
	expect(rd, "x=%73%33%6", "x=", 1);
	expect(rd, "x=s3%63%72%3", "x=", 1);
	expect(rd, "x=%73%3", "x=%73%3", 0);
	expect(rd, "j=\"\\u0073\\u00", "j=\"", 1);
	bx_redactor_free(rd);
}

/* The limit applies after redaction; its cut never splits a marker. */
static void
test_limit(void **state)
{
	struct bx_redactor *rd = bearer();

	(void)state;
	expect_limit(rd, "0123456789" VALUE "tail", 100,
	    "0123456789" MARK "tail", 1);
	expect_limit(rd, "0123456789" VALUE "tail", 10 + strlen(MARK),
	    "0123456789" MARK, 1);
	/* Inside the marker: the marker goes; it was still removed. */
	expect_limit(rd, "0123456789" VALUE "tail", 14, "0123456789", 1);
	expect_limit(rd, "0123456789" VALUE "tail", 10, "0123456789", 1);
	expect_limit(rd, "0123456789" VALUE "tail", 4, "0123", 1);
	expect_limit(rd, "abc", 0, "", 0);
	/* A cut in text that begins the value: the start goes. */
	expect_limit(rd, "see s3cr3t>T0k?n/ later", 17, "see ", 1);
	expect_limit(rd, "see s3cr3t>T0k?n/ later", 11, "see s3cr3t>", 0);
	bx_redactor_free(rd);
}

/* What a marker makes with its neighbours is found by the next pass. */
static void
test_marker_makes_another(void **state)
{
	/* "[secret k1]" ends in "t k1]": with "xyzw" after, the value. */
	const char *forms[] = { "t k1]xyzw" };
	struct bx_redactor *rd;
	struct bx_error err;

	(void)state;
	assert_non_null(rd = bx_redactor_new("k1", forms, 1, &err));
	expect(rd, "t k1]xyzwxyzw", "[secre[secret k1]", 2);
	bx_redactor_free(rd);
}

/* A value its own marker recreates forever: nothing is given out. */
static void
test_withheld(void **state)
{
	const char *forms[] = { "[secret k1]" };
	struct bx_redactor *rd;
	struct bx_error err;
	char *out = (char *)"untouched";
	size_t len = 7, n = 7;

	(void)state;
	assert_non_null(rd = bx_redactor_new("k1", forms, 1, &err));
	assert_int_equal(bx_redact(rd, "a [secret k1] b", 15, SIZE_MAX, &out,
	    &len, &n, &err), -1);
	assert_non_null(strstr(err.msg, "[secret k1]"));
	assert_non_null(strstr(err.msg, "withheld"));
	assert_string_equal(out, "untouched");
	assert_int_equal(len, 7);
	assert_int_equal(n, 7);
	bx_redactor_free(rd);
}

/*
 * A value of 4096 'a' over a MiB of 'a' (or of its base64, its
 * percent-encoding, its hex): every position matches, and
 * the search is linear, so this takes a fraction of a second, not the
 * hours a naive search would.
 */
/*
 * Nothing made from the value goes back to the allocator as it was: the
 * patterns (plain, hex, base64 cores), the decoded copy of an encoded
 * echo, and the start of an occurrence a cut leaves past the end of the
 * output (freecheck.h sees each free and realloc).
 */
static void
test_wiped_before_free(void **state)
{
	const char *in = "a s3cr3t%3ET0k%3Fn%2F42~x b czNjcjN0PlQwaz9uLzQyfng= "
	    "c 7333637233743e54306b3f6e2f34327e78 d s3cr3t>T0k?n";
	struct bx_redactor *rd;
	struct bx_error err;
	size_t len, n;
	char *out;

	(void)state;
	freecheck_watch("cr3t>T0k", 8);
	freecheck_watch("czNjcjN0PlQwaz9u", 16);
	freecheck_watch("7333637233743e54306b", 20);
	rd = bearer();
	assert_int_equal(bx_redact(rd, in, strlen(in), SIZE_MAX, &out, &len,
	    &n, &err), 0);
	assert_string_equal(out, "a " MARK " b " MARK " c " MARK " d ");
	assert_int_equal(n, 4);
	free(out);
	bx_redactor_free(rd);
	assert_int_equal(freecheck_stop(), 0);
}

static void
test_periodic_worst_case(void **state)
{
	size_t vlen = 4096, len = 1024 * 1024, olen, n;
	char *value, *header, *in, *out;
	const char *forms[2];
	struct bx_redactor *rd;
	struct bx_error err;

	(void)state;
	assert_non_null(value = malloc(vlen + 1));
	assert_non_null(header = malloc(vlen + 8));
	assert_non_null(in = malloc(len));
	memset(value, 'a', vlen);
	value[vlen] = '\0';
	memcpy(header, "Bearer ", 7);
	memcpy(header + 7, value, vlen + 1);
	forms[0] = value;
	forms[1] = header;
	assert_non_null(rd = bx_redactor_new("big", forms, 2, &err));
	memset(in, 'a', len);
	assert_int_equal(bx_redact(rd, in, len, SIZE_MAX, &out, &olen, &n,
	    &err), 0);
	assert_string_equal(out, "[secret big]");
	assert_int_equal(n, 1);
	free(out);
	/* base64 of the 'a's: "YWFh" again and again, at every alignment. */
	for (size_t i = 0; i < len; i++)
		in[i] = "YWFh"[i % 4];
	assert_int_equal(bx_redact(rd, in, len, SIZE_MAX, &out, &olen, &n,
	    &err), 0);
	assert_string_equal(out, "[secret big]");
	assert_int_equal(n, 1);
	free(out);
	/* Percent-encoded, so the decoded copy is where it matches. */
	for (size_t i = 0; i < len; i++)
		in[i] = "%61"[i % 3];
	assert_int_equal(bx_redact(rd, in, len - len % 3, SIZE_MAX, &out,
	    &olen, &n, &err), 0);
	assert_string_equal(out, "[secret big]");
	assert_int_equal(n, 1);
	free(out);
	/* Its hex, with a byte in the middle that is none of the forms. */
	for (size_t i = 0; i < len; i++)
		in[i] = "61"[i % 2];
	in[len / 2] = 'x';
	assert_int_equal(bx_redact(rd, in, len, SIZE_MAX, &out, &olen, &n,
	    &err), 0);
	assert_string_equal(out, "[secret big]x1[secret big]");
	assert_int_equal(n, 2);
	free(out);
	bx_redactor_free(rd);
	free(in);
	free(header);
	free(value);
}

static void
expect_new_fails(const char *name, const char *const *forms, size_t n,
    const char *says)
{
	struct bx_error err;

	assert_null(bx_redactor_new(name, forms, n, &err));
	if (strstr(err.msg, says) == NULL)
		fail_msg("error \"%s\" does not say \"%s\"", err.msg, says);
}

static void
test_bad_arguments(void **state)
{
	const char *good[] = { VALUE };
	const char *shortf[] = { VALUE, "1234567" };
	const char *newline[] = { "abc\ndefgh" };
	const char *nullf[] = { VALUE, NULL };
	const char *many[BX_REDACT_FORMS_MAX + 1];
	char long_name[BX_REDACT_NAME_MAX + 2], *huge;
	struct bx_redactor *rd;
	struct bx_error err;
	size_t i, len, n;
	char *out;

	(void)state;
	for (i = 0; i < BX_REDACT_FORMS_MAX + 1; i++)
		many[i] = VALUE;
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	expect_new_fails(NULL, good, 1, "no name");
	expect_new_fails("", good, 1, "no name");
	expect_new_fails(long_name, good, 1, "65 characters");
	expect_new_fails("Api", good, 1, "character 1 is not one of");
	expect_new_fails("my key", good, 1, "character 3");
	expect_new_fails("api", NULL, 0, "no form");
	expect_new_fails("api", good, 0, "no form");
	expect_new_fails("api", many, BX_REDACT_FORMS_MAX + 1, "9 forms");
	expect_new_fails("api", shortf, 2, "form 2 is 7 bytes");
	expect_new_fails("api", newline, 1, "form 1: byte 4 is not printable");
	expect_new_fails("api", nullf, 2, "form 2 is NULL");
	/* The longest name and form are fine; one byte more is not. */
	long_name[BX_REDACT_NAME_MAX] = '\0';
	assert_non_null(rd = bx_redactor_new(long_name, good, 1, &err));
	bx_redactor_free(rd);
	assert_non_null(huge = malloc(BX_REDACT_FORM_MAX + 2));
	memset(huge, 'k', BX_REDACT_FORM_MAX + 1);
	huge[BX_REDACT_FORM_MAX + 1] = '\0';
	good[0] = huge;
	expect_new_fails("api", good, 1, "8193 bytes");
	huge[BX_REDACT_FORM_MAX] = '\0';
	assert_non_null(rd = bx_redactor_new("api", good, 1, &err));
	free(huge);
	/* Too long an input is refused before a byte is read. */
	assert_int_equal(bx_redact(rd, "x", (size_t)BX_REDACT_INPUT_MAX + 1,
	    SIZE_MAX, &out, &len, &n, &err), -1);
	assert_non_null(strstr(err.msg, "16777217 bytes"));
	bx_redactor_free(rd);
	bx_redactor_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wiped_before_free),
		cmocka_unit_test(test_plain_anywhere),
		cmocka_unit_test(test_same_form_twice),
		cmocka_unit_test(test_nul_is_text),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_base64_in_longer_text),
		cmocka_unit_test(test_base64_whole),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_cut_start_at_end),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_marker_makes_another),
		cmocka_unit_test(test_withheld),
		cmocka_unit_test(test_periodic_worst_case),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
