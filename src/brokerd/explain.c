/*
 * explain.c: `brokerd explain`. It reads brokerd.toml and the grants
 * directory the way serve does and decides with policy.c, then prints what
 * the decision saw. It reads the grant set once itself, so that the report
 * can show each candidate's expiry, max_taint and constraints; that is the
 * same grants_load() a decision uses.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "brokerd/config.h"
#include "brokerd/explain.h"
#include "brokerd/grants.h"
#include "brokerd/policy.h"
#include "proto/clock.h"
#include "proto/help.h"

struct options {
	const char	*o_config;
	enum bx_class	 o_taint;
	int64_t		 o_now;
	bool		 o_json;
	const char	*o_tool;
	const char	*o_arguments;
};

static int
usage(FILE *errs)
{
	bx_help_usage_line(errs, 0, EXPLAIN_USAGE);
	return EXPLAIN_EXIT_USAGE;
}

static int
parse_options(int argc, char **argv, struct options *o, FILE *errs)
{
	static const struct option longs[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "taint", required_argument, NULL, 't' },
		{ "now", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct bx_error err;
	int ch;

	memset(o, 0, sizeof(*o));
	o->o_taint = BX_CLASS_PRIVATE;
	o->o_now = bx_clock_wall_ms();
	optind = 0;	/* glibc: start afresh, for callers that run twice */
	opterr = 0;
	/* GNU getopt moves the operands last: options may follow them. */
	while ((ch = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		if (ch == 'c')
			o->o_config = optarg;
		else if (ch == 'j')
			o->o_json = true;
		else if (ch == 't') {
			if (bx_class_parse(optarg, &o->o_taint, &err) == -1) {
				fprintf(errs, "brokerd explain: --taint: %s\n",
				    err.msg);
				return -1;
			}
		} else if (ch == 'n') {
			if (bx_time_parse(optarg, &o->o_now, &err) == -1) {
				fprintf(errs, "brokerd explain: --now: %s\n",
				    err.msg);
				return -1;
			}
		} else
			return -1;
	}
	if (argc - optind != 2)
		return -1;
	o->o_tool = argv[optind];
	o->o_arguments = argv[optind + 1];
	return 0;
}

const struct grant *
explain_find_grant(const struct grants *set, const char *id)
{
	size_t i;

	for (i = 0; i < set->gs_len; i++)
		if (strcmp(set->gs_grants[i].g_id, id) == 0)
			return &set->gs_grants[i];
	return NULL;
}

static void
print_list(FILE *out, const char *label, char *const *list, size_t n)
{
	size_t i;

	fprintf(out, "%s [", label);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%s", i > 0 ? ", " : "", list[i]);
	fprintf(out, "]");
}

/*
 * Why a grant's constraints do not cover the call, in the terms of the
 * design's table: the argument that was checked and what it was checked
 * against.
 */
static void
print_not_covered(FILE *out, const char *sep, const struct tool_args *a,
    const struct grant *g)
{
	size_t i;

	fprintf(out, "%s ", sep);
	switch (a->ta_tool) {
	case BX_TOOL_HTTP_FETCH:
		fprintf(out, "host %s matches none of its ", a->ta_host);
		print_list(out, "hosts", g->g_hosts, g->g_nhosts);
		return;
	case BX_TOOL_SHELL:
		if (g->g_npaths == 0) {
			fprintf(out, "it has no paths, so it covers only calls "
			    "without cwd");
			return;
		}
		if (a->ta_cwd == NULL) {
			fprintf(out, "the call names no cwd, and it covers only "
			    "a cwd inside its ");
			print_list(out, "paths", g->g_paths, g->g_npaths);
			return;
		}
		fprintf(out, "cwd %s is not inside its ", a->ta_cwd);
		print_list(out, "paths", g->g_paths, g->g_npaths);
		return;
	default:
		for (i = 0; a->ta_tool == BX_TOOL_WRITE_FILE &&
		    i < g->g_npaths; i++)
			if (strcmp(g->g_paths[i], a->ta_path) == 0) {
				fprintf(out, "path %s is its grant path itself, "
				    "and write_file writes only below one",
				    a->ta_path);
				return;
			}
		fprintf(out, "path %s is not inside its ", a->ta_path);
		print_list(out, "paths", g->g_paths, g->g_npaths);
		return;
	}
}

