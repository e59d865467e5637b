/*
 * log_join.h: joining each call's Decision, Approval and Result records
 * into one entry (log_entry.h), as the chain hands the records over.
 * Entries are handed to the emit callback once they are complete: the
 * callback is the design here, since the join cannot know what its caller
 * does with an entry (log.c hands them to log_show.c).
 *
 * Ownership: the join owns the open entries; an entry handed to the emit
 * callback is the callback's. log_join_free() accepts NULL.
 */
#ifndef BXCTL_LOG_JOIN_H
#define BXCTL_LOG_JOIN_H

#include "bxctl/log/log_entry.h"
#include "proto/chain.h"
#include "proto/error.h"

/*
 * Calls whose last record is not in yet are kept in memory; past this many
 * (a log full of approvals never answered), the oldest is shown as it is.
 */
#define LOG_OPEN_MAX	65536

typedef void	(*log_emit_fn)(void *ctx, struct log_entry *);

struct log_join;

struct log_join	*log_join_new(log_emit_fn emit, void *ctx);
/*
 * Takes one record the chain accepted (its line is read here). Fails only
 * if memory runs out or the line cannot be read (which the chain would
 * have refused).
 */
int	log_join_record(struct log_join *, const struct bx_chain_record *,
	    struct bx_error *);
/* Hands over every entry still open, in Decision order (the end). */
void	log_join_flush(struct log_join *);
void	log_join_free(struct log_join *);

#endif
