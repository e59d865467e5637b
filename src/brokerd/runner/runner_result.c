/*
 * runner_result.c: a sandbox's run into a run_result (runner_result.h).
 * Every byte here came from the sandbox, so nothing is trusted: the status
 * lines are parsed strictly, the output is cut and made valid UTF-8 before
 * it goes anywhere, and the text is bounded by the answer frame.
 */
#include <sys/wait.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/runner_result.h"
#include "proto/frame.h"
#include "proto/utf8.h"

#define STATUS_PREFIX	"bxtool: "
#define REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

/* What the helper said on stderr, and what the runtime said around it. */
struct status {
	bool	st_started;
	char	st_final[1024];		/* the last line after "started" */
	char	st_words[RESULT_WORDS_MAX];
};

static void
add_words(struct status *st, const char *line, size_t len)
{
	size_t have = strlen(st->st_words), i;

	if (len == 0 || have + 3 >= sizeof(st->st_words))
		return;
	if (have > 0) {
		memcpy(st->st_words + have, "; ", 2);
		have += 2;
	}
	for (i = 0; i < len && have + 1 < sizeof(st->st_words); i++)
		st->st_words[have++] = (unsigned char)line[i] < 0x20 ? '?' :
		    line[i];
	st->st_words[have] = '\0';
}

static void
parse_status(const struct exec_outcome *o, struct status *st)
{
	const char *p = o->eo_err, *end = o->eo_err + o->eo_err_len, *nl;
	size_t len, plen = strlen(STATUS_PREFIX);

	memset(st, 0, sizeof(*st));
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		len = (size_t)(nl - p);
		if (len < plen || memcmp(p, STATUS_PREFIX, plen) != 0) {
			add_words(st, p, len);
			continue;
		}
		p += plen;
		len -= plen;
		if (!st->st_started) {
			st->st_started = len == 7 && memcmp(p, "started", 7) == 0;
			continue;
		}
		if (len >= sizeof(st->st_final))
			len = sizeof(st->st_final) - 1;
		memcpy(st->st_final, p, len);
		st->st_final[len] = '\0';
	}
}

/*
 * Whether the n bytes at p (fewer than a whole sequence) are the start of
 * a valid one that a cut split: a lead byte and continuation bytes only.
 */
static bool
split_sequence(const unsigned char *p, size_t n)
{
	size_t need, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		need = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		need = 4;
	else
		return false;
	if (n >= need)
		return false;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return false;
	return true;
}

/*
 * The longest prefix of at most max bytes that does not end inside a
 * sequence the cut split; bytes that start no sequence are kept (they
 * become U+FFFD later).
 */
static size_t
utf8_cut(const char *s, size_t len, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	if (len > max)
		len = max;
	while (i < len) {
		if ((n = bx_utf8_len(u + i, len - i)) == 0) {
			if (split_sequence(u + i, len - i))
				break;
			n = 1;
		}
		i += n;
	}
	return i;
}

/*
 * len bytes of s with each byte that starts no valid sequence as U+FFFD,
 * and NUL too: the text travels as a C string, which a NUL would cut.
 */
static char *
valid_utf8(const char *s, size_t len)
{
	char *out, *p;
	size_t i = 0, n;

	if ((out = malloc(3 * len + 1)) == NULL)
		return NULL;
	for (p = out; i < len; i += n) {
		if (s[i] == '\0' || (n = bx_utf8_len((const unsigned char *)s +
		    i, len - i)) == 0) {
			memcpy(p, REPLACEMENT, 3);
			p += 3;
			n = 1;
			continue;
		}
		memcpy(p, s + i, n);
		p += n;
	}
	*p = '\0';
	return out;
}


/* The escaped length of one byte, as runner_json_len counts it. */
static size_t
escaped_len(unsigned char c)
{
	if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' ||
	    c == '\r' || c == '\t')
		return 2;
	return c < 0x20 ? 6 : 1;
}

size_t
runner_json_len(const char *text, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += escaped_len((unsigned char)text[i]);
	return n;
}

