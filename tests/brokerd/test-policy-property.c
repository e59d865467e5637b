/*
 * test-policy-property.c: decide() against a naive oracle (design section
 * 12, "Property test").
 *
 * A seeded xorshift generator makes grant sets (a few of them flawed on
 * purpose), session taints and requests (some malformed). The grant files
 * are written as TOML text and loaded by grants.c; the oracle never sees
 * that text or any brokerd code. It works from the generator's own records
 * and says, by the design's rules written out the slow and obvious way,
 * what the outcome must be. Calls come in sequences within one session:
 * after each call that runs, the session state is raised by state_raise(),
 * as the broker does; its taint must be the higher of itself and the
 * grant's result_class, the untrusted flag must stick, and neither may
 * ever go down.
 *
 *	BX_PROPERTY_CASES	number of decisions (default 100000)
 *	BX_PROPERTY_SEED	the generator's seed (default fixed, so that
 *				make check is repeatable); printed on failure
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/policy.h"
#include "brokerd/state.h"
#include "xorshift.h"

#define DEFAULT_CASES	100000
#define DEFAULT_SEED	0x9e3779b97f4a7c15ULL
#define MAX_GRANTS	6
#define MAX_LIST	3
#define NOW0		((int64_t)1789000000000)		/* 2026-09-09, roughly */


/* The oracle's own names: tools, modes and classes in design order. */
static const char *tools[] = { "read_file", "write_file", "shell",
    "http_fetch", "exec" };
static const char *modes[] = { "auto", "ask", "deny" };
static const char *classes[] = { "public", "private", "secret" };
enum { AUTO, ASK, DENY };
enum { READ, WRITE, SHELL, FETCH, UNKNOWN_TOOL };

static const char *ids[] = { "a", "a-b", "a0", "ab", "b", "g1", "g10", "g2",
    "z", "0" };
static const char *grant_paths[] = { "/", "/a", "/a/b", "/a/b/c", "/ab",
    "/x" };
static const char *grant_hosts[] = { "a.com", "*.a.com", "b.a.com",
    "*.b.a.com", "c.org" };
/* Requests draw mostly from the first, well-formed part of each pool. */
static const char *req_paths[] = { "/", "/a", "/a/b", "/a/b/c", "/a/b/c/d",
    "/ab", "/ab/c", "/x", "/x/y", "/abc",
    "rel", "/a/../b", "/a//b", "/a/", "/a/./b", "/a/..", "" };
#define GOOD_PATHS	10
static const char *req_hosts[] = { "a.com", "b.a.com", "x.b.a.com",
    "c.org", "a.com:443", "z.c.org",
    "a.com:8080", "A.com", "1.2.3.4", "u@a.com", "[::1]", "a..com", "com",
    "-a.com", "a.com:", "0x7f.1", "a.0xbad" };
#define GOOD_HOSTS	6
static const char *req_tails[] = { "", "/", "/p?q=1#f",
    "/a b", "?q", "/\x7f" };
#define GOOD_TAILS	3

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

enum flaw { NONE, PATTERNS, SECRET, BAD_ENTRY, RULE6, UNKNOWN_KEY,
    BARE_DATE, FLAW_MAX };

struct ggrant {
	const char	*id;
	int		 tool, mode, max_taint, result_class;
	bool		 untrusted;
	int64_t		 expires;
	const char	*list[MAX_LIST];	/* paths, or hosts for fetch */
	int		 nlist;
	enum flaw	 flaw;
	bool		 write_untrusted;	/* untrusted = false, written */
	bool		 write_empty;		/* paths = [], written */
	bool		 with_secret;	/* a valid secret = "k": no input */
};

enum shape { GOOD, EXTRA_FIELD, MISSING_FIELD, WRONG_TYPE, NOT_OBJECT,
    NOT_JSON, SHAPE_MAX };

struct greq {
	int		 tool;
	enum shape	 shape;
	const char	*path;		/* read, write; shell's cwd (or NULL) */
	char		 url[128];
	int		 taint;
	bool		 unreadable;
	bool		 null_cwd;	/* "cwd": null rather than absent */
};

