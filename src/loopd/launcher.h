/*
 * launcher.h: the part of loopd that stays outside the jail (roles.md
 * section 3, "Who builds it"). It plans the jail (jail_plan.h), gives the
 * jail's uid its ACL entries, reads the model's key, and has
 * jailrun/launch.h start the model relay and loopd's turn loop in the
 * jail as `loopd serve --config PATH --in-jail OWNER_UID`, pass it
 * SIGTERM and SIGINT, and end when it ends. It reads no model text, chat
 * message or tool result.
 *
 * The turn loop gets the environment launch.h gives and, when [model]
 * api_key_file is set, the key on descriptor LAUNCHER_KEY_FD, read here:
 * the key file stays the owner's alone. launcher_key is how the key's
 * messages name it, outside the jail and in it.
 */
#ifndef LOOPD_LAUNCHER_H
#define LOOPD_LAUNCHER_H

#include "jailrun/launch.h"
#include "jailrun/secret.h"
#include "loopd/config.h"

/* The turn loop's descriptor holding the model's key. */
#define LAUNCHER_KEY_FD		JAIL_LAUNCH_SECRET_FD

extern const struct secret_kind launcher_key;

/*
 * Runs the jailed turn loop for cfg, read from config_path (absolute),
 * until it exits; log gets one line per event. Returns what
 * jail_launch_run() returns. Must be called while the process has one
 * thread.
 */
int	launcher_run(const struct loop_config *cfg, const char *config_path,
	    void (*log)(void *arg, const char *line), void *log_arg);

#endif