/*
 * Cuts valid UTF-8 text in place, at a sequence's end, where its escaped
 * form would pass what the frame leaves for it; true if it cut.
 */
static bool
fit_frame(char *text)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t budget = BX_FRAME_MAX - RESULT_FRAME_RESERVE, used = 0, i = 0;
	size_t n, len = strlen(text), k, cost;

	while (i < len) {
		if ((n = bx_utf8_len(u + i, len - i)) == 0)
			n = 1;
		for (cost = 0, k = 0; k < n; k++)
			cost += escaped_len(u[i + k]);
		if (used + cost > budget) {
			text[i] = '\0';
			return true;
		}
		used += cost;
		i += n;
	}
	return false;
}

static int
set(struct run_result *r, enum run_status status, char *text, bool truncated,
    struct bx_error *err)
{
	if (text == NULL)
		return bx_fail(err, "runner: out of memory");
	if (fit_frame(text) && status == RUN_OK)
		truncated = true;
	r->rr_status = status;
	r->rr_text = text;
	r->rr_truncated = status == RUN_OK && truncated;
	return 0;
}

static char *
printf_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
printf_text(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		s = NULL;
	va_end(ap);
	return s;
}

/* "2.5" or "30": seconds with at most one decimal. */
static void
seconds(int64_t ms, char *buf, size_t size)
{
	if (ms % 1000 == 0)
		snprintf(buf, size, "%" PRId64, ms / 1000);
	else
		snprintf(buf, size, "%" PRId64 ".%" PRId64, ms / 1000,
		    (ms % 1000) / 100);
}

/*
 * "; the process limit (N) was reached" after a status line, or the line
 * alone when there is none (sep false), or "" if the call did not reach
 * it. A shell whose forks failed says only "exit status 2", if that.
 */
static void
pids_note(const struct result_input *in, bool sep, char *buf, size_t size)
{
	buf[0] = '\0';
	if (in->ri_pids_hit)
		snprintf(buf, size, "%sthe process limit (%lld) was reached",
		    sep ? "; " : "", (long long)in->ri_pids);
}

/* The output so far (or the whole output), valid UTF-8, cut to the limit. */
static char *
output(const struct result_input *in, bool *ret_cut)
{
	const struct exec_outcome *o = in->ri_run;
	size_t len = o->eo_out_len;

	*ret_cut = len > in->ri_output_bytes;
	if (*ret_cut)
		len = utf8_cut(o->eo_out, len, in->ri_output_bytes);
	return valid_utf8(o->eo_out, len);
}

/* shell: the output, then its status line unless it exited 0. */
static int
shell_result(const struct result_input *in, const struct status *st,
    struct run_result *r, struct bx_error *err)
{
	char *out, *text, line[64] = "", note[64];
	bool cut;
	int n;

	if ((out = output(in, &cut)) == NULL)
		return bx_fail(err, "runner: out of memory");
	if (sscanf(st->st_final, "exit %d", &n) == 1 && n != 0)
		snprintf(line, sizeof(line), "exit status %d", n);
	else if (sscanf(st->st_final, "signal %d", &n) == 1)
		snprintf(line, sizeof(line), "killed by signal %d", n);
	pids_note(in, line[0] != '\0', note, sizeof(note));
	/* Cut output ends where it was cut, unless the limit says why. */
	if ((line[0] == '\0' || cut) && note[0] == '\0')
		return set(r, RUN_OK, out, cut, err);
	text = printf_text("%s%s%s%s", out, out[0] != '\0' &&
	    out[strlen(out) - 1] != '\n' ? "\n" : "", line, note);
	free(out);
	return set(r, RUN_OK, text, cut, err);
}

/* Whether len bytes are UTF-8 text as the model may receive it: no NUL. */
static bool
strict_utf8(const char *s, size_t len)
{
	size_t i, n;

	for (i = 0; i < len; i += n)
		if (s[i] == '\0' || (n = bx_utf8_len((const unsigned char *)s +
		    i, len - i)) == 0)
			return false;
	return true;
}

