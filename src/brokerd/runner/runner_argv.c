/*
 * runner_argv.c: building a program's argument list (runner_argv.h). Adds
 * never fail on their own: running out of memory is remembered and
 * reported once by argv_done, so the renderers read as the lists they
 * build.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "brokerd/runner/runner_argv.h"

void
argv_add(struct argv *a, const char *fmt, ...)
{
	char **v, *s;
	va_list ap;
	int n;

	if (a->a_failed)
		return;
	if (a->a_n + 2 > a->a_cap) {
		v = reallocarray(a->a_v, a->a_cap * 2 + 16, sizeof(*v));
		if (v == NULL) {
			a->a_failed = true;
			return;
		}
		a->a_v = v;
		a->a_cap = a->a_cap * 2 + 16;
	}
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n == -1) {
		a->a_failed = true;
		return;
	}
	a->a_v[a->a_n++] = s;
	a->a_v[a->a_n] = NULL;
}

int
argv_done(struct argv *a, struct bx_error *err)
{
	if (a->a_failed || a->a_v == NULL)
		return bx_fail(err, "runner: out of memory");
	return 0;
}

void
argv_clear(struct argv *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->a_n; i++)
		free(a->a_v[i]);
	free(a->a_v);
	a->a_v = NULL;
	a->a_n = a->a_cap = 0;
	a->a_failed = false;
}
