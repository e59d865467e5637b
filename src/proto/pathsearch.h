/*
 * pathsearch.h: finding a program by name the way brokerd runs it and
 * bxctl's machine check expects it to be found, one rule for both: the
 * absolute directories of a PATH value, in order. A relative entry (".",
 * "bin", an empty one) is skipped, since it would find the program in
 * whatever directory the process happens to run in.
 *
 * Nothing here allocates.
 */
#ifndef BX_PROTO_PATHSEARCH_H
#define BX_PROTO_PATHSEARCH_H

#include <stddef.h>

/* What a PATH that is unset means here. */
#define BX_PATH_SEARCH_DEFAULT	"/usr/bin:/bin"

/*
 * The first executable called name in path_list's absolute directories
 * (NULL: BX_PATH_SEARCH_DEFAULT), looked for under root ("/" for this
 * machine; another directory stands in for "/" in bxctl's tests). On
 * success ret (size bytes) holds its path as seen from root, and 0 is
 * returned; -1 when none is there or the path would not fit.
 */
int	bx_path_search(const char *path_list, const char *name,
	    const char *root, char *ret, size_t size);

#endif
