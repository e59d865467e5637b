/*
 * escape-fuzzer.c: libFuzzer harness for the escape rules
 * (src/proto/escape.c), the one place the owner's terminal and bxbridge's
 * posts meet text the model, a tool or a peer wrote. The first byte is escape_buf's buffer
 * size; the rest is the text. The text also goes through an escape_stream
 * (how bxctl prints the model's deltas) cut three ways: a byte at a time,
 * in pieces whose sizes come from a hash of the whole input (empty ones
 * too), and into a writer that fails after a number of bytes from that
 * hash. The cuts take no byte of the input, so every seed means what it
 * meant before the stream was fuzzed.
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
 *   line the terminal may see as it is;
 * - the stream, however the text is cut (inside a UTF-8 sequence, between
 *   ESC and the rest of its sequence), prints escape_string's output byte
 *   for byte, and what each piece adds is itself printable, so the
 *   terminal never sees half a character or a raw control between pieces;
 * - a write that fails shows: the stream's call returns -1, or stdio's
 *   error flag is set (see check_stream_fails).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/escape.h"
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

/* FNV-1a of the input: where the stream's cuts come from. */
static uint64_t
hash(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	/* xorshift never leaves 0, and would cut empty pieces forever. */
	return h != 0 ? h : 1;
}

/* The next piece's size (xorshift64): mostly short, at times long. */
static size_t
cut_size(uint64_t *h)
{
	*h ^= *h << 13;
	*h ^= *h >> 7;
	*h ^= *h << 17;
	return (*h >> 8) % 4 == 0 ? (size_t)(*h >> 16) % 257 :
	    (size_t)(*h >> 16) % 9;
}

/*
 * The text through a stream, in pieces of step bytes (0: sizes from h);
 * after each piece, what it added is printable and continues want.
 */
static void
check_stream(const char *s, size_t len, const char *want, size_t step,
    uint64_t h)
{
	struct escape_stream es;
	char *buf = NULL;
	size_t blen = 0, at = 0, n, seen = 0, wlen = strlen(want);
	FILE *fp;

	check((fp = open_memstream(&buf, &blen)) != NULL);
	escape_stream_init(&es);
	while (at < len) {
		n = step > 0 ? step : cut_size(&h);
		if (n > len - at)
			n = len - at;
		check(escape_stream_write(&es, fp, s + at, n) == 0);
		check(es.es_nheld <= sizeof(es.es_held));
		at += n;
		check(fflush(fp) == 0);
		check(blen <= wlen && memcmp(buf + seen, want + seen,
		    blen - seen) == 0);
		check(fuzz_printable(buf + seen, blen - seen));
		seen = blen;
	}
	check(escape_stream_end(&es, fp) == 0);
	check(es.es_nheld == 0);
	check(fclose(fp) == 0);
	check(blen == wlen && memcmp(buf, want, blen) == 0);
	free(buf);
}

/*
 * A writer that takes *cookie more bytes, then fails (a closed pipe). It
 * reports the failure as fopencookie(3) asks, with a short count, never -1:
 * glibc's unbuffered fwrite takes -1 for SIZE_MAX bytes written and reads
 * past the caller's buffer (fuzz/regress/escape/ keeps the inputs that
 * crashed the harness when its writer returned -1).
 */
static ssize_t
cut_write(void *cookie, const char *p, size_t n)
{
	size_t *left = cookie;

	(void)p;
	if (n > *left)
		n = *left;
	*left -= n;
	return (ssize_t)n;
}

/*
 * The stream into a writer that fails past some byte (a closed pipe): the
 * failure shows and the stream's state stays sound. A call whose fwrite
 * comes back short returns -1; glibc's unbuffered stream may still report
 * a refused single byte as written, with only its error flag set.
 */
static void
check_stream_fails(const char *s, size_t len, const char *want, uint64_t h)
{
	cookie_io_functions_t io = { NULL, cut_write, NULL, NULL };
	struct escape_stream es;
	size_t at = 0, n, wlen = strlen(want), left;
	int rc = 0;
	FILE *fp;

	if (wlen == 0)
		return;
	left = (size_t)(h % wlen);
	check((fp = fopencookie(&left, "w", io)) != NULL);
	/* Unbuffered: the failure reaches the fwrite that met it. */
	check(setvbuf(fp, NULL, _IONBF, 0) == 0);
	escape_stream_init(&es);
	while (at < len && rc == 0) {
		n = cut_size(&h);
		if (n > len - at)
			n = len - at;
		rc = escape_stream_write(&es, fp, s + at, n);
		check(es.es_nheld <= sizeof(es.es_held));
		at += n;
	}
	if (rc == 0)
		rc = escape_stream_end(&es, fp);
	/* All of want was more than the writer takes. */
	check(rc == -1 || ferror(fp));
	(void)fclose(fp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	size_t len, olen;
	uint64_t h;
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
	h = hash(data, size);
	check_stream(s, len, out, 1, h);
	check_stream(s, len, out, 0, h);
	check_stream_fails(s, len, out, h);
	free(out);
	check_buf(s, len, 4 + data[0] % 64);
	check_problem(s, len, (data[0] & 0x80) != 0);
	return 0;
}
