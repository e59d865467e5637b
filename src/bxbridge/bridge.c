/*
 * bridge.c: a stand-in for the bridge's core (bridge.h) until the
 * bridgecore branch is merged, which replaces this file: it refuses to
 * serve, so that a bxbridge built without the core says so and exits 1.
 */
#include "bxbridge/bridge.h"

int
bridge_serve(const struct bridge_config *cfg, const char *token,
    const char *mm_socket, const char *state_dir, int stop_fd,
    struct bx_error *err)
{
	(void)cfg;
	(void)token;
	(void)mm_socket;
	(void)state_dir;
	(void)stop_fd;
	return bx_fail(err, "the bridge's core is not built into this "
	    "bxbridge (bridge_serve is a stub)");
}
