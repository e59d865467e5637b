/*
 * grantprune.c: sorting expired grants, and removing bxctl's
 * (grantprune.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bxctl/grants/grantprune.h"
#include "bxctl/grants/grantwrite.h"

bool
grantprune_is_bxctls(const struct grant *g)
{
	size_t mark = strlen(GRANTPRUNE_MARK);

	return strncmp(g->g_id, "approved-", strlen("approved-")) == 0 &&
	    g->g_len >= mark && memcmp(g->g_bytes, GRANTPRUNE_MARK, mark) == 0;
}

void
grantprune_free(struct grantprune *gp)
{
	if (gp == NULL)
		return;
	grants_free(gp->gp_set);
	free(gp->gp_prunable);
	free(gp->gp_gone);
	free(gp->gp_kept);
	free(gp->gp_hand);
	free(gp);
}

/* Room for every grant of the set in each list. */
static int
lists_new(struct grantprune *gp, size_t n, struct bx_error *err)
{
	if (n == 0)
		n = 1;
	gp->gp_prunable = calloc(n, sizeof(*gp->gp_prunable));
	gp->gp_gone = calloc(n, sizeof(*gp->gp_gone));
	gp->gp_kept = calloc(n, sizeof(*gp->gp_kept));
	gp->gp_hand = calloc(n, sizeof(*gp->gp_hand));
	if (gp->gp_prunable == NULL || gp->gp_gone == NULL ||
	    gp->gp_kept == NULL ||
	    gp->gp_hand == NULL)
		return bx_fail(err, "out of memory");
	return 0;
}

int
grantprune_scan(const char *dir, int64_t now, int64_t keep_ms,
    struct grantprune **ret, struct bx_error *err)
{
	struct grantprune *gp;
	const struct grant *g;
	size_t i;

	if ((gp = calloc(1, sizeof(*gp))) == NULL)
		return bx_fail(err, "out of memory");
	if (grants_load(dir, &gp->gp_set, err) == -1 ||
	    lists_new(gp, gp->gp_set->gs_len, err) == -1) {
		grantprune_free(gp);
		return -1;
	}
	for (i = 0; i < gp->gp_set->gs_len; i++) {
		g = &gp->gp_set->gs_grants[i];
		if (g->g_expires > now)
			continue;
		gp->gp_expired++;
		if (!grantprune_is_bxctls(g))
			gp->gp_hand[gp->gp_nhand++] = g;
		else if (now - g->g_expires > keep_ms)
			gp->gp_prunable[gp->gp_nprunable++] = g;
		else
			gp->gp_kept[gp->gp_nkept++] = g;
	}
	*ret = gp;
	return 0;
}

int
grantprune_remove(const char *dir, struct grantprune *gp,
    struct bx_error *err)
{
	const struct grant *g;
	size_t i;

	for (i = 0; i < gp->gp_nprunable; i++) {
		g = gp->gp_prunable[i];
		if (grantwrite_remove_same(dir, g->g_id, g->g_bytes, g->g_len,
		    &gp->gp_gone[i], err) == -1)
			return bx_error_prefix(err, "pruning %s", g->g_id);
	}
	return 0;
}

size_t
grantprune_removed(const struct grantprune *gp)
{
	size_t i, n = 0;

	for (i = 0; i < gp->gp_nprunable; i++)
		if (gp->gp_gone[i])
			n++;
	return n;
}
