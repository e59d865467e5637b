/*
 * grants-fuzzer.c: libFuzzer harness for grant file loading (grantfile.c
 * through grants_add_file()). Any input must either become one valid grant
 * that keeps every loading rule, or at least one problem with a text; then
 * a decision is made against the set, which must be a deny when the set is
 * invalid. A broken promise aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/args.h"
#include "brokerd/grants.h"
#include "brokerd/policy.h"
#include "proto/hostname.h"

/* A grant file of the fuzzer is as large as the loader allows. */
#define MAX_INPUT	GRANTS_FILE_MAX

static void
check(int ok)
{
	if (!ok)
		abort();
}

static void
check_grant(const struct grant *g)
{
	struct bx_error err;
	size_t i;

	check(strcmp(g->g_id, "fuzz-grant") == 0);
	check(g->g_tool < BX_TOOL_MAX && g->g_mode < GRANT_MODE_MAX);
	check(g->g_max_taint < BX_CLASS_MAX &&
	    g->g_result_class < BX_CLASS_MAX);
	check(g->g_expires >= BX_TIME_MIN_MS && g->g_expires <= BX_TIME_MAX_MS);
	for (i = 0; i < g->g_npaths; i++)
		check(bx_path_check(g->g_paths[i], strlen(g->g_paths[i]),
		    &err) == 0);
	for (i = 0; i < g->g_nhosts; i++)
		check(bx_host_pattern_check(g->g_hosts[i],
		    strlen(g->g_hosts[i]), &err) == 0);
	/* Rule 6. */
	if (g->g_tool == BX_TOOL_READ_FILE || g->g_tool == BX_TOOL_WRITE_FILE)
		check(g->g_npaths > 0 && g->g_nhosts == 0);
	if (g->g_tool == BX_TOOL_SHELL)
		check(g->g_nhosts == 0);
	if (g->g_tool == BX_TOOL_HTTP_FETCH)
		check(g->g_npaths == 0 && g->g_nhosts > 0);
	/* Rule 4: a secret, well named, on http_fetch to exact hosts. */
	if (grant_secret(g) != NULL) {
		check(bx_secret_name_check(grant_secret(g), &err) == 0);
		check(g->g_tool == BX_TOOL_HTTP_FETCH);
		for (i = 0; i < g->g_nhosts; i++)
			check(bx_host_check(g->g_hosts[i],
			    strlen(g->g_hosts[i]), &err) == 0);
	}
}

static void
decide_once(const struct grants *set)
{
	static const char *args[BX_TOOL_MAX] = {
		"{\"path\":\"/home/kyle/notes/a.md\"}",
		"{\"path\":\"/home/kyle/notes/a.md\",\"content\":\"x\"}",
		"{\"command\":\"ls\",\"cwd\":\"/home/kyle\"}",
		"{\"url\":\"https://www.example.com/\"}",
	};
	struct policy_request r;
	struct decision *d;
	struct bx_error err;
	struct bx_outcome o;
	int t;

	for (t = 0; t < BX_TOOL_MAX; t++) {
		r.pr_tool = bx_tool_name((enum bx_tool)t);
		r.pr_arguments = args[t];
		r.pr_arguments_len = strlen(args[t]);
		r.pr_taint = BX_CLASS_PRIVATE;
		r.pr_state_unreadable = false;
		r.pr_now = 1789000000000;
		check(policy_decide_grants(set, &r, &d, &err) == 0);
		o = decision_outcome(d);
		if (!grants_valid(set))
			check(o.kind == BX_OUTCOME_DENIED &&
			    o.reason == BX_DENY_GRANTS_INVALID);
		if (o.kind != BX_OUTCOME_DENIED)
			check(decision_has_grant(d));
		decision_free(d);
	}
}

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct grants *set = NULL;
	struct bx_hash h;
	struct bx_error err;
	char line[2048];
	size_t i;

	if (size > MAX_INPUT)
		return 0;
	check(grants_new(&set, &err) == 0);
	check(grants_add_file(set, "/fuzz/fuzz-grant.toml",
	    (const char *)data, size, &err) == 0);
	grants_finish(set);
	check(set->gs_len + (set->gs_nproblems > 0) == 1);
	if (set->gs_len == 1)
		check_grant(&set->gs_grants[0]);
	for (i = 0; i < set->gs_nproblems; i++) {
		check(set->gs_problems[i].gp_problem[0] != '\0');
		check(set->gs_problems[i].gp_line >= 0);
		grants_problem_format(&set->gs_problems[i], line, sizeof(line));
	}
	check(grants_fingerprint(set, &h, &err) == 0);
	decide_once(set);
	grants_free(set);
	return 0;
}
