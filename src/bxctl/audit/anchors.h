/*
 * anchors.h: audit anchors, the owner's check on what the hash chain
 * cannot see by itself (docs/design.md, "The chain's end"). An anchor is
 * SEQ:HASH, a record's seq and the SHA-256 of its line, as `bxctl audit
 * head` prints it. `bxctl audit verify --anchor A` (or --anchors FILE, one
 * per line) fails unless the log still holds record SEQ with that hash:
 * no such record means its tail was cut; another hash, that it was
 * rewritten.
 *
 * Ownership: struct anchors owns its array; anchors_free() frees it (a
 * zeroed struct is empty and fine to free). Nothing here prints except
 * anchors_print(), which writes the report lines it is given a stream for.
 */
#ifndef BXCTL_ANCHORS_H
#define BXCTL_ANCHORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/chain.h"
#include "proto/error.h"
#include "proto/types.h"

/* The most anchors one verify checks, from the command line and files. */
#define ANCHORS_MAX		100000
/* An anchors file larger than this is refused before it is read. */
#define ANCHORS_FILE_MAX	(8 * 1024 * 1024)
/* Where a failed anchor's line sends the owner. */
#define ANCHORS_RUNBOOK		"see docs/runbook.md#audit-anchor-failed"
/* "SEQ:HASH": 19 digits at most, a colon, 64 hex digits, a NUL. */
#define ANCHOR_TEXT_MAX		(19 + 1 + BX_HASH_HEX_LEN + 1)

struct anchor {
	uint64_t		 seq;
	struct bx_hash		 hash;
	bool			 seen;		/* the log holds record seq */
	struct bx_hash		 found;		/* and this is its hash */
	struct bx_location	 at;		/* the report's file names */
};

struct anchors {
	struct anchor	*a;
	size_t		 n, cap;
};

/* "SEQ:HASH" for the record seq whose line hashes to h, into buf. */
void	anchor_format(uint64_t seq, const struct bx_hash *h, char *buf);

/* Adds the anchor s ("SEQ:HASH"); fails saying what is wrong with it. */
int	anchors_add(struct anchors *, const char *s, struct bx_error *);

/*
 * Adds every anchor of the file at path: one per line, blank lines and
 * lines starting with '#' skipped. A bad line fails as "PATH:LINE: why".
 */
int	anchors_load(struct anchors *, const char *path, struct bx_error *);

/* Puts the anchors in seq order: once, after the last add, before the read. */
void	anchors_sort(struct anchors *);

/*
 * A chain record hook (chain.h) that marks the anchors of the record's
 * seq; ctx is the sorted anchors.
 */
void	anchors_on_record(void *ctx, const struct bx_chain_record *);

/*
 * Prints one line per anchor, in seq order, on fp, after the chain's
 * report r: "anchor SEQ:HASH: ok (FILE:LINE)", or "... failed: why".
 * Returns how many failed.
 */
size_t	anchors_print(FILE *fp, const struct anchors *,
	    const struct bx_chain_report *r);

void	anchors_free(struct anchors *);

#endif