static bool
has_pattern(const struct ggrant *g)
{
	int i;

	for (i = 0; i < g->nlist; i++)
		if (g->list[i][0] == '*')
			return true;
	return false;
}

static void
gen_grant(struct ggrant *g, const char *id)
{
	static const int64_t offsets[] = { -100000, -1, 0, 1, 100000,
	    100000, 100000, 100000 };
	const char **pool;
	int i, poolsize;

	memset(g, 0, sizeof(*g));
	g->id = id;
	g->tool = (int)xs_pick(4);
	g->mode = (int)xs_pick(3);
	g->max_taint = (int)xs_pick(3);
	g->result_class = (int)xs_pick(3);
	g->untrusted = xs_chance(30);
	g->expires = NOW0 + offsets[xs_pick(LEN(offsets))];
	pool = g->tool == FETCH ? grant_hosts : grant_paths;
	poolsize = g->tool == FETCH ? (int)LEN(grant_hosts) :
	    (int)LEN(grant_paths);
	/* Rule 6: paths required for read and write, hosts for fetch. */
	g->nlist = (int)xs_pick(MAX_LIST + 1);
	if (g->nlist == 0 && g->tool != SHELL)
		g->nlist = 1;
	for (i = 0; i < g->nlist; i++)
		g->list[i] = pool[xs_pick((unsigned)poolsize)];
	if (xs_chance(3))
		g->flaw = (enum flaw)(1 + xs_pick(FLAW_MAX - 1));
	g->write_untrusted = xs_chance(50);
	g->write_empty = xs_chance(50);
	/* A secret changes no decision; it fits exact fetch hosts only. */
	g->with_secret = g->tool == FETCH && g->flaw == NONE &&
	    !has_pattern(g) && xs_chance(30);
}

/* The grant's file, as an owner would write it. */
static void
grant_text(const struct ggrant *g, char *buf, size_t len)
{
	const char *key = g->tool == FETCH ? "hosts" : "paths";
	char when[BX_TIME_LEN + 1];
	size_t n = 0;
	int i;

	bx_time_format(g->expires, when);
	n += (size_t)snprintf(buf + n, len - n, "tool = \"%s\"\n"
	    "mode = \"%s\"\nmax_taint = \"%s\"\nresult_class = \"%s\"\n",
	    tools[g->tool], modes[g->mode], classes[g->max_taint],
	    classes[g->result_class]);
	if (g->untrusted || g->write_untrusted)
		n += (size_t)snprintf(buf + n, len - n, "untrusted = %s\n",
		    g->untrusted ? "true" : "false");
	if (g->flaw == BARE_DATE)
		n += (size_t)snprintf(buf + n, len - n, "expires = %s\n", when);
	else
		n += (size_t)snprintf(buf + n, len - n, "expires = \"%s\"\n",
		    when);
	/*
	 * A flawed secret: on a tool other than http_fetch, beside a host
	 * pattern, or with a name that is not a secret name.
	 */
	if (g->flaw == SECRET)
		n += (size_t)snprintf(buf + n, len - n, "secret = \"%s\"\n",
		    g->tool == FETCH && !has_pattern(g) ? "K" : "k");
	else if (g->with_secret)
		n += (size_t)snprintf(buf + n, len - n, "secret = \"k\"\n");
	if (g->flaw == UNKNOWN_KEY)
		n += (size_t)snprintf(buf + n, len - n, "colour = \"red\"\n");
	n += (size_t)snprintf(buf + n, len - n, "\n[constraints]\n");
	if (g->flaw == RULE6)
		key = g->tool == FETCH ? "paths" : "hosts";
	if (g->flaw == RULE6 && g->tool == SHELL)
		n += (size_t)snprintf(buf + n, len - n, "hosts = [\"a.com\"]\n");
	else if (g->nlist > 0 || g->flaw == RULE6 || g->flaw == BAD_ENTRY) {
		n += (size_t)snprintf(buf + n, len - n, "%s = [", key);
		for (i = 0; i < g->nlist; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s\"%s\"",
			    i > 0 ? ", " : "", g->list[i]);
		if (g->flaw == BAD_ENTRY)
			n += (size_t)snprintf(buf + n, len - n, "%s\"%s\"",
			    g->nlist > 0 ? ", " : "",
			    g->tool == FETCH ? "A.com" : "/a/../b");
		if (g->flaw == RULE6 && g->nlist == 0)
			n += (size_t)snprintf(buf + n, len - n, "\"%s\"",
			    g->tool == FETCH ? "/a" : "a.com");
		n += (size_t)snprintf(buf + n, len - n, "]\n");
	} else if (g->write_empty)
		n += (size_t)snprintf(buf + n, len - n, "%s = []\n", key);
	if (g->flaw == PATTERNS)
		n += (size_t)snprintf(buf + n, len - n, "patterns = [\"x\"]\n");
}

