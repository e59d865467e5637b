/*
 * bridge.h: the bridge's core, run inside its jail: posts each pending
 * approval to the owner's DM, reads the answers, patches the posts, and
 * keeps <state_dir>/state.json. The bridgecore branch owns this header;
 * this copy holds only the agreed prototype, so the launcher links.
 *
 * Ownership: everything passed is the caller's and only read.
 */
#ifndef BXBRIDGE_BRIDGE_H
#define BXBRIDGE_BRIDGE_H

#include "bxbridge/config.h"
#include "proto/error.h"

/*
 * Serves until stop_fd is readable (returns 0) or a fatal error (-1 with
 * err). mm_socket is the relay's Unix socket, or NULL to connect
 * directly.
 */
int	bridge_serve(const struct bridge_config *cfg, const char *token,
	    const char *mm_socket, const char *state_dir, int stop_fd,
	    struct bx_error *err);

#endif
