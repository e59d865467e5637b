/*
 * api_key.h: the key llama-server was started with (--api-key), read from
 * [model] api_key_file. The file must be a regular file that only its
 * owner may read (no group or other bits), holding one line of printable
 * ASCII; anything else is refused with a message naming the file and
 * saying why, so a key is never sent that others could have read. The
 * key itself appears in no message.
 *
 * Ownership: api_key_load() allocates *ret; api_key_free() wipes and
 * frees it (NULL allowed).
 */
#ifndef LOOPD_API_KEY_H
#define LOOPD_API_KEY_H

#include "proto/error.h"

/* A longer file is refused: no real key is this long. */
#define API_KEY_FILE_MAX	4096

int	api_key_load(const char *path, char **ret, struct bx_error *err);
/*
 * The key from a descriptor, to its end: loopd's launcher passes it to
 * the jailed turn loop through a pipe. The descriptor is left open.
 */
int	api_key_read_fd(int fd, char **ret, struct bx_error *err);
void	api_key_free(char *key);

#endif