/* http_fetch's answer from "http CODE [truncated]" and the body. */
static int
http_result(const struct result_input *in, int code, bool truncated,
    struct run_result *r, struct bx_error *err)
{
	const struct exec_outcome *o = in->ri_run;
	size_t len = o->eo_out_len;
	char *body, *text;

	if (code < 200 || code > 299) {
		len = utf8_cut(o->eo_out, len, RESULT_HTTP_BODY_MAX);
		if ((body = valid_utf8(o->eo_out, len)) == NULL)
			return bx_fail(err, "runner: out of memory");
		text = printf_text("HTTP %d: %s", code, body);
		free(body);
		return set(r, RUN_FAILED, text, false, err);
	}
	truncated |= in->ri_output_cut;
	if (truncated || len > in->ri_output_bytes)
		len = utf8_cut(o->eo_out, len, in->ri_output_bytes);
	if (!strict_utf8(o->eo_out, len))
		return set(r, RUN_FAILED, strdup("not UTF-8 text"), false, err);
	if ((text = strndup(o->eo_out, len)) == NULL)
		return bx_fail(err, "runner: out of memory");
	return set(r, RUN_OK, text, truncated || len < o->eo_out_len, err);
}

/* http_fetch's failure: the proxy's reason beats curl's words. */
static int
fetch_failed(const struct result_input *in, const char *curl_words,
    struct run_result *r, struct bx_error *err)
{
	if (in->ri_egress_limit > 0)
		return set(r, RUN_FAILED, printf_text("egress byte limit "
		    "reached (%lld bytes)", (long long)in->ri_egress_limit),
		    false, err);
	if (in->ri_egress_refusal != NULL)
		return set(r, RUN_FAILED, strdup(in->ri_egress_refusal), false,
		    err);
	return set(r, RUN_FAILED, valid_utf8(curl_words, strlen(curl_words)),
	    false, err);
}

/* The helper's own answer, once nothing ended the call early. */
static int
tool_result(const struct result_input *in, const struct status *st,
    struct run_result *r, struct bx_error *err)
{
	const struct exec_outcome *o = in->ri_run;
	char *text, word[16] = "", note[64];
	bool cut;
	int code;

	/*
	 * Only bxtool writes the sandbox's stderr, a few short lines; past
	 * EXEC_ERR_MAX something else did (through /proc/1/fd/2), and its
	 * final line, the answer, is among what was not kept.
	 */
	if (o->eo_err_lost)
		return set(r, RUN_FAILED, printf_text("the tool's status was "
		    "lost: more than %d KiB came on the sandbox's stderr, "
		    "where only bxtool writes", EXEC_ERR_MAX / 1024), false,
		    err);
	/*
	 * A body the proxy cut at its limit can look whole to curl (one that
	 * ends where the connection closes): the limit wins over any status.
	 */
	if (in->ri_tool == BX_TOOL_HTTP_FETCH && in->ri_egress_limit > 0)
		return fetch_failed(in, "", r, err);
	if (in->ri_tool == BX_TOOL_HTTP_FETCH &&
	    sscanf(st->st_final, "http %d %15s", &code, word) >= 1 &&
	    (word[0] == '\0' || strcmp(word, "truncated") == 0))
		return http_result(in, code, word[0] != '\0', r, err);
	if (in->ri_tool == BX_TOOL_HTTP_FETCH &&
	    strncmp(st->st_final, "failed ", 7) == 0)
		return fetch_failed(in, st->st_final + 7, r, err);
	if (in->ri_tool == BX_TOOL_SHELL && (strncmp(st->st_final, "exit ",
	    5) == 0 || strncmp(st->st_final, "signal ", 7) == 0))
		return shell_result(in, st, r, err);
	if (strncmp(st->st_final, "failed ", 7) == 0)
		return set(r, RUN_FAILED, valid_utf8(st->st_final + 7,
		    strlen(st->st_final + 7)), false, err);
	/* http_fetch's body has its own status, and must be UTF-8 as is. */
	if (in->ri_tool != BX_TOOL_HTTP_FETCH &&
	    (strcmp(st->st_final, "ok") == 0 ||
	    strcmp(st->st_final, "truncated") == 0)) {
		text = output(in, &cut);
		return set(r, RUN_OK, text, cut ||
		    strcmp(st->st_final, "truncated") == 0, err);
	}
	pids_note(in, true, note, sizeof(note));
	if (WIFSIGNALED(o->eo_wait_status))
		return set(r, RUN_FAILED, printf_text("the tool ended without "
		    "a status: %s killed by signal %d%s", in->ri_runtime,
		    WTERMSIG(o->eo_wait_status), note), false, err);
	return set(r, RUN_FAILED, printf_text("the tool ended without a "
	    "status: %s exited %d%s", in->ri_runtime,
	    WEXITSTATUS(o->eo_wait_status), note), false, err);
}

