/*
 * pathsearch.c: a program's name through PATH's absolute directories
 * (pathsearch.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto/path.h"
#include "proto/pathsearch.h"

int
bx_path_search(const char *path_list, const char *name, const char *root,
    char *ret, size_t size)
{
	const char *dir, *end, *prefix = strcmp(root, "/") == 0 ? "" : root;
	char candidate[BX_PATH_MAX + 1], full[2 * BX_PATH_MAX + 2];
	int n;

	dir = path_list != NULL ? path_list : BX_PATH_SEARCH_DEFAULT;
	for (;; dir = end + 1) {
		end = strchrnul(dir, ':');
		n = snprintf(candidate, sizeof(candidate), "%.*s/%s",
		    (int)(end - dir), dir, name);
		if (dir[0] == '/' && n > 0 && (size_t)n < sizeof(candidate) &&
		    (size_t)n < size) {
			snprintf(full, sizeof(full), "%s%s", prefix, candidate);
			if (access(full, X_OK) == 0) {
				memcpy(ret, candidate, (size_t)n + 1);
				return 0;
			}
		}
		if (*end == '\0')
			return -1;
	}
}
