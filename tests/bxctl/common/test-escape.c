/*
 * test-escape.c: src/bxctl/common/escape.h, the rules for printing untrusted text
 * as data, one case per rule, and a sweep over every code point; the
 * stream form, cut every way, printing what the whole prints.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bxctl/common/escape.h"

/* The escaped form of s[0..len), checked against escape_write() too. */
static void
expect(const char *s, size_t len, const char *want)
{
	char *got, *mem = NULL;
	size_t memlen = 0;
	FILE *fp;

	got = escape_string(s, len);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	assert_non_null(fp = open_memstream(&mem, &memlen));
	assert_int_equal(escape_write(fp, s, len), 0);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(memlen, strlen(want));
	assert_memory_equal(mem, want, memlen);
	free(mem);
}

#define EXPECT(lit, want)	expect((lit), sizeof(lit) - 1, (want))

static void
test_plain_text_unchanged(void **state)
{
	(void)state;
	EXPECT("", "");
	EXPECT("rm -rf /home/kyle/scratch/build",
	    "rm -rf /home/kyle/scratch/build");
	EXPECT("{\"command\": \"ls\"} \\n \\u001b", "{\"command\": \"ls\"} "
	    "\\n \\u001b");
	/* Printable non-ASCII passes: é, €, a CJK character, an emoji. */
	EXPECT("caf\xc3\xa9 \xe2\x82\xac \xe4\xb8\xad \xf0\x9f\x98\x80",
	    "caf\xc3\xa9 \xe2\x82\xac \xe4\xb8\xad \xf0\x9f\x98\x80");
}

static void
test_c0_and_del(void **state)
{
	(void)state;
	EXPECT("a\nb\tc\r", "a\\u000ab\\u0009c\\u000d");
	EXPECT("\x01\x1f\x7f", "\\u0001\\u001f\\u007f");
	expect("x\0y", 3, "x\\u0000y");
}

static void
test_terminal_sequences(void **state)
{
	(void)state;
	/* CSI: colour, cursor up, clear screen. */
	EXPECT("\x1b[31mred\x1b[0m", "\\u001b[31mred\\u001b[0m");
	EXPECT("\x1b[2J\x1b[1A", "\\u001b[2J\\u001b[1A");
	/* OSC: set the window title, a hyperlink, ended by BEL or ST. */
	EXPECT("\x1b]0;pwned\x07", "\\u001b]0;pwned\\u0007");
	EXPECT("\x1b]8;;http://x\x1b\\a\x1b]8;;\x1b\\",
	    "\\u001b]8;;http://x\\u001b\\a\\u001b]8;;\\u001b\\");
}

static void
test_c1_controls(void **state)
{
	(void)state;
	/* U+009B is CSI on its own, U+009D OSC, U+0085 NEL. */
	EXPECT("\xc2\x9b" "31m", "\\u009b31m");
	EXPECT("\xc2\x80\xc2\x85\xc2\x9d\xc2\x9f",
	    "\\u0080\\u0085\\u009d\\u009f");
	/* U+00A0 is past the C1 range and prints. */
	EXPECT("\xc2\xa0", "\xc2\xa0");
}

static void
test_invisible_and_bidi(void **state)
{
	(void)state;
	EXPECT("a\xe2\x80\x8b" "b", "a\\u200bb");			/* ZWSP */
	EXPECT("\xe2\x80\x8c\xe2\x80\x8d\xe2\x80\x8e\xe2\x80\x8f",
	    "\\u200c\\u200d\\u200e\\u200f");
	EXPECT("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae",
	    "\\u202a\\u202b\\u202c\\u202d\\u202e");
	EXPECT("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
	    "\\u2066\\u2067\\u2068\\u2069");
	EXPECT("\xef\xbb\xbf" "x", "\\ufeffx");				/* BOM */
	/* Added beyond the brief (docs/decisions.md). */
	EXPECT("\xd8\x9c\xe2\x80\xa8\xe2\x80\xa9\xe2\x81\xa0\xe2\x81\xa4",
	    "\\u061c\\u2028\\u2029\\u2060\\u2064");
	/* Neighbours that print. */
	EXPECT("\xe2\x80\x8a\xe2\x80\x90\xe2\x80\xaf\xe2\x81\xaa",
	    "\xe2\x80\x8a\xe2\x80\x90\xe2\x80\xaf\xe2\x81\xaa");
}

