/*
 * secretdir.h: the secrets directory beside brokerd.toml
 * (<config_dir>/secrets, brokerd/secret.h), made for `bxctl secrets add`
 * and `bxctl init` with the mode brokerd's reader demands, and judged by
 * that reader before anything is put in it.
 *
 * Nothing here prints or allocates.
 */
#ifndef BXCTL_SECRETDIR_H
#define BXCTL_SECRETDIR_H

#include <stddef.h>

#include "proto/error.h"

/* <config_dir>/secrets into buf (size bytes); -1 when it does not fit. */
int	secretdir_path(const char *config_dir, char *buf, size_t size,
	    struct bx_error *err);

/*
 * Makes <config_dir>/secrets with mode 0700 exactly (whatever the umask)
 * when it is absent, syncing config_dir; then checks it as brokerd's
 * reader does. Returns 0, or -1 with err saying what is wrong with it in
 * the reader's words (a directory of another mode or owner, a symbolic
 * link, a file) and that nothing was changed.
 */
int	secretdir_make(const char *config_dir, struct bx_error *err);

#endif
