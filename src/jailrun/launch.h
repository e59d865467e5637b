/*
 * launch.h: the part of a jailed program that stays outside its jail
 * (roles.md section 3, "Who builds it"), loopd's launcher's and the
 * bridge's alike. Once its caller has planned the jail (jailrun/plan.h),
 * it starts the relay (jailrun/relay.h) at the plan's relay socket and
 * gives the jail's uid rw on it, starts the program itself
 * (/proc/self/exe) in the jail with the caller's argv, passes it SIGTERM
 * and SIGINT, and ends when it ends. It reads nothing the program writes:
 * its only peer is the relay's, whose bytes it copies without reading.
 *
 * The program gets a fixed environment (JAIL_LAUNCH_ENV_PATH and
 * BOXMAKER_HOME, the plan's home, so it finds the home the launcher found)
 * and, when the caller's prepare step gives one, a secret on descriptor
 * JAIL_LAUNCH_SECRET_FD through a pipe (jailrun/secret.h): the secret's
 * file stays the owner's alone.
 *
 * Ownership: the launch and what it points to are the caller's; the
 * secret prepare returns is the launch's, wiped and freed before
 * jail_launch_run() returns.
 */
#ifndef JAILRUN_LAUNCH_H
#define JAILRUN_LAUNCH_H

#include "jailrun/plan.h"

#define JAIL_LAUNCH_ENV_PATH	"PATH=/usr/bin:/bin"
/* The jailed program's descriptor holding its secret. */
#define JAIL_LAUNCH_SECRET_FD	3
/* How long the program has to stop after SIGTERM before SIGKILL. */
#define JAIL_LAUNCH_STOP_GRACE_S	30

struct jail_launch {
	/*
	 * Plans the jail and grants its ACL entries, and reads the secret
	 * (*ret_secret, left NULL for none); called with SIGTERM, SIGINT
	 * and SIGCHLD blocked, so a stop asked meanwhile reaches the
	 * program once it runs.
	 */
	int		(*jl_prepare)(void *arg, struct jail_plan *plan,
			    char **ret_secret, struct bx_error *err);
	void		*jl_prepare_arg;
	const char	*jl_name;	/* "turn loop": messages */
	const char	*jl_relay_name;	/* "model": relay_new()'s name */
	const char	*jl_url;	/* where the relay connects */
	const char	*jl_reached;	/* "the model": messages */
	char *const	*jl_argv;	/* argv[0]: the program's name */
	/* Not NULL: every event is a line. */
	void		(*jl_log)(void *arg, const char *line);
	void		*jl_log_arg;
};

/*
 * Runs the program in its jail until it exits; jl_log gets one line per
 * event. Returns the exit status the launcher should end with: the
 * program's, or 1 when the jail could not be built (logged, with the fix
 * and the runbook entry); or -SIG when the program died of signal SIG,
 * which the launcher should then die of too, so that its unit sees the
 * crash (Restart=on-abnormal). Must be called while the process has one
 * thread.
 */
int	jail_launch_run(const struct jail_launch *);

#endif
