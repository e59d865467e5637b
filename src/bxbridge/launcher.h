/*
 * launcher.h: the part of bxbridge that stays outside its jail, for
 * `bxbridge serve` and `bxbridge check` alike. It plans the bridge's jail
 * (bridge_plan.h), gives the jail's uid its ACL entries, reads the bot's
 * token from [mattermost] token_file (jailrun/secret.h: a regular file of
 * the caller's, mode 0600 or stricter), and has jailrun/launch.h start
 * the relay to the Mattermost URL's host and port and run
 * `bxbridge COMMAND --config PATH --in-jail OWNER_UID` in the jail, with
 * the token on descriptor BRIDGE_TOKEN_FD; it passes SIGTERM and SIGINT
 * and ends when the jailed bridge ends. It reads nothing the server or
 * brokerd says.
 *
 * bridge_token is how the token's messages name it, outside the jail and
 * in it.
 */
#ifndef BXBRIDGE_LAUNCHER_H
#define BXBRIDGE_LAUNCHER_H

#include "bxbridge/config.h"
#include "jailrun/launch.h"
#include "jailrun/secret.h"

/* The jailed bridge's descriptor holding the bot's token. */
#define BRIDGE_TOKEN_FD		JAIL_LAUNCH_SECRET_FD

extern const struct secret_kind bridge_token;

/* What the jailed bridge does: its command word, "serve" or "check". */
enum bridge_command {
	BRIDGE_SERVE,
	BRIDGE_CHECK,
};

const char *bridge_command_name(enum bridge_command);

/*
 * Runs the jailed bridge's command for cfg, read from config_path
 * (absolute), with home (absolute) as its home, until it exits; log gets
 * one line per event. Returns what jail_launch_run() returns. Must be
 * called while the process has one thread.
 */
int	bridge_launch_run(enum bridge_command, const struct bridge_config *cfg,
	    const char *config_path, const char *home,
	    void (*log)(void *arg, const char *line), void *log_arg);

#endif