/* One of the n entries of pool, from its first good ones 85% of the time. */
static const char *
draw(const char **pool, unsigned n, unsigned good)
{
	return pool[xs_chance(85) ? xs_pick(good) : xs_pick(n)];
}

/* A request, for the tool of one of the set's grants most of the time. */
static void
gen_request(struct greq *r, const struct ggrant *gs, int n)
{
	memset(r, 0, sizeof(*r));
	if (n > 0 && xs_chance(75))
		r->tool = gs[xs_pick((unsigned)n)].tool;
	else
		r->tool = xs_chance(10) ? UNKNOWN_TOOL : (int)xs_pick(4);
	r->shape = xs_chance(92) ? GOOD :
	    (enum shape)(1 + xs_pick(SHAPE_MAX - 1));
	r->path = draw(req_paths, LEN(req_paths), GOOD_PATHS);
	if (r->tool == SHELL && xs_chance(40))
		r->path = NULL;
	snprintf(r->url, sizeof(r->url), "%s%s%s", xs_chance(97) ? "https://" :
	    "http://", draw(req_hosts, LEN(req_hosts), GOOD_HOSTS),
	    draw(req_tails, LEN(req_tails), GOOD_TAILS));
	r->unreadable = xs_chance(2);
	r->null_cwd = xs_chance(50);
}

/* The arguments JSON text for r, malformed as its shape says. */
static void
request_text(const struct greq *r, char *buf, size_t len)
{
	const char *extra = r->shape == EXTRA_FIELD ? ",\"x\":1" : "";
	const char *path = r->path != NULL ? r->path : "";

	if (r->shape == NOT_JSON) {
		snprintf(buf, len, "{\"path\":");
		return;
	}
	if (r->shape == NOT_OBJECT) {
		snprintf(buf, len, "[\"%s\"]", path);
		return;
	}
	switch (r->tool) {
	case WRITE:
		if (r->shape == MISSING_FIELD)
			snprintf(buf, len, "{\"path\":\"%s\"}", path);
		else if (r->shape == WRONG_TYPE)
			snprintf(buf, len, "{\"path\":\"%s\",\"content\":5}",
			    path);
		else
			snprintf(buf, len, "{\"path\":\"%s\",\"content\":"
			    "\"hi\"%s}", path, extra);
		break;
	case SHELL:
		if (r->shape == MISSING_FIELD)
			snprintf(buf, len, "{\"cwd\":\"%s\"}", path);
		else if (r->shape == WRONG_TYPE)
			snprintf(buf, len, "{\"command\":[\"ls\"]}");
		else if (r->path == NULL)
			snprintf(buf, len, "{\"command\":\"ls\"%s%s}", extra,
			    r->null_cwd ? ",\"cwd\":null" : "");
		else
			snprintf(buf, len, "{\"command\":\"ls\",\"cwd\":"
			    "\"%s\"%s}", path, extra);
		break;
	case FETCH:
		if (r->shape == MISSING_FIELD)
			snprintf(buf, len, "{}");
		else if (r->shape == WRONG_TYPE)
			snprintf(buf, len, "{\"url\":true}");
		else
			snprintf(buf, len, "{\"url\":\"%s\"%s}", r->url, extra);
		break;
	default:
		if (r->shape == MISSING_FIELD)
			snprintf(buf, len, "{}");
		else if (r->shape == WRONG_TYPE)
			snprintf(buf, len, "{\"path\":null}");
		else
			snprintf(buf, len, "{\"path\":\"%s\"%s}", path, extra);
		break;
	}
}

