/*
 * path.h: the one form check for an absolute path, in a grant, a tool
 * call's arguments or a configuration file, so that all are judged by one
 * rule: it starts with /, has no NUL, no empty component (no // and no
 * trailing / except the root itself) and no . or .. component, and is at
 * most BX_PATH_MAX bytes. Paths are never normalised: a path that needs
 * normalising is refused.
 */
#ifndef BX_PROTO_PATH_H
#define BX_PROTO_PATH_H

#include <stddef.h>

#include "proto/error.h"

#define BX_PATH_MAX		4096
/* A Unix socket's path: sun_path holds 108 bytes with its NUL. */
#define BX_SOCKET_PATH_MAX	107

/*
 * Returns 0 when s (len bytes, which may hold a NUL) has the form, or -1
 * with the reason in err; the value itself is not quoted, since callers
 * name the field and value.
 */
int	bx_path_check(const char *s, size_t len, struct bx_error *err);

/* bx_path_check, and at most BX_SOCKET_PATH_MAX bytes. */
int	bx_socket_path_check(const char *s, size_t len, struct bx_error *err);

#endif
