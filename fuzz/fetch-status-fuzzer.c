/*
 * fetch-status-fuzzer.c: libFuzzer harness for what bxtool fetch reads
 * out of curl (src/bxtool/fetch_status.c): the final response's status in
 * curl's header dump, where every byte but the framing is the remote
 * server's, and in curl's stderr the --write-out line and curl's error
 * line, which quote the server's words. The server is the model's to
 * choose within the grant.
 *
 * The input: a byte for the size of the pieces the dump is fed in, then
 * two pieces (fuzz.h): the header dump and curl's stderr. Each is copied
 * to a buffer of its own size, each fed piece too, so that a read past one
 * is ASan's finding.
 *
 * What must hold, or the harness aborts:
 * - the status is 0 or 100 to 599, the same fed whole and fed in pieces,
 *   and what ref_status, a slow reading of whole lines, says;
 * - the --write-out code is 0 or 100 to 599 and what ref_code says, and
 *   what is left of stderr is stderr without that line;
 * - the error line is a prefix of what is left, without a newline or a
 *   NUL, and ends at one or at the end;
 * - a non-identity Content-Encoding is seen the same fed whole and fed in
 *   pieces (a secret's fetch refuses such a body);
 * - a redirect target taken out of stderr is NUL-ended within its buffer
 *   and leaves stderr no longer; a URL fetch_same_host() accepts for a
 *   host name has that host, by fetch_url_host(), without regard to case
 *   (it may refuse more: a port, a byte it does not know).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bxtool/fetch_status.h"
#include "fuzz.h"

#define FUZZ_INPUT_MAX	65536

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char *
copy(const char *p, size_t len)
{
	char *c;

	/* Exactly len bytes: malloc(0) may return NULL, so 1 for none. */
	if ((c = malloc(len > 0 ? len : 1)) == NULL)
		abort();
	memcpy(c, p, len);
	return c;
}

/*
 * The number the three digits at s write, if it is from 100 to 599, or
 * 0; counted another way than fetch_status.c's, which it checks.
 */
