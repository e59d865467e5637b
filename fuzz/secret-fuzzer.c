/*
 * secret-fuzzer.c: libFuzzer harness for the secret file decoder
 * (secret_decode.c through secret_parse()), which reads a file the owner
 * wrote and whose every message may be shown to anyone who reads a log
 * (spec 2.1): it must never quote the value, wherever in the file the value
 * was put.
 *
 * The input: a piece (fuzz.h), the value's middle, then the file's text to
 * the end, in which each byte 0xff becomes the value as it is and each byte
 * 0xfe the value with every byte but the space a TOML \u00XX escape (so
 * a basic string decodes to the value while the file's bytes are not it;
 * no message's own words hold a backslash). The value is "@ ", the middle,
 * " @": its length is anything from 4 bytes, and it holds an "@" and a
 * space near each end, which no message's own words hold together and no
 * quoted host or header name can (the decoder quotes those only once they
 * have passed a check that refuses a space). So a message that holds the
 * value, or 8 bytes of its start or end, quoted it; and the same of the
 * escaped form, whose spaces stay as they are.
 *
 * What must hold, or the harness aborts:
 * - secret_parse returns 0 or 1 (never -1: memory does not run out here);
 * - 1: at least one problem, each of the file, a line >= 0, a text; none
 *   of which holds the value, its escaped form or 8 bytes of either end
 *   of either;
 * - 0: no problem, and the secret keeps every rule: a kind, 1 to 256 exact
 *   host names each found by secret_has_host, a value of 8 to 4,096 bytes
 *   of printable ASCII without a space at either end, a header name of
 *   printable ASCII without ":" or a space and none of those spec 2.1
 *   forbids, and the header it
 *   sends as the kind says (basic's base64 decoded here, apart from the
 *   code under test, into a user name without ":" and the value).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "brokerd/secret.h"
#include "proto/hostname.h"
#include "fuzz.h"

/* A secret file is refused past SECRET_FILE_MAX; the expansion may pass it. */
#define FUZZ_INPUT_MAX		(2 * SECRET_FILE_MAX)
#define FILE_PATH		"/fuzz/secrets/fuzz.toml"
#define MARK_RAW		0xff
#define MARK_ESCAPED		0xfe
/* How much of each end of the value no message may hold. */
#define END_BYTES		8
#define MAX_SEEN		64

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

static void
put(struct buf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		check((b->p = realloc(b->p, b->cap)) != NULL);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* What the decoder told its sink. */
struct seen {
	int	 n;
	char	*text[MAX_SEEN];
};

static int
collect(void *ctx, const char *file, int64_t line, const char *problem)
{
	struct seen *s = ctx;

	check(strcmp(file, FILE_PATH) == 0);
	check(line >= 0);
	check(problem[0] != '\0');
	if (s->n < MAX_SEEN)
		check((s->text[s->n] = strdup(problem)) != NULL);
	s->n++;
	return 0;
}

/* No text holds n bytes of p (n >= 1). */
static void
check_absent(const struct seen *s, const char *p, size_t n)
{
	int i;

	for (i = 0; i < s->n && i < MAX_SEEN; i++)
		check(memmem(s->text[i], strlen(s->text[i]), p, n) == NULL);
}

/* Neither the whole of what, nor END_BYTES of its start or its end. */
static void
check_hidden(const struct seen *s, const struct buf *what)
{
	check_absent(s, what->p, what->len);
	if (what->len > END_BYTES) {
		check_absent(s, what->p, END_BYTES);
		check_absent(s, what->p + what->len - END_BYTES, END_BYTES);
	}
}

/*
 * RFC 4648 base64 with padding decoded, written here apart from
 * proto/base64.c; false when in is not such a text.
 */
static bool
unbase64(const char *in, size_t n, struct buf *out)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p;
	unsigned v[4];
	char b[3];
	size_t i, k, pad;

	if (n == 0 || n % 4 != 0)
		return false;
	for (i = 0; i < n; i += 4) {
		pad = 0;
		for (k = 0; k < 4; k++) {
			if (in[i + k] == '=' && i + 4 == n && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad > 0 || in[i + k] == '\0' ||
			    (p = strchr(abc, in[i + k])) == NULL)
				return false;
			v[k] = (unsigned)(p - abc);
		}
		b[0] = (char)(v[0] << 2 | v[1] >> 4);
		b[1] = (char)((v[1] & 15) << 4 | v[2] >> 2);
		b[2] = (char)((v[2] & 3) << 6 | v[3]);
		put(out, b, 3 - pad);
	}
	return true;
}

