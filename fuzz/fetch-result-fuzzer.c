/*
 * fetch-result-fuzzer.c: libFuzzer harness for an http_fetch's result as
 * brokerd receives it: the egress proxy's report (egress_report_line,
 * egress_report.c), then bxtool's body on stdout and its status lines on
 * stderr ("bxtool: http CODE [truncated]", "bxtool: failed CURL'S WORDS")
 * through runner_result.c. The body and the status code are a remote
 * server's, of the model's choosing within the grant; curl's words quote
 * it; the report quotes the host names the model asked for.
 *
 * The input: a byte for the output limit and how the run ended, then
 * three pieces (fuzz.h): the body, bxtool's stderr, the egress report.
 *
 * What must hold, or the harness aborts:
 * - a report line leaves only printable ASCII behind, and a refusal is
 *   "egress refused " and printable ASCII;
 * - the result is valid UTF-8 without NUL, fits the answer frame, and is
 *   truncated only when RUN_OK;
 * - a 2xx body comes back as its own bytes (at most output_bytes, cut at
 *   a character's end), or the call fails "not UTF-8 text";
 * - a byte limit the proxy reached always fails a call that ran its course.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/runner_egress.h"
#include "brokerd/runner/runner_result.h"
#include "proto/frame.h"
#include "fuzz.h"

#define FUZZ_INPUT_MAX	(256 * 1024)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const size_t limits[] = { 1024, 1025, 4096, 1048576 };

static bool
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* The report as read_report takes it: whole lines, each one parsed. */
static void
read_report(const char *p, size_t len, struct egress_report *r)
{
	char *buf, *line, *nl;

	memset(r, 0, sizeof(*r));
	if ((buf = malloc(len + 1)) == NULL)
		abort();
	memcpy(buf, p, len);
	for (line = buf; line < buf + len; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(buf + len - line))) ==
		    NULL)
			break;
		*nl = '\0';
		egress_report_line(line, r);
		check(printable(line));
	}
	if (r->er_refusal != NULL)
		check(strncmp(r->er_refusal, "egress refused ", 15) == 0 &&
		    printable(r->er_refusal));
	free(buf);
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
	/* bxtool stops at the limit, so only a hostile bxtool is capped. */
	if (in->ri_egress_limit > 0 && !o->eo_err_lost &&
	    o->eo_end == EXEC_EXITED)
		check(r->rr_status != RUN_OK);
	if (r->rr_status == RUN_OK && o->eo_end == EXEC_EXITED) {
		check(len <= in->ri_output_bytes && len <= o->eo_out_len);
		check(memcmp(r->rr_text, o->eo_out, len) == 0);
		check(r->rr_truncated || len == o->eo_out_len);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in fi = { data, size };
	struct egress_report er;
	struct exec_outcome o;
	struct result_input in;
	struct run_result r;
	struct bx_error err;
	const char *body, *errp, *report;
	size_t body_len, err_len, report_len;
	uint8_t b0;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	b0 = fuzz_byte(&fi);
	body = fuzz_piece(&fi, &body_len);
	errp = fuzz_piece(&fi, &err_len);
	report = fuzz_piece(&fi, &report_len);
	read_report(report, report_len, &er);

	memset(&in, 0, sizeof(in));
	memset(&o, 0, sizeof(o));
	in.ri_tool = BX_TOOL_HTTP_FETCH;
	in.ri_run = &o;
	in.ri_runtime = "podman";
	in.ri_timeout_ms = 30000;
	in.ri_output_bytes = limits[b0 % (sizeof(limits) / sizeof(limits[0]))];
	in.ri_egress_refusal = er.er_refusal;
	in.ri_egress_limit = er.er_limit;
	/* bxtool stops at the limit; exec would stop one byte past it. */
	if (body_len > in.ri_output_bytes + 1)
		body_len = in.ri_output_bytes + 1;
	o.eo_end = b0 & 0x40 ? EXEC_CAPPED : EXEC_EXITED;
	o.eo_wait_status = (b0 & 0x80) << 1;
	if ((o.eo_out = malloc(body_len + 1)) == NULL ||
	    (o.eo_err = malloc(err_len + 1)) == NULL)
		abort();
	memcpy(o.eo_out, body, body_len);
	o.eo_out_len = body_len;
	memcpy(o.eo_err, errp, err_len);
	o.eo_err_len = err_len;

	if (runner_result(&in, &r, &err) == 0) {
		check_result(&in, &r);
		free(r.rr_text);
	}
	free(o.eo_out);
	free(o.eo_err);
	free(er.er_refusal);
	return 0;
}