/* "" before the first reason, ";" before each later one. */
static const char *
sep(int *n)
{
	return (*n)++ == 0 ? "" : ";";
}

void
explain_why(FILE *out, const struct decision *d,
    const struct policy_candidate *c, const struct grant *g)
{
	char when[BX_TIME_LEN + 1];
	int n = 0;

	bx_time_format(g->g_expires, when);
	switch (c->pc_verdict) {
	case POLICY_MATCHED:
		fprintf(out, "matched");
		n++;
		break;
	case POLICY_OUTRANKED:
		fprintf(out, "would match, but %s wins (a higher rank: deny, "
		    "exact auto, ask, auto; or the same rank and a lower id)",
		    decision_grant_id(d));
		n++;
		break;
	default:
		fprintf(out, "ruled out:");
		break;
	}
	if (c->pc_expired)
		fprintf(out, "%s expired at %s", sep(&n), when);
	if (c->pc_taint_high)
		fprintf(out, "%s the session's taint %s is above its max_taint "
		    "%s", sep(&n), bx_class_name(decision_taint(d)),
		    bx_class_name(g->g_max_taint));
	if (!c->pc_covered)
		print_not_covered(out, sep(&n), decision_args(d), g);
}

/* Why one candidate was or was not chosen, in words, on a line. */
static void
print_candidate(FILE *out, const struct decision *d,
    const struct policy_candidate *c, const struct grant *g)
{
	fprintf(out, "  %s (%s): ", c->pc_id, grant_mode_name(c->pc_mode));
	explain_why(out, d, c, g);
	fprintf(out, "\n");
}

static void
print_text(FILE *out, const struct decision *d, const struct grants *set)
{
	struct bx_outcome o = decision_outcome(d);
	char line[BX_ERROR_MAX + 256];
	const char *path;
	size_t i;

	fprintf(out, "outcome: %s", bx_outcome_name(o.kind));
	if (o.kind == BX_OUTCOME_DENIED)
		fprintf(out, " (%s)", bx_deny_name(o.reason));
	fprintf(out, "\n");
	if (o.kind == BX_OUTCOME_DENIED && o.reason == BX_DENY_GRANTS_INVALID) {
		for (i = 0; i < set->gs_nproblems; i++) {
			grants_problem_format(&set->gs_problems[i], line,
			    sizeof(line));
			fprintf(out, "problem: %s\n", line);
		}
		fprintf(out, "%s\n", GRANTS_RUNBOOK);
	}
	if (decision_detail(d)[0] != '\0')
		fprintf(out, "arguments: %s\n", decision_detail(d));
	if (decision_has_grant(d)) {
		path = decision_matched_path(d);
		fprintf(out, "grant: %s (%s, result_class %s, untrusted %s%s%s)\n",
		    decision_grant_id(d), grant_mode_name(decision_grant_mode(d)),
		    bx_class_name(decision_result_class(d)),
		    decision_untrusted(d) ? "true" : "false",
		    path != NULL ? ", matched path " : "",
		    path != NULL ? path : "");
	} else
		fprintf(out, "grant: none\n");
	if (decision_ncandidates(d) == 0 && decision_args(d) != NULL)
		fprintf(out, "candidates: none (no grant for %s)\n",
		    decision_tool_name(d));
	else if (decision_ncandidates(d) > 0)
		fprintf(out, "candidates:\n");
	for (i = 0; i < decision_ncandidates(d); i++)
		print_candidate(out, d, decision_candidate(d, i),
		    explain_find_grant(set, decision_candidate(d, i)->pc_id));
}

static json_t *
string_list(char *const *list, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, json_string(list[i]));
	return a;
}

static json_t *
json_time(int64_t ms)
{
	char buf[BX_TIME_LEN + 1];

	bx_time_format(ms, buf);
	return json_string(buf);
}

static json_t *
json_grant(const struct decision *d, const struct grant *g)
{
	char hex[BX_HASH_HEX_LEN + 1];
	const char *path = decision_matched_path(d);

	bx_hash_format(decision_grant_sha256(d), hex);
	return json_pack("{s:s, s:s, s:s, s:b, s:o, s:s, s:o, s:o, s:o}",
	    "id", g->g_id, "mode", grant_mode_name(g->g_mode),
	    "result_class", bx_class_name(g->g_result_class),
	    "untrusted", g->g_untrusted, "expires", json_time(g->g_expires),
	    "sha256", hex,
	    "matched_path", path != NULL ? json_string(path) : json_null(),
	    "paths", string_list(g->g_paths, g->g_npaths),
	    "hosts", string_list(g->g_hosts, g->g_nhosts));
}