static bool
printable(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

/* A secret that loaded keeps every rule of the format. */
static void
check_secret(const struct secret *sec)
{
	const char *v = secret_value(sec), *hv = secret_header_value(sec);
	struct buf want = { 0 };
	struct bx_error err;
	size_t i, user, len = strlen(v), n = secret_nhosts(sec);

	check(strcmp(secret_name(sec), "fuzz") == 0);
	check(strcmp(secret_file(sec), FILE_PATH) == 0);
	check(n >= 1 && n <= SECRET_HOSTS_MAX);
	for (i = 0; i < n; i++) {
		check(bx_host_check(secret_host(sec, i),
		    strlen(secret_host(sec, i)), &err) == 0);
		check(secret_has_host(sec, secret_host(sec, i)));
	}
	check(secret_hosts_line(sec) >= 1);
	check(len >= SECRET_VALUE_MIN && len <= SECRET_VALUE_MAX);
	check(printable(v, len) && v[0] != ' ' && v[len - 1] != ' ');
	switch (secret_kind(sec)) {
	case SECRET_BEARER:
		check(strcmp(secret_header_name(sec), "Authorization") == 0);
		put(&want, "Bearer ", 7);
		put(&want, v, len);
		break;
	case SECRET_HEADER:
		check(secret_header_name(sec)[0] != '\0');
		check(printable(secret_header_name(sec),
		    strlen(secret_header_name(sec))));
		check(strchr(secret_header_name(sec), ':') == NULL);
		check(strchr(secret_header_name(sec), ' ') == NULL);
		check(strlen(secret_header_name(sec)) <= SECRET_HEADER_MAX);
		/* Never one that frames or routes the request (spec 2.1). */
		check(strcasecmp(secret_header_name(sec), "Host") != 0);
		check(strcasecmp(secret_header_name(sec), "Content-Length") != 0);
		check(strcasecmp(secret_header_name(sec),
		    "Transfer-Encoding") != 0);
		check(strcasecmp(secret_header_name(sec), "Connection") != 0);
		check(strncasecmp(secret_header_name(sec), "Proxy-", 6) != 0);
		put(&want, v, len);
		break;
	case SECRET_BASIC:
		/* base64 of "user:value", the user printable and without ":". */
		check(strcmp(secret_header_name(sec), "Authorization") == 0);
		check(strncmp(hv, "Basic ", 6) == 0);
		check(unbase64(hv + 6, strlen(hv + 6), &want));
		check(want.len > len + 1);
		user = want.len - len - 1;
		check(memcmp(want.p + user, ":", 1) == 0);
		check(memcmp(want.p + user + 1, v, len) == 0);
		check(printable(want.p, user));
		check(memchr(want.p, ':', user) == NULL);
		break;
	default:
		check(0);
	}
	if (secret_kind(sec) != SECRET_BASIC)
		check(strcmp(hv, want.p) == 0);
	free(want.p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct seen s = { 0 };
	struct secret_sink sink = { collect, &s };
	struct secret *sec = NULL;
	struct bx_error err;
	struct buf value = { 0 }, escaped = { 0 }, file = { 0 };
	const char *middle;
	char esc[8];
	size_t i, mlen;
	int rc;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	middle = fuzz_piece(&in, &mlen);
	put(&value, "@ ", 2);
	put(&value, middle, mlen);
	put(&value, " @", 2);
	/* The space stays as it is: a quoted host cannot hold it. */
	for (i = 0; i < value.len; i++) {
		if (value.p[i] == ' ') {
			put(&escaped, " ", 1);
			continue;
		}
		snprintf(esc, sizeof(esc), "\\u%04X",
		    (unsigned)(unsigned char)value.p[i]);
		put(&escaped, esc, 6);
	}
	put(&file, "", 0);
	for (i = 0; i < in.fi_len; i++) {
		if (in.fi_p[i] == MARK_RAW)
			put(&file, value.p, value.len);
		else if (in.fi_p[i] == MARK_ESCAPED)
			put(&file, escaped.p, escaped.len);
		else
			put(&file, (const char *)in.fi_p + i, 1);
	}
	rc = secret_parse(FILE_PATH, "fuzz", file.p, file.len, &sink, &sec,
	    &err);
	check(rc == 0 || rc == 1);
	if (rc == 0) {
		check(s.n == 0 && sec != NULL);
		check_secret(sec);
	} else {
		check(s.n >= 1 && sec == NULL);
		check_hidden(&s, &value);
		check_hidden(&s, &escaped);
	}
	secret_free(sec);
	for (i = 0; i < (size_t)s.n && i < MAX_SEEN; i++)
		free(s.text[i]);
	free(value.p);
	free(escaped.p);
	free(file.p);
	return 0;
}