static int
ref_digits(const char *s)
{
	int v = 0, i;

	for (i = 0; i < 3; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 100 && v <= 599 ? v : 0;
}

/*
 * A status line as the contract reads it, over the whole line: "HTTP/",
 * a version without a space, a space, three digits from 100 to 599, then
 * a space, a CR or the line's end; and the byte after the code among the
 * line's first FETCH_HEAD_MAX (or the end of a line no longer).
 */
static int
ref_line(const char *l, size_t n)
{
	size_t sp = 5, after;

	if (n < 5 || memcmp(l, "HTTP/", 5) != 0)
		return 0;
	while (sp < n && l[sp] != ' ')
		sp++;
	after = sp + 4;
	if (after > n || after > FETCH_HEAD_MAX ||
	    (after == FETCH_HEAD_MAX && n > after))
		return 0;
	if (after < n && l[after] != ' ' && l[after] != '\r')
		return 0;
	return ref_digits(l + sp + 1);
}

/*
 * The dump's lines that a newline ends, walked as curl follows the
 * chain: a block starts at the first line that reads like a status line,
 * and ends at an empty one; after a 1xx or 3xx another may follow, after
 * anything else the status is final.
 */
static int
ref_status(const char *d, size_t len)
{
	size_t start = 0, i, n;
	bool in_block = false;
	int code = 0, c;

	for (i = 0; i < len; i++) {
		if (d[i] != '\n')
			continue;
		n = i - start;
		if (!in_block) {
			if ((c = ref_line(d + start, n)) != 0) {
				code = c;
				in_block = true;
			}
		} else if (n == 0 || (n == 1 && d[start] == '\r')) {
			if (code / 100 != 1 && code / 100 != 3)
				return code;
			in_block = false;
		}
		start = i + 1;
	}
	return code;
}

/* The dump fed to h in pieces of step bytes. */
static void
feed(struct fetch_head *h, const char *dump, size_t len, size_t step)
{
	size_t i, n;
	char *piece;

	fetch_head_init(h);
	for (i = 0; i < len; i += n) {
		n = len - i < step ? len - i : step;
		piece = copy(dump + i, n);
		fetch_head_feed(h, piece, n);
		free(piece);
	}
}

static int
fed(const char *dump, size_t len, size_t step)
{
	struct fetch_head h;

	feed(&h, dump, len, step);
	return fetch_head_status(&h);
}

/* Whether the dump, fed in pieces of step bytes, says an encoded body. */
static bool
fed_encoded(const char *dump, size_t len, size_t step)
{
	struct fetch_head h;

	feed(&h, dump, len, step);
	return fetch_head_encoded(&h);
}

/* The redirect line and the same-host rule, on stderr and the dump's bytes. */
static void
check_redirect(const char *p, size_t len, const char *host_bytes,
    size_t host_len)
{
	char *err = copy(p, len), out[256], host[256], url_host[256];
	size_t left = len;
	int r;

	r = fetch_curl_redirect(err, &left, out, sizeof(out));
	check(r >= -1 && r <= 1 && left <= len);
	if (r == 1) {
		check(memchr(out, '\0', sizeof(out)) != NULL);
		/*
		 * The rule refuses what it cannot be sure of (another port,
		 * a byte after the host it does not know), so only its yes
		 * is checked: accepted for its own host, that host is it.
		 */
		if (fetch_url_host(out, host, sizeof(host)) == 0 &&
		    fetch_same_host(out, host))
			check(fetch_url_host(out, url_host,
			    sizeof(url_host)) == 0 &&
			    strcasecmp(url_host, host) == 0);
	}
	free(err);
	/* Any text as a URL, any as a host: acceptance implies that host. */
	snprintf(host, sizeof(host), "%.*s", (int)(host_len < 255 ? host_len :
	    255), host_bytes);
	/* A host name's letters only: the rule is for names, not text. */
	host[strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.-")] = '\0';
	err = copy(p, len);
	err = realloc(err, len + 1);
	if (err == NULL)
		abort();
	err[len] = '\0';
	if (host[0] != '\0' && fetch_same_host(err, host))
		check(fetch_url_host(err, url_host, sizeof(url_host)) == 0 &&
		    strcasecmp(url_host, host) == 0);
	free(err);
}

static void
check_dump(const char *p, size_t len, size_t step)
{
	char *dump = copy(p, len);
	int want = ref_status(dump, len), whole = fed(dump, len, len + 1);

	check(want == 0 || (want >= 100 && want <= 599));
	check(whole == want);
	check(fed(dump, len, step) == want);
	check(fed_encoded(dump, len, len + 1) == fed_encoded(dump, len, step));
	free(dump);
}

/*
 * The last "\n" FETCH_CODE_MARK, every place tried: -1 without one,
 * else its line's code (three digits and the line's end) or 0, and where
 * the line starts (at its newline) and ends (past the next).
 */
static int
ref_code(const char *e, size_t len, size_t *ret_at, size_t *ret_end)
{
	const char *mark = "\n" FETCH_CODE_MARK;
	size_t mlen = strlen(mark), at = 0, end, i;
	bool found = false;

	for (i = 0; i + mlen <= len; i++)
		if (memcmp(e + i, mark, mlen) == 0) {
			at = i;
			found = true;
		}
	if (!found)
		return -1;
	for (end = at + mlen; end < len && e[end] != '\n'; end++)
		;
	*ret_at = at;
	*ret_end = end < len ? end + 1 : len;
	return end - (at + mlen) == 3 ? ref_digits(e + at + mlen) : 0;
}

static void
check_err(const char *p, size_t len)
{
	char *err = copy(p, len);
	size_t left = len, at = 0, end = 0, n, i;
	int want = ref_code(p, len, &at, &end), code;

	code = fetch_curl_code(err, &left);
	check(code == 0 || (code >= 100 && code <= 599));
	if (want == -1) {
		check(code == 0 && left == len && memcmp(err, p, len) == 0);
	} else {
		check(code == want);
		check(left == len - (end - at));
		check(memcmp(err, p, at) == 0);
		check(memcmp(err + at, p + end, len - end) == 0);
	}
	n = fetch_err_line(err, left);
	check(n <= left);
	for (i = 0; i < n; i++)
		check(err[i] != '\n' && err[i] != '\0');
	check(n == left || err[n] == '\n' || err[n] == '\0');
	free(err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in fi = { data, size };
	const char *dump, *err;
	size_t dump_len, err_len, step;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	step = (size_t)fuzz_byte(&fi) % 64 + 1;
	dump = fuzz_piece(&fi, &dump_len);
	err = fuzz_piece(&fi, &err_len);
	check_dump(dump, dump_len, step);
	check_err(err, err_len);
	check_redirect(err, err_len, dump, dump_len);
	return 0;
}