/*
 * The oracle. Deliberately naive: substring searches and copies, no
 * cleverness, nothing shared with src/brokerd.
 */
static bool
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool
oracle_path_valid(const char *p)
{
	if (p[0] != '/')
		return false;
	if (strcmp(p, "/") == 0)
		return true;
	return !ends_with(p, "/") && strstr(p, "//") == NULL &&
	    strstr(p, "/./") == NULL && strstr(p, "/../") == NULL &&
	    !ends_with(p, "/.") && !ends_with(p, "/..");
}

static bool
oracle_inside(const char *grant, const char *p)
{
	char prefix[256];

	if (strcmp(grant, "/") == 0 || strcmp(grant, p) == 0)
		return true;
	snprintf(prefix, sizeof(prefix), "%s/", grant);
	return strncmp(p, prefix, strlen(prefix)) == 0;
}

static bool
oracle_host_valid(const char *h)
{
	const char *last;
	size_t i;
	bool digits = true;

	if (strlen(h) == 0 || strchr(h, '.') == NULL)
		return false;
	for (i = 0; h[i] != '\0'; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789.-", h[i]) ==
		    NULL)
			return false;
	if (h[0] == '.' || h[0] == '-' || ends_with(h, ".") ||
	    ends_with(h, "-") || strstr(h, "..") || strstr(h, ".-") ||
	    strstr(h, "-."))
		return false;
	last = strrchr(h, '.') + 1;
	/* An IPv4 address's last part: decimal, or 0x and hex digits. */
	if (strncmp(last, "0x", 2) == 0 &&
	    strspn(last + 2, "0123456789abcdef") == strlen(last + 2))
		return false;
	for (i = 0; last[i] != '\0'; i++)
		if (last[i] < '0' || last[i] > '9')
			digits = false;
	return !digits;
}

/* The URL's host into host, or false when the URL is not valid. */
static bool
oracle_url(const char *url, char *host, size_t len)
{
	char auth[128];
	const char *rest, *slash;
	char *port;
	size_t i;

	if (strncmp(url, "https://", 8) != 0)
		return false;
	rest = url + 8;
	slash = strchr(rest, '/');
	snprintf(auth, sizeof(auth), "%.*s", slash != NULL ?
	    (int)(slash - rest) : (int)strlen(rest), rest);
	if (strchr(auth, '@') != NULL)
		return false;
	if ((port = strchr(auth, ':')) != NULL) {
		if (strcmp(port, ":443") != 0)
			return false;
		*port = '\0';
	}
	if (!oracle_host_valid(auth))
		return false;
	for (i = 0; slash != NULL && slash[i] != '\0'; i++)
		if (slash[i] <= ' ' || slash[i] >= 127)
			return false;
	snprintf(host, len, "%s", auth);
	return true;
}

static bool
oracle_host_matches(const char *pattern, const char *host)
{
	if (pattern[0] == '*')
		return strlen(host) > strlen(pattern + 1) &&
		    ends_with(host, pattern + 1);
	return strcmp(pattern, host) == 0;
}

struct expect {
	int		 kind;		/* BX_OUTCOME_* */
	int		 reason;	/* BX_DENY_* when denied */
	const struct ggrant *grant;	/* NULL: none */
	const char	*path;		/* the matched path */
};

/* Covered, and the longest covering path. */
static bool
oracle_covers(const struct ggrant *g, const struct greq *r, const char *host,
    const char **ret_path)
{
	const char *best = NULL;
	int i;

	*ret_path = NULL;
	if (g->tool == FETCH) {
		for (i = 0; i < g->nlist; i++)
			if (oracle_host_matches(g->list[i], host))
				return true;
		return false;
	}
	if (g->tool == SHELL && g->nlist == 0)
		return r->path == NULL;
	if (r->path == NULL)
		return false;
	for (i = 0; i < g->nlist; i++) {
		if (!oracle_inside(g->list[i], r->path))
			continue;
		if (g->tool == WRITE && strcmp(g->list[i], r->path) == 0)
			continue;
		if (best == NULL || strlen(g->list[i]) > strlen(best))
			best = g->list[i];
	}
	*ret_path = best;
	return best != NULL;
}

