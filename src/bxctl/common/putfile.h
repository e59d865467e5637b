/*
 * putfile.h: the files bxctl writes for the owner (grant files, secret
 * files) put in place so that no reader ever sees part of one, and taken
 * away again. The order of the steps is the durability notes': the whole
 * file synced under a temporary name, then one rename, then the directory
 * synced, so that a crash leaves the old file or the whole new one.
 *
 * The temporary name is <dir>/.<entry>.XXXXXX, made with mode 0600: a dot
 * first and no .toml at the end, so neither brokerd's grant loader nor
 * its secret reader ever reads it.
 *
 * Nothing here prints or allocates. Each returns 0, or -1 with err saying
 * what failed and that nothing was changed (or what was).
 */
#ifndef BXCTL_PUTFILE_H
#define BXCTL_PUTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

/*
 * Writes len bytes of buf as <dir>/<entry>, mode 0600. Without replace an
 * existing name is refused ("already exists; nothing was replaced"); with
 * it the rename replaces the old file in one step. When the directory
 * cannot be synced a new name is taken back, so that failure means absent.
 */
int	putfile_put(const char *dir, const char *entry, const char *buf,
	    size_t len, bool replace, struct bx_error *err);

/*
 * Removes <dir>/<entry> when it is a regular file, and syncs the
 * directory. what names it for the owner ("grant notes", "secret github")
 * in "there is no <what> (no <path>)".
 */
int	putfile_remove(const char *dir, const char *entry, const char *what,
	    struct bx_error *err);

/*
 * Renames from to to unless to exists (errno EEXIST). A file system
 * without RENAME_NOREPLACE gets link and unlink, which refuse an existing
 * name the same way. Returns 0, or -1 with errno.
 */
int	putfile_rename_noreplace(const char *from, const char *to);

#endif
