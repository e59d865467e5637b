/*
 * chain-fuzzer.c: libFuzzer harness for the ChainVerifier and the audit
 * record reader (src/proto/chain.h, audit_record.h). The input is split
 * into files at each form feed (\f); the first byte chooses new() or
 * resume(). What the harness checks, aborting if a promise breaks:
 *
 * - the fast scan and the full decoder accept exactly the same lines and
 *   agree on every field the verifier uses, and the fast path alone
 *   (bx_audit_record_scan_fast) never takes a line the decoder refuses;
 * - a decoded record encodes, and its encoding decodes and encodes again
 *   to the same bytes; bx_audit_record_read (the fast reader of whole
 *   records) takes exactly the lines the decoder takes and gives a record
 *   that encodes to the same bytes;
 * - the verifier finishes, its report's locations name fed files and lines
 *   that exist, records never exceed the lines fed, and feeding the same
 *   input twice gives the same report.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/audit_files.h"
#include "proto/audit_record.h"
#include "proto/chain.h"

#define FUZZ_INPUT_MAX	65536
#define FUZZ_FILES_MAX	8

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *names[FUZZ_FILES_MAX] = {
	"2025-01-01.jsonl", "2025-01-02.jsonl", "2025-01-03.jsonl",
	"2025-01-04.jsonl", "2025-01-05.jsonl", "2025-01-06.jsonl",
	"2025-01-07.jsonl", "2025-01-08.jsonl",
};

static void
check(int ok)
{
	if (!ok)
		abort();
}

static void
same_summary(const struct bx_audit_summary *a, const struct bx_audit_summary *b)
{
	check(a->seq == b->seq && a->time == b->time &&
	    bx_hash_equal(&a->prev, &b->prev) && a->type == b->type);
	switch (a->type) {
	case BX_AUDIT_DECISION:
		check(a->ask == b->ask);
		break;
	case BX_AUDIT_APPROVAL:
	case BX_AUDIT_RESULT:
		check(a->decision == b->decision);
		break;
	case BX_AUDIT_RECOVERY:
		check(a->torn_bytes == b->torn_bytes &&
		    bx_hash_equal(&a->torn_sha256, &b->torn_sha256));
		break;
	default:
		check(strcmp(a->file, b->file) == 0 && a->line == b->line &&
		    bx_hash_equal(&a->last_good, &b->last_good));
		break;
	}
}

/* The fast reader's record of line encodes to want (the decoder's). */
static void
same_read(const char *line, size_t len, const char *want, size_t wantlen)
{
	struct bx_audit_record rec;
	struct bx_error err;
	char *out;
	size_t olen;

	check(bx_audit_record_read(line, len, &rec, &err) == 0);
	check(bx_audit_record_encode(&rec, &out, &olen, &err) == 0);
	check(olen == wantlen && memcmp(out, want, olen) == 0);
	free(out);
	bx_audit_record_clear(&rec);
}

static void
check_line(const char *line, size_t len)
{
	struct bx_audit_summary fast, slow;
	struct bx_audit_record rec, again;
	struct bx_error err;
	char *out, *out2;
	size_t olen, olen2;
	int scanned, decoded;

	scanned = bx_audit_record_scan(line, len, &fast, &err);
	decoded = bx_audit_record_decode(line, len, &rec, &err);
	check(scanned == decoded);
	if (decoded == -1)
		check(bx_audit_record_read(line, len, &again, &err) == -1);
	/* The fast path alone: never a line the decoder refuses. */
	if (bx_audit_record_scan_fast(line, len, &fast) == 0)
		check(decoded == 0);
	if (decoded == -1)
		return;
	bx_audit_record_summarize(&rec, &slow);
	same_summary(&fast, &slow);
	check(bx_audit_record_encode(&rec, &out, &olen, &err) == 0);
	check(bx_audit_record_decode(out, olen, &again, &err) == 0);
	check(bx_audit_record_encode(&again, &out2, &olen2, &err) == 0);
	check(olen == olen2 && memcmp(out, out2, olen) == 0);
	same_read(line, len, out, olen);
	/* The canonical form takes the fast path and says the same. */
	check(bx_audit_record_scan(out, olen, &fast, &err) == 0);
	same_summary(&fast, &slow);
	free(out);
	free(out2);
	bx_audit_record_clear(&again);
	bx_audit_record_clear(&rec);
}

static struct bx_chain_report *
run(const uint8_t *data, size_t size, size_t *ret_lines)
{
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	struct bx_chain_report *r;
	struct bx_hash prev = { { 0 } };
	struct bx_error err;
	struct bx_chain *c;
	const char *ff;
	size_t files = 0, i;

	prev.bytes[0] = data[0];
	c = data[0] & 1 ? bx_chain_resume(data[0] >> 1, &prev) :
	    bx_chain_new();
	check(c != NULL);
	*ret_lines = 0;
	for (;;) {
		ff = memchr(p, '\f', (size_t)(end - p));
		if (ff == NULL || files == FUZZ_FILES_MAX - 1)
			ff = end;
		bx_audit_feed(c, names[files++], p, (size_t)(ff - p));
		for (i = 0; p + i < ff; i++)
			if (p[i] == '\n')
				(*ret_lines)++;
		if (ff > p && ff[-1] != '\n')
			(*ret_lines)++;
		if (ff == end)
			break;
		p = ff + 1;
	}
	check(bx_chain_finish(c, &r, &err) == 0);
	return r;
}

static void
check_location(const struct bx_chain_report *r, const struct bx_location *at,
    size_t lines)
{
	size_t i;
	int found = 0;

	for (i = 0; i < r->nfiles; i++)
		if (at->file == r->files[i])
			found = 1;
	check(found && at->line >= 1 && at->line <= lines);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bx_chain_report *r, *r2;
	const char *p, *end, *nl;
	size_t lines, lines2, i;

	if (size == 0 || size > FUZZ_INPUT_MAX)
		return 0;
	p = (const char *)data + 1;
	end = (const char *)data + size;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		check_line(p, (size_t)(nl - p));
		p = nl + 1;
	}
	r = run(data, size, &lines);
	check(r->records <= lines);
	if (r->failed)
		check_location(r, &r->failure.at, lines);
	for (i = 0; i < r->nrecoveries; i++)
		check_location(r, &r->recoveries[i], lines);
	for (i = 0; i < r->nbreaks; i++)
		check_location(r, &r->breaks[i].at, lines);
	for (i = 0; i < r->nclock_warnings; i++)
		check_location(r, &r->clock_warnings[i], lines);
	if (r->torn)
		check_location(r, &r->torn_tail, lines);
	for (i = 1; i < r->nabandoned; i++)
		check(r->abandoned[i - 1] < r->abandoned[i]);
	r2 = run(data, size, &lines2);
	check(r2->records == r->records && r2->failed == r->failed &&
	    r2->next_seq == r->next_seq && r2->nrecoveries == r->nrecoveries &&
	    r2->nbreaks == r->nbreaks && r2->torn == r->torn &&
	    r2->nabandoned == r->nabandoned &&
	    bx_hash_equal(&r2->head, &r->head));
	if (r->failed)
		check(strcmp(r->failure.what, r2->failure.what) == 0 &&
		    r->failure.at.line == r2->failure.at.line);
	bx_chain_report_free(r);
	bx_chain_report_free(r2);
	return 0;
}
