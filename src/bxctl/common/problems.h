/*
 * problems.h: problems with the owner's files, gathered to be printed as
 * FILE:LINE: PROBLEM: those brokerd's secret reader reports (its struct
 * secret_sink takes problems_add() and a list) and those of a grant
 * report, for `bxctl secrets list`, `secrets add`, `grants check` and
 * `grants add`, which print them alike. A problem already held (the same
 * file, line and text, such as the secrets directory's mode, found again
 * for each secret) is held once.
 *
 * Ownership: the list owns its copies; problems_clear() frees them and
 * leaves an empty list. A zeroed list is empty.
 */
#ifndef BXCTL_PROBLEMS_H
#define BXCTL_PROBLEMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct problem {
	char	*p_file;
	int64_t	 p_line;	/* 0: none */
	char	*p_text;
};

struct problem_list {
	struct problem	*pl_items;
	size_t		 pl_len;
};

/*
 * Adds a copy to the list ctx; 0, or -1 when memory runs out. Shaped as
 * struct secret_sink's ss_problem, so that it is one.
 */
int	problems_add(void *ctx, const char *file, int64_t line,
	    const char *problem);

/* Adds every problem of from to to: 0, or -1 when memory runs out. */
int	problems_add_all(struct problem_list *to,
	    const struct problem_list *from);

/* Each problem as FILE:LINE: PROBLEM, escaped, after prefix (or ""). */
void	problems_print(FILE *, const struct problem_list *,
	    const char *prefix);

/*
 * What `bxctl COMMAND` says when brokerd would refuse the file it was
 * about to write: each problem on standard error after "bxctl COMMAND: ",
 * then that it would refuse this WHAT ("grant", "secret"), so nothing was
 * written.
 */
void	problems_refused(const struct problem_list *, const char *command,
	    const char *what);

/*
 * "<done> <name> (<dir>/<name>.toml)" and a newline, dir escaped: what
 * bxctl says when no problem refused a file and it wrote it ("added
 * grant", "replaced secret"). name is one bxctl checked, a grant id or a
 * secret name.
 */
void	problems_written(FILE *, const char *done, const char *name,
	    const char *dir);

void	problems_clear(struct problem_list *);

#endif