static bool
oracle_args_valid(const struct greq *r, char *host, size_t len)
{
	if (r->tool == UNKNOWN_TOOL || r->shape != GOOD)
		return false;
	if (r->tool == FETCH)
		return oracle_url(r->url, host, len);
	if (r->tool == SHELL && r->path == NULL)
		return true;
	return oracle_path_valid(r->path);
}

/*
 * deny 4, an exact auto grant 3 (the file read is its path, or the host
 * fetched is one of its patterns as written), ask 2, auto 1.
 */
static int
oracle_rank(const struct ggrant *g, const struct greq *r, const char *host,
    const char *path)
{
	int i;

	if (g->mode == DENY)
		return 4;
	if (g->mode == ASK)
		return 2;
	if (g->tool == READ && path != NULL && strcmp(path, r->path) == 0)
		return 3;
	for (i = 0; g->tool == FETCH && i < g->nlist; i++)
		if (strcmp(g->list[i], host) == 0)
			return 3;
	return 1;
}

static struct expect
oracle(const struct ggrant *gs, int n, const struct greq *r, int64_t now)
{
	struct expect e = { BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL, NULL };
	bool expired, tainted, covered, any_expired = false, any_taint = false;
	const struct ggrant *best = NULL;
	const char *path, *best_path = NULL;
	char host[128] = "";
	int i, rank, best_rank = 0;

	for (i = 0; i < n; i++)
		if (gs[i].flaw != NONE) {
			e.reason = BX_DENY_GRANTS_INVALID;
			return e;
		}
	if (r->unreadable) {
		e.reason = BX_DENY_STATE_UNREADABLE;
		return e;
	}
	if (!oracle_args_valid(r, host, sizeof(host))) {
		e.reason = BX_DENY_INVALID_ARGUMENTS;
		return e;
	}
	for (i = 0; i < n; i++) {
		if (gs[i].tool != r->tool)
			continue;
		expired = now >= gs[i].expires;
		tainted = r->taint > gs[i].max_taint;
		covered = oracle_covers(&gs[i], r, host, &path);
		if (!expired && !tainted && covered) {
			rank = oracle_rank(&gs[i], r, host, path);
			if (best == NULL || rank > best_rank ||
			    (rank == best_rank &&
			    strcmp(gs[i].id, best->id) < 0)) {
				best = &gs[i];
				best_rank = rank;
				best_path = path;
			}
		}
		if (expired && !tainted && covered)
			any_expired = true;
		if (tainted && !expired && covered)
			any_taint = true;
	}
	if (best != NULL) {
		e.grant = best;
		e.path = best_path;
		e.kind = best->mode == AUTO ? BX_OUTCOME_ALLOWED :
		    best->mode == ASK ? BX_OUTCOME_ASK : BX_OUTCOME_DENIED;
		e.reason = BX_DENY_DENIED_BY_GRANT;
	} else if (any_expired)
		e.reason = BX_DENY_GRANT_EXPIRED;
	else if (any_taint)
		e.reason = BX_DENY_TAINT_TOO_HIGH;
	return e;
}

/* Everything about the failing case, then the test fails. */
static void
report(uint64_t seed, long step, const struct ggrant *gs, int n,
    const char *args, const struct greq *r, int64_t now, const char *what)
{
	char text[2048];
	int i;

	print_error("seed %#" PRIx64 " (BX_PROPERTY_SEED=%" PRIu64 "), "
	    "decision %ld: %s\n", seed, seed, step, what);
	print_error("request: %s %s, taint %s, unreadable %d, now %+" PRId64
	    "\n", tools[r->tool], args, classes[r->taint], r->unreadable,
	    now - NOW0);
	for (i = 0; i < n; i++) {
		grant_text(&gs[i], text, sizeof(text));
		print_error("--- %s.toml (expires %+" PRId64 ", flaw %d)\n%s",
		    gs[i].id, gs[i].expires - NOW0, gs[i].flaw, text);
	}
	fail_msg("the policy and the oracle disagree");
}