static void
test_invalid_utf8(void **state)
{
	(void)state;
	EXPECT("\xff\xfe", "\\xff\\xfe");
	EXPECT("a\x80" "b", "a\\x80b");				/* stray continuation */
	EXPECT("\xc3", "\\xc3");					/* truncated at the end */
	EXPECT("\xe2\x82" "x", "\\xe2\\x82x");			/* truncated in the middle */
	EXPECT("\xc0\xaf", "\\xc0\\xaf");				/* overlong '/' */
	EXPECT("\xe0\x80\x9b", "\\xe0\\x80\\x9b");		/* overlong CSI */
	EXPECT("\xed\xa0\x80", "\\xed\\xa0\\x80");		/* surrogate */
	EXPECT("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");	/* past U+10FFFF */
	EXPECT("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");
	/* An ESC hidden after a broken lead byte is still caught. */
	EXPECT("\xc3\x1b[31m", "\\xc3\\u001b[31m");
}

/*
 * Every code point through escape_string(): the output is the character
 * itself or its \uXXXX form, exactly as escape_needed() says, and never
 * holds a control byte.
 */
static void
test_every_code_point(void **state)
{
	char in[5], want[16], *got;
	uint32_t cp;
	size_t n;

	(void)state;
	for (cp = 0; cp <= 0x10ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		if (cp < 0x80) {
			in[0] = (char)cp;
			n = 1;
		} else if (cp < 0x800) {
			in[0] = (char)(0xc0 | (cp >> 6));
			in[1] = (char)(0x80 | (cp & 0x3f));
			n = 2;
		} else if (cp < 0x10000) {
			in[0] = (char)(0xe0 | (cp >> 12));
			in[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
			in[2] = (char)(0x80 | (cp & 0x3f));
			n = 3;
		} else {
			in[0] = (char)(0xf0 | (cp >> 18));
			in[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
			in[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
			in[3] = (char)(0x80 | (cp & 0x3f));
			n = 4;
		}
		if (escape_needed(cp))
			snprintf(want, sizeof(want), "\\u%04x", (unsigned)cp);
		else {
			memcpy(want, in, n);
			want[n] = '\0';
		}
		got = escape_string(in, n);
		assert_non_null(got);
		assert_string_equal(got, want);
		free(got);
	}
}

static void
test_escape_buf_cuts_whole_steps(void **state)
{
	char buf[12];

	(void)state;
	assert_string_equal(escape_buf("short", buf, sizeof(buf)), "short");
	assert_string_equal(escape_buf("exactly 11c", buf, sizeof(buf)),
	    "exactly 11c");
	assert_string_equal(escape_buf("twelve chars", buf, sizeof(buf)),
	    "twelve c...");
	/* An escape that does not fit is left out whole. */
	assert_string_equal(escape_buf("abcde\x1b[31m", buf, sizeof(buf)),
	    "abcde...");
}

/* s[0..len) through a stream, cut before each offset in cuts. */
static char *
streamed(const char *s, size_t len, const size_t *cuts, size_t ncuts,
    size_t *ret_len)
{
	struct escape_stream es;
	char *mem = NULL;
	size_t memlen = 0, at = 0, i, to;
	FILE *fp;

	assert_non_null(fp = open_memstream(&mem, &memlen));
	escape_stream_init(&es);
	for (i = 0; i <= ncuts; i++) {
		to = i < ncuts ? cuts[i] : len;
		assert_int_equal(escape_stream_write(&es, fp, s + at, to - at),
		    0);
		at = to;
	}
	assert_int_equal(escape_stream_end(&es, fp), 0);
	assert_int_equal(fclose(fp), 0);
	*ret_len = memlen;
	return mem;
}

static void
same_as_whole(const char *s, size_t len, const size_t *cuts, size_t ncuts)
{
	char *want, *got;
	size_t gotlen;

	want = escape_string(s, len);
	got = streamed(s, len, cuts, ncuts, &gotlen);
	if (gotlen != strlen(want) || memcmp(got, want, gotlen) != 0)
		fail_msg("cut %zu times (first at %zu): \"%.*s\", not \"%s\"",
		    ncuts, ncuts > 0 ? cuts[0] : 0, (int)gotlen, got, want);
	free(got);
	free(want);
}

/*
 * Hostile text in pieces: an ESC alone then its sequence, a character cut
 * anywhere, invalid bytes, bidi and zero-width characters. Every cut in
 * two and in three, and one byte at a time, prints what the whole does.
 */
static void
test_stream_every_cut(void **state)
{
	static const char text[] =
	    "\x1b" "[2J\x1b]0;owned\x07 caf\xc3\xa9 \xe2\x80\xae" "txt "
	    "\xf0\x9f\x98\x80 a\xe2\x80\x8b" "b \xc2\x9b" "31m \xff\xfe "
	    "\xc3\x28 \xed\xa0\x80 \xc0\xaf \xe2\x82 \xf0\x9f\x98 "
	    "\xef\xbb\xbf\x7f\xe2\x81\xa6" "x\xe2\x81\xa9\xe2";
	size_t len = sizeof(text) - 1, cuts[2], i, j, bytes[sizeof(text)];

	(void)state;
	same_as_whole(text, len, NULL, 0);
	for (i = 0; i <= len; i++) {
		cuts[0] = i;
		same_as_whole(text, len, cuts, 1);
		for (j = i; j <= len; j++) {
			cuts[1] = j;
			same_as_whole(text, len, cuts, 2);
		}
	}
	for (i = 0; i < len; i++)
		bytes[i] = i + 1;
	same_as_whole(text, len, bytes, len - 1);
}

/* What the pieces print, exactly. */
static void
test_stream_pieces(void **state)
{
	static const size_t esc[] = { 1 }, euro[] = { 1, 2 }, bad[] = { 2 };
	struct escape_stream es;
	char *got;
	size_t len;
	FILE *fp;

	(void)state;
	/* A lone ESC is escaped at once: nothing of it waits. */
	got = streamed("\x1b[2J", 4, esc, 1, &len);
	assert_string_equal(got, "\\u001b[2J");
	free(got);
	assert_non_null(fp = open_memstream(&got, &len));
	escape_stream_init(&es);
	assert_int_equal(escape_stream_write(&es, fp, "\x1b", 1), 0);
	assert_int_equal(fflush(fp), 0);
	assert_string_equal(got, "\\u001b");
	/* Half a character waits for the rest, and shows nothing yet. */
	assert_int_equal(escape_stream_write(&es, fp, "\xe2\x82", 2), 0);
	assert_int_equal(fflush(fp), 0);
	assert_string_equal(got, "\\u001b");
	assert_int_equal(escape_stream_write(&es, fp, "\xac", 1), 0);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(got, "\\u001b\xe2\x82\xac");
	free(got);
	/* A character in three pieces is printed whole. */
	got = streamed("\xe2\x82\xac!", 4, euro, 2, &len);
	assert_string_equal(got, "\xe2\x82\xac!");
	free(got);
	/* A sequence the next piece breaks is invalid, byte by byte. */
	got = streamed("\xe2\x82(", 3, bad, 1, &len);
	assert_string_equal(got, "\\xe2\\x82(");
	free(got);
	/* One that the stream's end leaves incomplete, too. */
	got = streamed("ok\xf0\x9f", 4, NULL, 0, &len);
	assert_string_equal(got, "ok\\xf0\\x9f");
	free(got);
}

/* How bxctl says it wrote a file: the directory as data, not the name. */
static void
test_written(void **state)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&mem, &memlen));
	escape_written(fp, "added grant", "notes", "/home/k/\x1b[2Jgrants");
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(mem, "added grant notes (/home/k/\\u001b[2Jgrants/"
	    "notes.toml)\n");
	free(mem);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_unchanged),
		cmocka_unit_test(test_c0_and_del),
		cmocka_unit_test(test_terminal_sequences),
		cmocka_unit_test(test_c1_controls),
		cmocka_unit_test(test_invisible_and_bidi),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_every_code_point),
		cmocka_unit_test(test_escape_buf_cuts_whole_steps),
		cmocka_unit_test(test_stream_every_cut),
		cmocka_unit_test(test_stream_pieces),
		cmocka_unit_test(test_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
