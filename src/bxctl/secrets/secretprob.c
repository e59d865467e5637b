/*
 * secretprob.c: the secret reader's problems, gathered (secretprob.h).
 */
#include <stdlib.h>
#include <string.h>

#include "proto/escape.h"
#include "bxctl/secrets/secretprob.h"

static bool
held(const struct secretprob_list *l, const char *file, int64_t line,
    const char *problem)
{
	size_t i;

	for (i = 0; i < l->spl_len; i++)
		if (l->spl_items[i].sp_line == line &&
		    strcmp(l->spl_items[i].sp_file, file) == 0 &&
		    strcmp(l->spl_items[i].sp_text, problem) == 0)
			return true;
	return false;
}

int
secretprob_add(void *ctx, const char *file, int64_t line, const char *problem)
{
	struct secretprob_list *l = ctx;
	struct secretprob *items, *p;

	if (held(l, file, line, problem))
		return 0;
	items = reallocarray(l->spl_items, l->spl_len + 1, sizeof(*items));
	if (items == NULL)
		return -1;
	l->spl_items = items;
	p = &items[l->spl_len];
	p->sp_line = line;
	p->sp_file = strdup(file);
	p->sp_text = strdup(problem);
	if (p->sp_file == NULL || p->sp_text == NULL) {
		free(p->sp_file);
		free(p->sp_text);
		return -1;
	}
	l->spl_len++;
	return 0;
}

struct secret_sink
secretprob_sink(struct secretprob_list *list)
{
	struct secret_sink sink = { secretprob_add, list };

	return sink;
}

void
secretprob_print(FILE *fp, const struct secretprob_list *l,
    const char *prefix)
{
	const struct secretprob *p;
	size_t i;

	for (i = 0; i < l->spl_len; i++) {
		p = &l->spl_items[i];
		fputs(prefix != NULL ? prefix : "", fp);
		escape_problem(fp, p->sp_file, p->sp_line > 0,
		    (uint64_t)p->sp_line, p->sp_text);
	}
}

void
secretprob_clear(struct secretprob_list *l)
{
	size_t i;

	for (i = 0; i < l->spl_len; i++) {
		free(l->spl_items[i].sp_file);
		free(l->spl_items[i].sp_text);
	}
	free(l->spl_items);
	l->spl_items = NULL;
	l->spl_len = 0;
}
