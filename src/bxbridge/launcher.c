/*
 * launcher.c: bxbridge outside its jail (launcher.h): what is the
 * bridge's own in its launch, the plan and the token; jailrun/launch.c
 * does the rest.
 */
#include <stdio.h>
#include <unistd.h>

#include "bxbridge/bridge_plan.h"
#include "bxbridge/bridge_state.h"
#include "bxbridge/launcher.h"

const struct secret_kind bridge_token = {
	.sk_setting = "[mattermost] token_file",
	.sk_noun = "token",
	.sk_what = "the bot's token",
	.sk_from = "bxbridge's launcher",
	.sk_runbook = "see " BRIDGE_RUNBOOK_TOKEN,
};

struct bridge_launch {
	const struct bridge_config	*bl_cfg;
	struct bridge_plan_input	 bl_in;
};

const char *
bridge_command_name(enum bridge_command c)
{
	return c == BRIDGE_CHECK ? "check" : "serve";
}

static int
prepare(void *arg, struct jail_plan *plan, char **ret_secret,
    struct bx_error *err)
{
	const struct bridge_launch *bl = arg;
	char *token;

	/* The token first: its file is the likelier thing to fix. */
	if (secret_load(&bridge_token, bl->bl_cfg->bc_token_file, &token,
	    err) == -1)
		return -1;
	if (bridge_plan_make(&bl->bl_in, plan, err) == -1 ||
	    bridge_plan_grant(plan, err) == -1) {
		secret_free(token);
		return -1;
	}
	*ret_secret = token;
	return 0;
}

int
bridge_launch_run(enum bridge_command cmd, const struct bridge_config *cfg,
    const char *config_path, const char *home,
    void (*log)(void *, const char *), void *log_arg)
{
	struct bridge_launch bl = {
		.bl_cfg = cfg,
		.bl_in = {
			.bp_home = home,
			.bp_config_path = config_path,
			.bp_broker_socket = cfg->bc_broker_socket,
			.bp_ca_file = cfg->bc_ca_file,
			.bp_relay_name = cmd == BRIDGE_CHECK ?
			    BRIDGE_PLAN_CHECK_RELAY_NAME : NULL,
		},
	};
	char owner[16], launcher[16];
	char *argv[] = { "bxbridge", (char *)bridge_command_name(cmd),
	    "--config", (char *)config_path, "--in-jail", owner, "--launcher",
	    launcher, NULL };
	const struct jail_launch how = {
		.jl_prepare = prepare,
		.jl_prepare_arg = &bl,
		.jl_name = cmd == BRIDGE_CHECK ? "bridge's check" : "bridge",
		.jl_relay_name = "mattermost",
		.jl_url = cfg->bc_url,
		.jl_reached = "Mattermost",
		.jl_argv = argv,
		.jl_log = log,
		.jl_log_arg = log_arg,
	};

	snprintf(owner, sizeof(owner), "%u", (unsigned)getuid());
	/* The pid state.json names: this one outlives the jailed bridge. */
	snprintf(launcher, sizeof(launcher), "%d", (int)getpid());
	return jail_launch_run(&how);
}