static struct grants *
load_set(const struct ggrant *gs, int n)
{
	char text[2048], file[64];
	struct grants *set = NULL;
	struct bx_error err;
	int i;

	assert_int_equal(grants_new(&set, &err), 0);
	for (i = 0; i < n; i++) {
		grant_text(&gs[i], text, sizeof(text));
		snprintf(file, sizeof(file), "/grants/%s.toml", gs[i].id);
		assert_int_equal(grants_add_file(set, file, text, strlen(text),
		    &err), 0);
	}
	grants_finish(set);
	return set;
}

static void
compare(const struct decision *d, const struct expect *e, uint64_t seed,
    long step, const struct ggrant *gs, int n, const char *args,
    const struct greq *r, int64_t now)
{
	struct bx_outcome o = decision_outcome(d);
	const char *mp = decision_matched_path(d);
	char what[256];

	if ((int)o.kind != e->kind || (o.kind == BX_OUTCOME_DENIED &&
	    (int)o.reason != e->reason)) {
		snprintf(what, sizeof(what), "policy says %s %s (%s), oracle "
		    "says %s %s", bx_outcome_name(o.kind), o.kind ==
		    BX_OUTCOME_DENIED ? bx_deny_name(o.reason) : "",
		    decision_detail(d), bx_outcome_name(e->kind),
		    e->kind == BX_OUTCOME_DENIED ? bx_deny_name(e->reason) : "");
		report(seed, step, gs, n, args, r, now, what);
	}
	if ((e->grant == NULL) != !decision_has_grant(d) ||
	    (e->grant != NULL && strcmp(e->grant->id,
	    decision_grant_id(d)) != 0)) {
		snprintf(what, sizeof(what), "policy matched %s, oracle %s",
		    decision_has_grant(d) ? decision_grant_id(d) : "none",
		    e->grant != NULL ? e->grant->id : "none");
		report(seed, step, gs, n, args, r, now, what);
	}
	if ((e->path == NULL) != (mp == NULL) ||
	    (mp != NULL && strcmp(mp, e->path) != 0)) {
		snprintf(what, sizeof(what), "policy matched path %s, oracle "
		    "%s", mp != NULL ? mp : "none",
		    e->path != NULL ? e->path : "none");
		report(seed, step, gs, n, args, r, now, what);
	}
	if (e->grant != NULL &&
	    (int)decision_result_class(d) != e->grant->result_class)
		report(seed, step, gs, n, args, r, now, "result_class differs");
	if (e->grant != NULL && decision_untrusted(d) != e->grant->untrusted)
		report(seed, step, gs, n, args, r, now, "untrusted differs");
}

static uint64_t
env_number(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	uint64_t v;

	if (s == NULL || s[0] == '\0')
		return def;
	v = strtoull(s, &end, 0);
	if (*end != '\0')
		fail_msg("%s=%s is not a number", name, s);
	return v;
}

/*
 * Each outcome and reason a decision can have turned up, so that the
 * generator is known to reach every rule (with enough cases to expect it).
 */
static void
check_coverage(long seen[BX_OUTCOME_MAX][BX_DENY_MAX], uint64_t cases)
{
	static const int reasons[] = { BX_DENY_NO_GRANT,
	    BX_DENY_GRANT_EXPIRED, BX_DENY_TAINT_TOO_HIGH,
	    BX_DENY_DENIED_BY_GRANT, BX_DENY_INVALID_ARGUMENTS,
	    BX_DENY_GRANTS_INVALID, BX_DENY_STATE_UNREADABLE };
	size_t i;

	print_message("allowed %ld, ask %ld", seen[BX_OUTCOME_ALLOWED][0],
	    seen[BX_OUTCOME_ASK][0]);
	for (i = 0; i < LEN(reasons); i++)
		print_message(", %s %ld", bx_deny_name(reasons[i]),
		    seen[BX_OUTCOME_DENIED][reasons[i]]);
	print_message("\n");
	if (cases < 10000)
		return;
	assert_true(seen[BX_OUTCOME_ALLOWED][0] > 0);
	assert_true(seen[BX_OUTCOME_ASK][0] > 0);
	for (i = 0; i < LEN(reasons); i++)
		if (seen[BX_OUTCOME_DENIED][reasons[i]] == 0)
			fail_msg("no case was denied with %s",
			    bx_deny_name(reasons[i]));
}

