/*
 * secretprob.h: the problems brokerd's secret reader reports
 * (brokerd/secret.h, struct secret_sink), gathered for bxctl to print as
 * FILE:LINE: PROBLEM. A problem already held (the same file, line and
 * text, such as the secrets directory's mode, found again for each
 * secret) is held once.
 *
 * Ownership: the list owns its copies; secretprob_clear() frees them and
 * leaves an empty list. A zeroed list is empty.
 */
#ifndef BXCTL_SECRETPROB_H
#define BXCTL_SECRETPROB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "brokerd/secret.h"

struct secretprob {
	char	*sp_file;
	int64_t	 sp_line;	/* 0: none */
	char	*sp_text;
};

struct secretprob_list {
	struct secretprob	*spl_items;
	size_t			 spl_len;
};

/* A sink that adds to the list ctx: struct secret_sink's ss_problem. */
int	secretprob_add(void *ctx, const char *file, int64_t line,
	    const char *problem);

/* The sink for list. */
struct secret_sink secretprob_sink(struct secretprob_list *list);

/* Each problem as FILE:LINE: PROBLEM, escaped, after prefix (or ""). */
void	secretprob_print(FILE *, const struct secretprob_list *,
	    const char *prefix);

void	secretprob_clear(struct secretprob_list *);

#endif