static json_t *
json_candidates(const struct decision *d, const struct grants *set)
{
	const struct policy_candidate *c;
	const struct grant *g;
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < decision_ncandidates(d); i++) {
		c = decision_candidate(d, i);
		g = explain_find_grant(set, c->pc_id);
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:b, s:b, "
		    "s:b, s:o, s:s}", "id", c->pc_id, "mode",
		    grant_mode_name(c->pc_mode), "verdict",
		    policy_verdict_name(c->pc_verdict), "expired",
		    c->pc_expired, "taint_too_high", c->pc_taint_high,
		    "covered", c->pc_covered, "expires",
		    json_time(g->g_expires), "max_taint",
		    bx_class_name(g->g_max_taint)));
	}
	return a;
}

static json_t *
json_problems(const struct grants *set)
{
	const struct grant_problem *p;
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < set->gs_nproblems; i++) {
		p = &set->gs_problems[i];
		json_array_append_new(a, json_pack("{s:s, s:o, s:s}", "file",
		    p->gp_file, "line", p->gp_line > 0 ?
		    json_integer(p->gp_line) : json_null(), "problem",
		    p->gp_problem));
	}
	return a;
}

static int
print_json(FILE *out, const struct decision *d, const struct grants *set,
    struct bx_error *err)
{
	struct bx_outcome o = decision_outcome(d);
	const struct grant *g = NULL;
	json_t *outcome, *obj, *tool;
	char *text;

	/* TOOL comes from the command line, where any bytes may stand. */
	if ((tool = json_string(decision_tool_name(d))) == NULL)
		return bx_fail(err, "TOOL is not UTF-8, so --json cannot "
		    "print it");

	outcome = json_pack("{s:s}", "outcome", bx_outcome_name(o.kind));
	if (outcome != NULL && o.kind == BX_OUTCOME_DENIED)
		json_object_set_new(outcome, "reason",
		    json_string(bx_deny_name(o.reason)));
	if (decision_has_grant(d))
		g = explain_find_grant(set, decision_grant_id(d));
	obj = json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
	    "tool", tool, "taint",
	    bx_class_name(decision_taint(d)), "now", json_time(decision_now(d)),
	    "outcome", outcome != NULL ? outcome : json_null(),
	    "detail", decision_detail(d)[0] != '\0' ?
	    json_string(decision_detail(d)) : json_null(),
	    "grant", g != NULL ? json_grant(d, g) : json_null(),
	    "candidates", json_candidates(d, set),
	    "problems", json_problems(set),
	    "runbook", grants_valid(set) ? json_null() :
	    json_string(GRANTS_RUNBOOK));
	if (obj == NULL || (text = json_dumps(obj, JSON_COMPACT)) == NULL) {
		json_decref(obj);
		return bx_fail(err, "out of memory");
	}
	fprintf(out, "%s\n", text);
	free(text);
	json_decref(obj);
	return 0;
}

int
explain_main(int argc, char **argv, FILE *out, FILE *errs)
{
	struct policy_request r;
	struct decision *d = NULL;
	struct config *cfg = NULL;
	struct grants *set = NULL;
	struct options o;
	struct bx_error err;
	int rc = EXPLAIN_EXIT_FAILED;

	if (parse_options(argc, argv, &o, errs) == -1)
		return usage(errs);
	if (config_load(o.o_config, &cfg, &err) == -1 ||
	    grants_load(cfg->c_grants, &set, &err) == -1)
		goto fail;
	r.pr_tool = o.o_tool;
	r.pr_arguments = o.o_arguments;
	r.pr_arguments_len = strlen(o.o_arguments);
	r.pr_taint = o.o_taint;
	r.pr_state_unreadable = false;
	r.pr_now = o.o_now;
	if (policy_decide_grants(set, &r, &d, &err) == -1)
		goto fail;
	if (!o.o_json)
		print_text(out, d, set);
	else if (print_json(out, d, set, &err) == -1)
		goto fail;
	rc = EXPLAIN_EXIT_OK;
	goto out;
fail:
	fprintf(errs, "brokerd explain: %s\n", err.msg);
out:
	decision_free(d);
	grants_free(set);
	config_free(cfg);
	return rc;
}
