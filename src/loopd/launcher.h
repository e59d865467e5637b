/*
 * launcher.h: the part of loopd that stays outside the jail (roles.md
 * section 3, "Who builds it"). It plans the jail (jail_plan.h), gives the
 * jail's uid its ACL entries, starts the model relay (relay.h), starts
 * loopd's turn loop in the jail as `loopd serve --config PATH --in-jail
 * OWNER_UID`, passes it SIGTERM and SIGINT, and ends when it ends. It
 * reads no model text, chat message or tool result: its only peer is the
 * relay's, whose bytes it copies without reading.
 *
 * The turn loop gets a fixed environment (LAUNCHER_ENV_PATH and
 * BOXMAKER_HOME, so it finds the home the launcher found) and, when
 * [model] api_key_file is set, the key on descriptor 3, read here: the
 * key file stays the owner's alone.
 */
#ifndef LOOPD_LAUNCHER_H
#define LOOPD_LAUNCHER_H

#include "loopd/config.h"

#define LAUNCHER_ENV_PATH	"PATH=/usr/bin:/bin"
/* The turn loop's descriptor holding the model's key. */
#define LAUNCHER_KEY_FD		3
/* How long the turn loop has to stop after SIGTERM before SIGKILL. */
#define LAUNCHER_STOP_GRACE_S	30

/*
 * Runs the jailed turn loop for cfg, read from config_path (absolute),
 * until it exits; log gets one line per event. Returns the exit status
 * loopd should end with: the turn loop's, or 1 when the jail could not be
 * built (logged, with the fix and the runbook entry); or -SIG when the
 * turn loop died of signal SIG, which loopd should then die of too, so
 * that its unit sees the crash (Restart=on-abnormal). Must be called
 * while the process has one thread.
 */
int	launcher_run(const struct loop_config *cfg, const char *config_path,
	    void (*log)(void *arg, const char *line), void *log_arg);

#endif
