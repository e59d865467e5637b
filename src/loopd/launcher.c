/*
 * launcher.c: loopd outside its jail (launcher.h): what is loopd's own
 * in its launch, the plan and the key; jailrun/launch.c does the rest.
 */
#include <stdio.h>
#include <unistd.h>

#include "loopd/jail_plan.h"
#include "loopd/launcher.h"

const struct secret_kind launcher_key = {
	.sk_setting = "[model] api_key_file",
	.sk_noun = "key",
	.sk_what = "the model's key",
	.sk_from = "loopd's launcher",
	.sk_runbook = "see docs/runbook.md#model-refused",
};

struct loop_launch {
	const struct loop_config	*ll_cfg;
	const char			*ll_config_path;
};

static int
prepare(void *arg, struct jail_plan *plan, char **ret_secret,
    struct bx_error *err)
{
	const struct loop_launch *ll = arg;
	const struct loop_config *cfg = ll->ll_cfg;

	if (jail_plan_make(cfg, ll->ll_config_path, plan, err) == -1 ||
	    jail_plan_grant(plan, err) == -1)
		return -1;
	if (cfg->lc_api_key_file == NULL)
		return 0;
	return secret_load(&launcher_key, cfg->lc_api_key_file, ret_secret,
	    err);
}

int
launcher_run(const struct loop_config *cfg, const char *config_path,
    void (*log)(void *, const char *), void *log_arg)
{
	struct loop_launch ll = { cfg, config_path };
	char owner[16];
	char *argv[] = { "loopd", "serve", "--config", (char *)config_path,
	    "--in-jail", owner, NULL };
	const struct jail_launch how = {
		.jl_prepare = prepare,
		.jl_prepare_arg = &ll,
		.jl_name = "turn loop",
		.jl_relay_name = "model",
		.jl_url = cfg->lc_model_url,
		.jl_reached = "the model",
		.jl_argv = argv,
		.jl_log = log,
		.jl_log_arg = log_arg,
	};

	snprintf(owner, sizeof(owner), "%u", (unsigned)getuid());
	return jail_launch_run(&how);
}
