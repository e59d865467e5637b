/*
 * anchors.c: parsing audit anchors and checking them against the records
 * the chain accepts (anchors.h). Records come in rising seq order, but the
 * anchors may be given in any order, so each record looks its seq up.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/audit/anchors.h"
#include "proto/escape.h"
#include "proto/readfile.h"

void
anchor_format(uint64_t seq, const struct bx_hash *h, char *buf)
{
	char hex[BX_HASH_HEX_LEN + 1];

	bx_hash_format(h, hex);
	snprintf(buf, ANCHOR_TEXT_MAX, "%" PRIu64 ":%s", seq, hex);
}

/* "SEQ:HASH" into *ret; the seq as an approval id is read (no sign). */
static int
parse(const char *s, struct anchor *ret, struct bx_error *err)
{
	const char *colon = strchr(s, ':');
	struct bx_error why;
	uintmax_t v;
	char *end;

	if (colon == NULL || s[0] < '0' || s[0] > '9')
		return bx_fail(err, "not an anchor (SEQ:HASH, as bxctl audit "
		    "head prints it)");
	errno = 0;
	v = strtoumax(s, &end, 10);
	if (end != colon || errno != 0 || v > INT64_MAX)
		return bx_fail(err, "the seq of an anchor is a number from 0 "
		    "to %" PRId64, INT64_MAX);
	if (bx_hash_parse(colon + 1, &ret->hash, &why) == -1)
		return bx_fail(err, "the hash of an anchor is 64 lowercase "
		    "hex digits");
	ret->seq = (uint64_t)v;
	ret->seen = false;
	return 0;
}

int
anchors_add(struct anchors *as, const char *s, struct bx_error *err)
{
	struct anchor a, *grown;

	if (parse(s, &a, err) == -1)
		return -1;
	if (as->n == ANCHORS_MAX)
		return bx_fail(err, "more than %d anchors", ANCHORS_MAX);
	if (as->n == as->cap) {
		as->cap = as->cap == 0 ? 16 : as->cap * 2;
		if ((grown = reallocarray(as->a, as->cap, sizeof(a))) == NULL)
			return bx_fail(err, "out of memory");
		as->a = grown;
	}
	as->a[as->n++] = a;
	return 0;
}

/* Drops trailing spaces, tabs and carriage returns. */
static void
trim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
	    s[n - 1] == '\r'))
		s[--n] = '\0';
}

int
anchors_load(struct anchors *as, const char *path, struct bx_error *err)
{
	char *buf, *line, *next;
	struct bx_error why;
	size_t len, lineno = 0;
	int rc = 0;

	if (bx_readfile(path, ANCHORS_FILE_MAX, &buf, &len, NULL, err) == -1)
		return -1;
	if (memchr(buf, '\0', len) != NULL) {
		free(buf);
		return bx_fail(err, "%s: not a text file", path);
	}
	for (line = buf; rc == 0 && line != NULL; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		/* A file written on another system may end lines in CR. */
		trim(line);
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (anchors_add(as, line, &why) == -1)
			rc = bx_fail(err, "%s:%zu: %s", path, lineno, why.msg);
	}
	free(buf);
	return rc;
}

static int
by_seq(const void *a, const void *b)
{
	uint64_t x = ((const struct anchor *)a)->seq;
	uint64_t y = ((const struct anchor *)b)->seq;

	return x < y ? -1 : x > y;
}

void
anchors_sort(struct anchors *as)
{
	if (as->n > 1)
		qsort(as->a, as->n, sizeof(*as->a), by_seq);
}

void
anchors_on_record(void *ctx, const struct bx_chain_record *rec)
{
	struct anchors *as = ctx;
	uint64_t seq = rec->sum->seq;
	size_t lo = 0, hi = as->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (as->a[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < as->n && as->a[lo].seq == seq; lo++) {
		as->a[lo].seen = true;
		as->a[lo].found = rec->hash;
		as->a[lo].at = rec->at;
	}
}

/* Why anchor a failed, or NULL if it holds. */
static const char *
why(const struct anchor *a, const struct bx_chain_report *r, char *buf,
    size_t size)
{
	char hex[BX_HASH_HEX_LEN + 1];

	if (a->seen && bx_hash_equal(&a->found, &a->hash))
		return NULL;
	if (a->seen) {
		bx_hash_format(&a->found, hex);
		snprintf(buf, size, "record %" PRIu64 " (%s:%" PRIu64 ") has "
		    "hash %s: the log was rewritten; %s", a->seq, a->at.file,
		    a->at.line, hex, ANCHORS_RUNBOOK);
	} else if (r->failed)
		snprintf(buf, size, "not checked: the chain failed before "
		    "record %" PRIu64, a->seq);
	else if (!r->has_head)
		snprintf(buf, size, "the log holds no record at all: it was "
		    "cut or removed; %s", ANCHORS_RUNBOOK);
	else
		snprintf(buf, size, "the log has no record %" PRIu64 " (its "
		    "last is %" PRIu64 "): its tail was cut; %s", a->seq,
		    r->next_seq - 1, ANCHORS_RUNBOOK);
	return buf;
}

size_t
anchors_print(FILE *fp, const struct anchors *as,
    const struct bx_chain_report *r)
{
	char text[ANCHOR_TEXT_MAX], buf[BX_ERROR_MAX + 256];
	const struct anchor *a;
	const char *failed;
	size_t i, nfailed = 0;

	for (i = 0; i < as->n; i++) {
		a = &as->a[i];
		anchor_format(a->seq, &a->hash, text);
		fprintf(fp, "anchor %s: ", text);
		if ((failed = why(a, r, buf, sizeof(buf))) != NULL) {
			fprintf(fp, "failed: ");
			escape_puts(fp, failed);
			nfailed++;
		} else {
			fprintf(fp, "ok (");
			escape_puts(fp, a->at.file);
			fprintf(fp, ":%" PRIu64 ")", a->at.line);
		}
		fputc('\n', fp);
	}
	return nfailed;
}

void
anchors_free(struct anchors *as)
{
	free(as->a);
	as->a = NULL;
	as->n = as->cap = 0;
}
