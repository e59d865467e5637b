/*
 * exec_started.c: the search for bxtool's start line in a runtime's stderr
 * (exec_find_started, runner_exec.h). It is apart from runner_exec.c, which
 * calls it after each read, because it is the one piece of the supervisor
 * that reads bytes the sandbox chose: the fuzzer's target is this file.
 */
#include <string.h>

#include "brokerd/runner/runner_exec.h"

bool
exec_find_started(const char *err, size_t len, size_t scanned)
{
	const char *p, *end = err + len, *hit;
	size_t n = strlen(EXEC_STARTED_LINE);

	p = err + (scanned >= n ? scanned - n + 1 : 0);
	for (; (hit = memmem(p, (size_t)(end - p), EXEC_STARTED_LINE, n)) !=
	    NULL; p = hit + 1)
		if (hit == err || hit[-1] == '\n')
			return true;
	return false;
}
