/*
 * turn-event-fuzzer.c: libFuzzer harness for what bxctl decodes and then
 * prints of text the model shaped: the turn events of `bxctl chat`, read
 * from loopd's socket (peer_read, src/bxctl/common/peer.c, over the message
 * decoder of src/proto/message*.c) and printed as lines by bxctl's own
 * printer (turn_print.c; a fresh turn per input, twice: compact and
 * whole) or as JSON lines (turn_json); and the audit records of `bxctl
 * log --call`, read by the record decoder, or by the scanner's fast path
 * for a line in canonical form, and printed (log_call.c). The first byte
 * picks which; the rest is loopd's byte stream, or one audit line. An
 * approval_pending event looks its approval up on an admin.sock that does
 * not exist, so it prints the event's own line, and bxctl's complaint goes
 * to stderr.
 *
 * What must hold, or the harness aborts:
 * - a frame peer_read accepts is printed by turn_json as one line of
 *   printable ASCII that means the same JSON as the frame;
 * - a decoded turn event holds every string its printer reads, and names
 *   in range; what the printer adds for it holds no control but newlines,
 *   no bidi or zero-width character, and is valid UTF-8, and the turn's
 *   output ends with a newline once the open line of deltas is closed: no
 *   line the model wrote can pass for one of bxctl's (the compact turn
 *   ends as a Ctrl-C ends it, whose line is then a line of its own);
 * - a text event that repeats the line of deltas just streamed only ends
 *   that line; a started event sets the session; the turn failed if and
 *   only if an error event came;
 * - the stream ends where the frames do;
 * - a record is printed the same from the fast path as from the decoder;
 *   the text holds no control but the newline that ends each line, and
 *   is valid UTF-8; the JSON form is printable ASCII.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bxctl/chat/turn_print.h"
#include "bxctl/common/peer.h"
#include "bxctl/log/log_call.h"
#include "proto/audit_fast.h"
#include "proto/frame.h"
#include "proto/message.h"
#include "fuzz.h"

/* Below the pipe's 64 KiB, so the whole input is written before reading. */
#define FUZZ_INPUT_MAX	60000

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Printable ASCII lines, each ended by its newline. */
static void
check_ascii_lines(const char *s, size_t len)
{
	size_t i;

	check(len > 0 && s[len - 1] == '\n');
	for (i = 0; i < len; i++)
		check(s[i] == '\n' || (s[i] >= 0x20 && s[i] < 0x7f));
}

static void
check_json_line(const char *line, size_t len)
{
	json_t *frame, *printed;
	char *buf = NULL;
	size_t blen = 0;
	FILE *fp;
	int rc;

	check((fp = open_memstream(&buf, &blen)) != NULL);
	rc = turn_json(fp, line, len);
	check(fclose(fp) == 0);
	/* peer_read decoded it, so it is a JSON object. */
	check(rc == 0);
	check_ascii_lines(buf, blen);
	check(memchr(buf, '\n', blen) == buf + blen - 1);
	frame = json_loadb(line, len, 0, NULL);
	printed = json_loadb(buf, blen, 0, NULL);
	check(frame != NULL && printed != NULL && json_equal(frame, printed));
	json_decref(frame);
	json_decref(printed);
	free(buf);
}

static void
check_event(const struct bx_turn_event *ev)
{
	check(ev->type < BX_EVENT_MAX);
	switch (ev->type) {
	case BX_EVENT_STARTED:
		check(ev->session != NULL && strlen(ev->session) <= BX_ID_MAX);
		break;
	case BX_EVENT_TEXT:
	case BX_EVENT_DONE:
	case BX_EVENT_ERROR:
		check(ev->text != NULL);
		break;
	case BX_EVENT_TOOL_CALL:
		check(ev->call != NULL && ev->tool != NULL &&
		    ev->arguments != NULL);
		break;
	case BX_EVENT_TOOL_RESULT:
		check(ev->call != NULL && ev->content != NULL);
		check(ev->status != BX_STATUS_PENDING_APPROVAL &&
		    ev->status < BX_STATUS_MAX && ev->class < BX_CLASS_MAX);
		break;
	case BX_EVENT_APPROVAL_PENDING:
		check(ev->tool != NULL);
		break;
	default:
		break;
	}
}

/* A turn's printer, on a memstream, and what of its output was checked. */
struct printer {
	struct turn_opts	p_opts;
	struct turn_state	p_ts;
	char			p_session[BX_ID_MAX + 1];
	char			*p_buf;
	size_t			 p_len;
	size_t			 p_seen;
	bool			 p_error;	/* an error event came */
};

static void
printer_start(struct printer *pr, bool compact)
{
	FILE *fp;

	memset(pr, 0, sizeof(*pr));
	pr->p_opts.admin_path = "/nonexistent/boxmaker-fuzz/admin.sock";
	pr->p_opts.compact = compact;
	check((fp = open_memstream(&pr->p_buf, &pr->p_len)) != NULL);
	turn_print_init(&pr->p_ts, &pr->p_opts, pr->p_session, fp);
}

/* What the printer added since the last look: printable, but newlines. */
static const char *
printer_added(struct printer *pr, size_t *ret_len)
{
	const char *p, *end, *nl;

	check(fflush(pr->p_ts.out) == 0);
	p = pr->p_buf + pr->p_seen;
	end = pr->p_buf + pr->p_len;
	*ret_len = (size_t)(end - p);
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		check(fuzz_printable(p, (size_t)(nl - p)));
	}
	p = pr->p_buf + pr->p_seen;
	pr->p_seen = pr->p_len;
	return p;
}

