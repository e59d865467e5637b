/*
 * path.c: the form check of absolute paths (path.h).
 */
#include <string.h>

#include "proto/path.h"

int
bx_path_check(const char *s, size_t len, struct bx_error *err)
{
	size_t i, start;

	if (len == 0 || s[0] != '/')
		return bx_fail(err, "not an absolute path (must start "
		    "with /)");
	if (len > BX_PATH_MAX)
		return bx_fail(err, "longer than %d bytes", BX_PATH_MAX);
	if (memchr(s, '\0', len) != NULL)
		return bx_fail(err, "contains a NUL byte");
	if (len == 1)
		return 0;
	for (start = 1; start <= len; start = i + 1) {
		for (i = start; i < len && s[i] != '/'; i++)
			;
		if (i == start)
			return bx_fail(err, i == len ? "ends with /" :
			    "has an empty component (//)");
		if ((i - start == 1 && s[start] == '.') ||
		    (i - start == 2 && s[start] == '.' && s[start + 1] == '.'))
			return bx_fail(err, "has a . or .. component");
	}
	return 0;
}

int
bx_socket_path_check(const char *s, size_t len, struct bx_error *err)
{
	if (bx_path_check(s, len, err) == -1)
		return -1;
	if (len > BX_SOCKET_PATH_MAX)
		return bx_fail(err, "a socket path is at most %d bytes",
		    BX_SOCKET_PATH_MAX);
	return 0;
}
