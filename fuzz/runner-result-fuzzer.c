/*
 * runner-result-fuzzer.c: libFuzzer harness for what brokerd makes of a
 * sandbox's run (src/brokerd/runner/runner_result.c) and for the search
 * for bxtool's start line in the sandbox's stderr (exec_find_started,
 * exec_started.c). Every byte of stdout and stderr is the model's to
 * choose: a shell call's command prints what it likes, on both.
 *
 * The input: a byte for the tool, one for how the run ended (and the OOM,
 * lost-stderr, stdout-fill and process-limit flags, and whether [runner]
 * pids is its least or its most), one for the output limit, one for the
 * wait status, then two pieces (fuzz.h): stdout and stderr. stdout may be
 * repeated up to the limit, so that the cuts at output_bytes and at the
 * frame are reached by small inputs; exec gives at most the limit + 1.
 *
 * What must hold, or the harness aborts:
 * - a result's text is valid UTF-8 without NUL, and its JSON escaping fits
 *   the answer frame (BX_FRAME_MAX - RESULT_FRAME_RESERVE);
 * - a 2xx http_fetch body is the body's own bytes, at most output_bytes;
 *   other output is at most output_bytes of input, each byte at most 3
 *   bytes of text (U+FFFD), plus a status line;
 * - only RUN_OK is ever truncated;
 * - the start-line search fed stderr in pieces finds what a search of the
 *   whole finds, and that is a line "bxtool: started" with its newline.
 */
#include <sys/wait.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/runner_exec.h"
#include "brokerd/runner/runner_result.h"
#include "proto/frame.h"
#include "fuzz.h"

#define FUZZ_INPUT_MAX	(256 * 1024)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* [runner] output_bytes is 1024 to 1048576; small ones reach the cuts. */
static const size_t limits[] = { 1024, 1025, 1027, 2048, 4096, 65536,
    349525, 1048576 };

/* Whether a line of err is exactly "bxtool: started" with its newline. */
static bool
started_oracle(const char *err, size_t len)
{
	const char *line = "bxtool: started\n";
	size_t n = strlen(line), i;

	for (i = 0; i + n <= len; i++)
		if ((i == 0 || err[i - 1] == '\n') &&
		    memcmp(err + i, line, n) == 0)
			return true;
	return false;
}

/* The search as runner_exec.c runs it: after each read, from w_scanned. */
static void
check_start_search(const char *err, size_t len, uint8_t step)
{
	size_t got = 0, scanned = 0, n = step % 17 + 1;
	bool found = false;

	while (got < len && !found) {
		got = got + n > len ? len : got + n;
		found = exec_find_started(err, got, scanned);
		scanned = got;
		check(found == started_oracle(err, got));
	}
	check(found == started_oracle(err, len));
}

/* stdout as exec hands it over: fill 1 repeats it to the limit, 2 past. */
static char *
make_stdout(const char *p, size_t len, size_t limit, unsigned fill,
    size_t *ret_len)
{
	size_t want = len, i;
	char *out;

	if (fill == 1 && len > 0)
		want = limit;
	else if (fill >= 2 && len > 0)
		want = limit + 1;
	if (want > limit + 1)
		want = limit + 1;
	if ((out = malloc(want + 1)) == NULL)
		abort();
	for (i = 0; i < want; i += len < want - i ? len : want - i)
		memcpy(out + i, p, len < want - i ? len : want - i);
	*ret_len = want;
	return out;
}

static void
check_result(const struct result_input *in, const struct run_result *r)
{
	const struct exec_outcome *o = in->ri_run;
	size_t len;

	check(r->rr_text != NULL);
	len = strlen(r->rr_text);
	check(fuzz_utf8(r->rr_text, len));
	check(runner_json_len(r->rr_text, len) <= BX_FRAME_MAX -
	    RESULT_FRAME_RESERVE);
	check(!r->rr_truncated || r->rr_status == RUN_OK);
	if (r->rr_status != RUN_OK)
		return;
	if (in->ri_tool == BX_TOOL_HTTP_FETCH && o->eo_end == EXEC_EXITED) {
		check(len <= in->ri_output_bytes && len <= o->eo_out_len);
		check(memcmp(r->rr_text, o->eo_out, len) == 0);
		return;
	}
	/*
	 * Each kept byte is at most U+FFFD; then at most
	 * "\nexit status -2147483648; the process limit (65536) was reached".
	 */
	check(len <= 3 * in->ri_output_bytes + 64);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in fi = { data, size };
	struct exec_outcome o;
	struct result_input in;
	struct run_result r;
	struct bx_error err;
	const char *out, *errp;
	size_t out_len, err_len;
	uint8_t b0, b1, b2, b3;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	b0 = fuzz_byte(&fi);
	b1 = fuzz_byte(&fi);
	b2 = fuzz_byte(&fi);
	b3 = fuzz_byte(&fi);
	out = fuzz_piece(&fi, &out_len);
	errp = fuzz_piece(&fi, &err_len);
	if (err_len > EXEC_ERR_MAX)
		err_len = EXEC_ERR_MAX;
	check_start_search(errp, err_len, b3);

	memset(&in, 0, sizeof(in));
	memset(&o, 0, sizeof(o));
	in.ri_tool = (enum bx_tool)(b0 % BX_TOOL_MAX);
	in.ri_run = &o;
	in.ri_runtime = b0 & 0x80 ? "bwrap" : "podman";
	in.ri_oomed = (b1 & 0x04) != 0;
	in.ri_pids_hit = (b1 & 0x40) != 0;
	in.ri_pids = b1 & 0x80 ? 65536 : 8;
	in.ri_timeout_ms = 30000 + (b3 & 0x0f) * 150;
	in.ri_start_timeout_ms = 10000;
	in.ri_memory_mb = 512;
	in.ri_output_bytes = limits[b2 % (sizeof(limits) / sizeof(limits[0]))];
	o.eo_end = (enum exec_end)(b1 & 0x03);
	o.eo_err_lost = (b1 & 0x08) != 0;
	o.eo_wait_status = b3 & 0x80 ? (b3 & 0x1f) : (b3 & 0x7f) << 8;
	o.eo_out = make_stdout(out, out_len, in.ri_output_bytes,
	    (b1 >> 4) & 0x03, &o.eo_out_len);
	if ((o.eo_err = malloc(err_len + 1)) == NULL)
		abort();
	memcpy(o.eo_err, errp, err_len);
	o.eo_err_len = err_len;
	o.eo_started = started_oracle(errp, err_len);

	if (runner_result(&in, &r, &err) == 0) {
		check_result(&in, &r);
		free(r.rr_text);
	}
	free(o.eo_out);
	free(o.eo_err);
	return 0;
}
