/*
 * problems.c: problems with the owner's files, gathered and printed
 * (problems.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "proto/escape.h"
#include "bxctl/common/problems.h"

static bool
held(const struct problem_list *l, const char *file, int64_t line,
    const char *problem)
{
	size_t i;

	for (i = 0; i < l->pl_len; i++)
		if (l->pl_items[i].p_line == line &&
		    strcmp(l->pl_items[i].p_file, file) == 0 &&
		    strcmp(l->pl_items[i].p_text, problem) == 0)
			return true;
	return false;
}

int
problems_add(void *ctx, const char *file, int64_t line, const char *problem)
{
	struct problem_list *l = ctx;
	struct problem *items, *p;

	if (held(l, file, line, problem))
		return 0;
	items = reallocarray(l->pl_items, l->pl_len + 1, sizeof(*items));
	if (items == NULL)
		return -1;
	l->pl_items = items;
	p = &items[l->pl_len];
	p->p_line = line;
	p->p_file = strdup(file);
	p->p_text = strdup(problem);
	if (p->p_file == NULL || p->p_text == NULL) {
		free(p->p_file);
		free(p->p_text);
		return -1;
	}
	l->pl_len++;
	return 0;
}

int
problems_add_all(struct problem_list *to, const struct problem_list *from)
{
	size_t i;

	for (i = 0; i < from->pl_len; i++)
		if (problems_add(to, from->pl_items[i].p_file,
		    from->pl_items[i].p_line, from->pl_items[i].p_text) == -1)
			return -1;
	return 0;
}

void
problems_print(FILE *fp, const struct problem_list *l, const char *prefix)
{
	const struct problem *p;
	size_t i;

	for (i = 0; i < l->pl_len; i++) {
		p = &l->pl_items[i];
		fputs(prefix != NULL ? prefix : "", fp);
		escape_problem(fp, p->p_file, p->p_line > 0,
		    (uint64_t)p->p_line, p->p_text);
	}
}

void
problems_refused(const struct problem_list *l, const char *command,
    const char *what)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "bxctl %s: ", command);
	problems_print(stderr, l, prefix);
	fprintf(stderr, "%sbrokerd would refuse this %s, so nothing was "
	    "written\n", prefix, what);
}

void
problems_clear(struct problem_list *l)
{
	size_t i;

	for (i = 0; i < l->pl_len; i++) {
		free(l->pl_items[i].p_file);
		free(l->pl_items[i].p_text);
	}
	free(l->pl_items);
	l->pl_items = NULL;
	l->pl_len = 0;
}

void
problems_written(FILE *fp, const char *done, const char *name,
    const char *dir)
{
	fprintf(fp, "%s %s (", done, name);
	escape_puts(fp, dir);
	fprintf(fp, "/%s.toml)\n", name);
}