static void
printer_event(struct printer *pr, const struct bx_turn_event *ev)
{
	struct turn_state *ts = &pr->p_ts;
	const char *added;
	bool repeat;
	size_t n;

	/* Each delta is a whole JSON string, so no byte is held back. */
	repeat = ev->type == BX_EVENT_TEXT && ts->in_deltas &&
	    !ts->streamed_cut && strcmp(ts->streamed, ev->text) == 0;
	turn_print_event(ts, ev);
	added = printer_added(pr, &n);
	if (repeat)
		check(n == 1 && added[0] == '\n');
	if (ev->type == BX_EVENT_STARTED)
		check(strcmp(pr->p_session, ev->session) == 0);
	if (ev->type == BX_EVENT_ERROR)
		pr->p_error = true;
	check(ts->failed == pr->p_error);
}

/* The turn's end; stopped: as the owner's Ctrl-C ends it. */
static void
printer_done(struct printer *pr, bool stopped)
{
	static const char line[] = "stopped (Ctrl-C): the turn ends here; "
	    "what it did so far is kept\n";
	size_t n;

	if (stopped)
		turn_print_stopped(&pr->p_ts);
	else
		turn_print_end(&pr->p_ts);
	(void)printer_added(pr, &n);
	check(pr->p_len == 0 || pr->p_buf[pr->p_len - 1] == '\n');
	/* The stop is a line of its own, after any line of deltas. */
	if (stopped) {
		n = strlen(line);
		check(pr->p_len >= n &&
		    memcmp(pr->p_buf + pr->p_len - n, line, n) == 0);
		check(pr->p_len == n || pr->p_buf[pr->p_len - n - 1] == '\n');
	}
	turn_print_free(&pr->p_ts);
	check(fclose(pr->p_ts.out) == 0);
	free(pr->p_buf);
}

/* loopd's bytes through peer_read, as `bxctl chat` reads them. */
static void
chat(const uint8_t *data, size_t size)
{
	struct bx_frame_reader fr;
	struct bx_error err, said;
	struct printer whole, compact;
	struct bx_msg *msg;
	const char *line;
	size_t len, at = 0;
	int p[2];

	check(pipe2(p, O_CLOEXEC) == 0);
	check(size == 0 || write(p[1], data, size) == (ssize_t)size);
	close(p[1]);
	bx_frame_reader_init(&fr, p[0]);
	printer_start(&whole, false);
	printer_start(&compact, true);
	while (peer_read(&fr, 1000, "loopd", &msg, &line, &len, &err) == 0) {
		check(at + len < size && data[at + len] == '\n');
		at += len + 1;
		check_json_line(line, len);
		/* turn.c ends the turn with an error frame's words. */
		if (msg->kind == BX_MSG_ERROR) {
			check(peer_error(msg, "loopd", &said) == -1);
			check(strncmp(said.msg, "loopd answered error ", 21) == 0);
		}
		if (msg->kind == BX_MSG_TURN_EVENT) {
			check_event(&msg->turn_event);
			printer_event(&whole, &msg->turn_event);
			printer_event(&compact, &msg->turn_event);
		}
		bx_msg_free(msg);
	}
	check(err.msg[0] != '\0');
	printer_done(&whole, false);
	printer_done(&compact, true);
	bx_frame_reader_free(&fr);
	close(p[0]);
}

/* The call id of a call's record, or NULL. */
static const char *
call_of(const struct bx_audit_record *rec)
{
	switch (rec->event.type) {
	case BX_AUDIT_DECISION:
		return rec->event.decision.call;
	case BX_AUDIT_APPROVAL:
		return rec->event.approval.call;
	case BX_AUDIT_RESULT:
		return rec->event.result.call;
	default:
		return NULL;
	}
}

/* log_call_record's output for the record, as text or JSON lines. */
static char *
print_record(const struct bx_chain_record *cr, const char *call, bool json,
    size_t *ret_len)
{
	struct log_call lc;
	char *buf = NULL;

	memset(&lc, 0, sizeof(lc));
	lc.call = call;
	lc.json = json;
	check((lc.out = open_memstream(&buf, ret_len)) != NULL);
	log_call_record(&lc, cr);
	check(fclose(lc.out) == 0);
	check(lc.found == 1);
	return buf;
}

/* One audit line, as `bxctl log --call` reads and prints it. */
static void
log_line(const char *line, size_t len)
{
	struct bx_chain_record cr = { { "audit-0000000001.jsonl", 7 }, NULL,
	    NULL, { { 0 } }, line, len };
	struct bx_audit_fast fast;
	struct bx_audit_record rec;
	struct bx_error err;
	const char *call;
	char *slow, *quick, *js;
	size_t slen, qlen, jlen, i;

	if (bx_audit_record_read(line, len, &rec, &err) == -1)
		return;
	if ((call = call_of(&rec)) == NULL) {
		bx_audit_record_clear(&rec);
		return;
	}
	slow = print_record(&cr, call, false, &slen);
	check(fuzz_utf8(slow, slen) && slen > 0 && slow[slen - 1] == '\n');
	for (i = 0; i < slen; i++)
		check(slow[i] == '\n' || (unsigned char)slow[i] >= 0x20);
	if (bx_audit_scan_full(line, len, &fast) == 0) {
		cr.fast = &fast;
		quick = print_record(&cr, call, false, &qlen);
		check(qlen == slen && memcmp(quick, slow, slen) == 0);
		free(quick);
		cr.fast = NULL;
	}
	js = print_record(&cr, call, true, &jlen);
	check_ascii_lines(js, jlen);
	free(js);
	free(slow);
	bx_audit_record_clear(&rec);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > FUZZ_INPUT_MAX)
		return 0;
	if (data[0] & 1)
		log_line((const char *)data + 1, size - 1);
	else
		chat(data + 1, size - 1);
	return 0;
}
