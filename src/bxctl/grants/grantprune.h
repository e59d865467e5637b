/*
 * grantprune.h: the expired grants of a grants directory, and the removal
 * of those bxctl itself wrote, for `bxctl grants prune`, for `approve
 * --for` (which prunes before it writes) and for `bxctl status`.
 *
 * brokerd reads every grant file at every decision, so dead files cost
 * every call. A grant is bxctl's when its id begins "approved-" and its
 * file begins with the comment `approve --for` writes; only those are
 * removed, once expired for longer than a bound. A grant the owner wrote
 * is never removed: it is listed, for the owner to decide. A file the
 * loader refuses is never touched. Each removal takes the file out of
 * the set in one rename and only if it still holds what was read
 * (grantwrite_remove_same()).
 *
 * Nothing here prints. Ownership: grantprune_scan() allocates *ret, which
 * grantprune_free() frees (NULL is fine); the grants listed point into
 * its set and live as long as it.
 */
#ifndef BXCTL_GRANTPRUNE_H
#define BXCTL_GRANTPRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/grants.h"
#include "proto/error.h"

/* How long an expired grant of bxctl's is kept by default: 7 days. */
#define GRANTPRUNE_KEEP_MS	(7LL * 24 * 3600 * 1000)
/* The longest --expired-for: ten years. */
#define GRANTPRUNE_KEEP_MAX_MS	(3650LL * 24 * 3600 * 1000)
/* How every file `approve --for` writes begins. */
#define GRANTPRUNE_MARK		"# Written by bxctl approve "

struct grantprune {
	struct grants		 *gp_set;
	size_t			  gp_expired;	/* of gp_set's valid grants */
	const struct grant	**gp_prunable;	/* bxctl's, expired > bound */
	bool			 *gp_gone;	/* each removed by _remove() */
	size_t			  gp_nprunable;
	const struct grant	**gp_kept;	/* bxctl's, expired <= bound */
	size_t			  gp_nkept;
	const struct grant	**gp_hand;	/* the owner's, expired */
	size_t			  gp_nhand;
};

/* Whether g is a grant bxctl wrote (approve --for). */
bool	grantprune_is_bxctls(const struct grant *);

/*
 * Loads dir and sorts its expired grants at now (ms since the epoch),
 * bxctl's being prunable once expired for longer than keep_ms. Fails
 * only when memory runs out.
 */
int	grantprune_scan(const char *dir, int64_t now, int64_t keep_ms,
	    struct grantprune **ret, struct bx_error *);
void	grantprune_free(struct grantprune *);

/*
 * Removes each prunable grant of gp, marking in gp_gone those that went;
 * one changed since the scan stays. Stops at the first failure, with the
 * marks of those removed before it.
 */
int	grantprune_remove(const char *dir, struct grantprune *,
	    struct bx_error *);
/* How many grants gp_gone marks. */
size_t	grantprune_removed(const struct grantprune *);

#endif