static void
test_against_oracle(void **state)
{
	uint64_t seed = env_number("BX_PROPERTY_SEED", DEFAULT_SEED);
	uint64_t cases = env_number("BX_PROPERTY_CASES", DEFAULT_CASES);
	struct ggrant gs[MAX_GRANTS];
	struct decision *d, *again;
	struct bx_error err;
	struct grants *set;
	struct policy_request pr;
	struct state_value sv, before;
	struct expect e;
	struct greq r;
	char args[512];
	unsigned order[LEN(ids)], j, k, tmp;
	int n, i, calls, taint, want;
	int64_t now;
	long step = 0, seen[BX_OUTCOME_MAX][BX_DENY_MAX];

	(void)state;
	memset(seen, 0, sizeof(seen));
	xs_seed(seed, DEFAULT_SEED);
	while ((uint64_t)step < cases) {
		/* A grant set: distinct ids, in a shuffled order. */
		for (j = 0; j < LEN(ids); j++)
			order[j] = j;
		for (j = LEN(ids) - 1; j > 0; j--) {
			k = xs_pick(j + 1);
			tmp = order[j], order[j] = order[k], order[k] = tmp;
		}
		n = (int)xs_pick(MAX_GRANTS + 1);
		for (i = 0; i < n; i++)
			gen_grant(&gs[i], ids[order[i]]);
		set = load_set(gs, n);
		/* A session's calls: the taint only ever rises. */
		sv.taint = (enum bx_class)xs_pick(3);
		sv.untrusted = xs_chance(20);
		now = NOW0 - 2;
		calls = 1 + (int)xs_pick(6);
		for (i = 0; i < calls && (uint64_t)step < cases; i++, step++) {
			now += xs_pick(3);
			taint = (int)sv.taint;
			gen_request(&r, gs, n);
			r.taint = taint;
			request_text(&r, args, sizeof(args));
			pr.pr_tool = tools[r.tool];
			pr.pr_arguments = args;
			pr.pr_arguments_len = strlen(args);
			pr.pr_taint = (enum bx_class)taint;
			pr.pr_state_unreadable = r.unreadable;
			pr.pr_now = now;
			assert_int_equal(policy_decide_grants(set, &pr, &d,
			    &err), 0);
			e = oracle(gs, n, &r, now);
			compare(d, &e, seed, step, gs, n, args, &r, now);
			assert_int_equal(decision_taint(d), taint);
			seen[e.kind][e.kind == BX_OUTCOME_DENIED ?
			    e.reason : 0]++;
			before = sv;
			/* An ask is approved: decided again, as approve does. */
			if (decision_outcome(d).kind == BX_OUTCOME_ASK) {
				assert_int_equal(policy_request_again(d,
				    (enum bx_class)taint, false, now, &pr,
				    &err), 0);
				assert_int_equal(policy_decide_grants(set, &pr,
				    &again, &err), 0);
				compare(again, &e, seed, step, gs, n, args, &r,
				    now);
				decision_free(d);
				d = again;
			}
			if (decision_outcome(d).kind != BX_OUTCOME_DENIED) {
				sv = state_raise(sv, decision_result_class(d),
				    decision_untrusted(d));
				want = e.grant->result_class > taint ?
				    e.grant->result_class : taint;
				if ((int)sv.taint != want || sv.untrusted !=
				    (before.untrusted || e.grant->untrusted))
					report(seed, step, gs, n, args, &r, now,
					    "the state was not raised to the "
					    "grant's result");
			}
			if (sv.taint < before.taint ||
			    (before.untrusted && !sv.untrusted))
				report(seed, step, gs, n, args, &r, now,
				    "the taint went down");
			decision_free(d);
		}
		grants_free(set);
	}
	print_message("%ld decisions agreed with the oracle (seed %#" PRIx64
	    ")\n", step, seed);
	check_coverage(seen, cases);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_oracle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