/* Output past the cap: its first bytes, and why, if the limit says. */
static int
capped(const struct result_input *in, struct run_result *r,
    struct bx_error *err)
{
	char *out, *text, note[64];
	bool cut;

	if ((out = output(in, &cut)) == NULL)
		return bx_fail(err, "runner: out of memory");
	pids_note(in, false, note, sizeof(note));
	if (note[0] == '\0')
		return set(r, RUN_OK, out, true, err);
	text = printf_text("%s\n%s", out, note);
	free(out);
	return set(r, RUN_OK, text, true, err);
}

/* No tool ran: unavailable, in brokerd's and the runtime's words. */
static int
not_started(const struct result_input *in, const struct status *st,
    struct run_result *r, struct bx_error *err)
{
	const struct exec_outcome *o = in->ri_run;
	char *words;
	int rc;

	if (o->eo_end == EXEC_HUNG_UP)
		return set(r, RUN_UNAVAILABLE, strdup("the caller went away"),
		    false, err);
	if (o->eo_end == EXEC_TIMED_OUT)
		return set(r, RUN_UNAVAILABLE, printf_text("%s: the sandbox did "
		    "not start within %lld ms ([runner] start_timeout_ms); see "
		    "docs/runbook.md#runner-unavailable", in->ri_runtime,
		    (long long)in->ri_start_timeout_ms), false, err);
	/* The runtime may quote a path that is not UTF-8, cut anywhere. */
	words = valid_utf8(st->st_words, utf8_cut(st->st_words,
	    strlen(st->st_words), sizeof(st->st_words)));
	if (words == NULL)
		return bx_fail(err, "runner: out of memory");
	rc = set(r, RUN_UNAVAILABLE, printf_text("%s could not start the "
	    "sandbox: %s", in->ri_runtime, words[0] != '\0' ? words :
	    "it said nothing"), false, err);
	free(words);
	return rc;
}

int
runner_result(const struct result_input *in, struct run_result *ret,
    struct bx_error *err)
{
	const struct exec_outcome *o = in->ri_run;
	struct run_result r;
	struct status st;
	char secs[32], note[64], *out;
	bool cut;
	int rc;

	memset(&r, 0, sizeof(r));
	parse_status(o, &st);
	if (!st.st_started)
		rc = not_started(in, &st, &r, err);
	else if (o->eo_end == EXEC_HUNG_UP)
		rc = set(&r, RUN_FAILED, strdup("the caller went away"), false,
		    err);
	else if (in->ri_oomed)
		rc = set(&r, RUN_FAILED, printf_text("out of memory (%lld MiB)",
		    (long long)in->ri_memory_mb), false, err);
	else if (o->eo_end == EXEC_TIMED_OUT) {
		seconds(in->ri_timeout_ms, secs, sizeof(secs));
		pids_note(in, true, note, sizeof(note));
		if ((out = output(in, &cut)) == NULL)
			return bx_fail(err, "runner: out of memory");
		rc = set(&r, RUN_FAILED, printf_text("timed out after %s s%s\n"
		    "%s", secs, note, out), false, err);
		free(out);
	} else if (o->eo_end == EXEC_CAPPED)
		rc = capped(in, &r, err);
	else
		rc = tool_result(in, &st, &r, err);
	if (rc == 0)
		*ret = r;
	return rc;
}
