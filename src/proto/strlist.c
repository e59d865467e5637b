/*
 * strlist.c: a list of strings in one allocation (see strlist.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/strlist.h"

int
bx_strlist_copy(const char *const *from, size_t n, char ***ret,
    struct bx_error *err)
{
	char **list, *p;
	size_t i, len, bytes;

	if (n == 0) {
		*ret = NULL;
		return 0;
	}
	if (n > SIZE_MAX / sizeof(*list))
		return bx_fail(err, "out of memory");
	bytes = n * sizeof(*list);
	for (i = 0; i < n; i++) {
		len = strlen(from[i]) + 1;
		if (len > SIZE_MAX - bytes)
			return bx_fail(err, "out of memory");
		bytes += len;
	}
	if ((list = malloc(bytes)) == NULL)
		return bx_fail(err, "out of memory");
	p = (char *)(list + n);
	for (i = 0; i < n; i++) {
		len = strlen(from[i]) + 1;
		memcpy(p, from[i], len);
		list[i] = p;
		p += len;
	}
	*ret = list;
	return 0;
}
