/*
 * escape-fuzzer.c: libFuzzer harness for bxctl's escape rules
 * (src/bxctl/escape.c), the one place the owner's terminal meets text the
 * model, a tool or a peer wrote. The first byte is escape_buf's buffer
 * size; the rest is the text.
 *
 * What must hold, or the harness aborts:
 * - escape_string's output is valid UTF-8 with no byte below 0x20 (the
 *   rules escape the newline too), no DEL, no C1 control (U+0080 to
 *   U+009F), and none of the characters that reorder or hide text: the
 *   bidi controls U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
 *   U+2069, the zero-width U+200B to U+200D, U+2060 to U+2064, U+FEFF,
 *   and the separators U+2028, U+2029; and it is at most ESCAPE_GROWTH
 *   times the input;
 * - valid UTF-8 that needs no escape passes unchanged, and
 *   escape_valid_utf8 agrees with an oracle written apart;
 * - escape_write prints exactly escape_string's output;
 * - escape_buf fits its buffer, and is escape_string's output or a cut of
 *   it after a whole step, ending in "...";
 * - escape_problem, with the text's halves as file and problem, prints one
 *   line the terminal may see as it is.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/escape.h"
#include "fuzz.h"

#define FUZZ_INPUT_MAX	(64 * 1024)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_output(const char *out, size_t len)
{
	check(fuzz_printable(out, len));
}

static void
check_write(const char *s, size_t len, const char *want)
{
	char *buf = NULL;
	size_t blen = 0;
	FILE *fp;

	check((fp = open_memstream(&buf, &blen)) != NULL);
	check(escape_write(fp, s, len) == 0);
	check(fclose(fp) == 0);
	check(blen == strlen(want) && memcmp(buf, want, blen) == 0);
	free(buf);
}

/* escape_buf of the text up to its first NUL, into size bytes. */
static void
check_buf(const char *s, size_t len, size_t size)
{
	char *cs, *whole, *buf;
	size_t wlen, blen;

	check((cs = strndup(s, len)) != NULL);
	check((whole = escape_string(cs, strlen(cs))) != NULL);
	check((buf = malloc(size + 16)) != NULL);
	memset(buf, 'X', size + 16);
	escape_buf(cs, buf, size);
	check(memchr(buf, '\0', size) != NULL);
	check(buf[size] == 'X');
	wlen = strlen(whole);
	blen = strlen(buf);
	if (strcmp(buf, whole) != 0) {
		check(blen >= 3 && strcmp(buf + blen - 3, "...") == 0);
		check(memcmp(buf, whole, blen - 3) == 0 && blen - 3 < wlen);
		check_output(buf, blen);
	}
	free(buf);
	free(whole);
	free(cs);
}

/* A grant file's problem, FILE:LINE: PROBLEM, from the text's two halves. */
static void
check_problem(const char *s, size_t len, bool has_line)
{
	char *file, *problem, *buf = NULL;
	size_t blen = 0;
	FILE *fp;

	check((file = strndup(s, len / 2)) != NULL);
	check((problem = strndup(s + len / 2, len - len / 2)) != NULL);
	check((fp = open_memstream(&buf, &blen)) != NULL);
	escape_problem(fp, file, has_line, 18446744073709551615u, problem);
	check(fclose(fp) == 0);
	check(blen > 0 && buf[blen - 1] == '\n');
	check(fuzz_printable(buf, blen - 1));
	free(buf);
	free(problem);
	free(file);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	size_t len, olen;
	char *out;

	if (size < 1 || size > FUZZ_INPUT_MAX)
		return 0;
	len = size - 1;
	check(escape_valid_utf8(s, len) == fuzz_utf8(s, len));
	check((out = escape_string(s, len)) != NULL);
	olen = strlen(out);
	check(olen <= len * ESCAPE_GROWTH);
	check_output(out, olen);
	if (fuzz_printable(s, len))
		check(olen == len && memcmp(out, s, len) == 0);
	check_write(s, len, out);
	free(out);
	check_buf(s, len, 4 + data[0] % 64);
	check_problem(s, len, (data[0] & 0x80) != 0);
	return 0;
}
