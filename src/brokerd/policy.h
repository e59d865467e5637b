/*
 * policy.h: decide and redecide (design section 3, "Matching", and
 * baseline.md section 6). policy.c is the only place a decision is built:
 * struct decision is opaque, its definition lives in policy.c, and
 * everything else reads it through the getters below (a compile-fail test
 * proves no one else can declare or fill one).
 *
 * A decision is made in this order, the first that applies winning:
 * grants_invalid (any grant file is invalid), state_unreadable (the caller
 * says the session's state could not be read), invalid_arguments (an
 * unknown tool or arguments that do not parse), then matching.
 *
 * Ownership: policy_decide*() and policy_redecide() allocate *ret; the
 * caller frees it with decision_free() (NULL is allowed). A decision
 * copies all it needs: it stays valid after the grants it was made from
 * are freed. Strings and arrays returned by getters belong to the
 * decision.
 */
#ifndef BROKERD_POLICY_H
#define BROKERD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/args.h"
#include "brokerd/grants.h"
#include "proto/error.h"
#include "proto/types.h"

struct decision;

/* What the caller knows about the call: the session state and the time. */
struct policy_request {
	const char	*pr_tool;		/* as received; may name no tool */
	const char	*pr_arguments;		/* the model's JSON text */
	size_t		 pr_arguments_len;
	enum bx_class	 pr_taint;		/* the session's taint now */
	bool		 pr_state_unreadable;	/* its state file is damaged */
	int64_t		 pr_now;		/* ms since the epoch */
};

/* Why a candidate (a grant for the requested tool) did or did not match. */
enum policy_verdict {
	POLICY_MATCHED,		/* left, and won */
	POLICY_OUTRANKED,	/* left, lost to a stricter mode or lower id */
	POLICY_EXPIRED,		/* now >= expires */
	POLICY_TAINT,		/* the session's taint > max_taint */
	POLICY_CONSTRAINTS,	/* its constraints do not cover the call */
	POLICY_VERDICT_MAX
};

/*
 * One candidate, for explaining a decision. Each of the three tests is
 * recorded, not only the first that ruled the grant out.
 */
struct policy_candidate {
	const char		*pc_id;
	enum grant_mode		 pc_mode;
	enum policy_verdict	 pc_verdict;
	bool			 pc_expired;
	bool			 pc_taint_high;
	bool			 pc_covered;
};

const char	*policy_verdict_name(enum policy_verdict);

/*
 * Reads the grants directory afresh (grants_load()) and decides. When
 * ret_grants is not NULL it receives the set that was read, so that the
 * caller can report its problems; the caller frees it. Returns -1 only
 * when memory runs out; every refusal is a decision.
 */
int	policy_decide(const char *grants_dir, const struct policy_request *,
	    struct decision **ret, struct grants **ret_grants,
	    struct bx_error *err);

/* Decides against a set already loaded (tests, explain, benchmarks). */
int	policy_decide_grants(const struct grants *,
	    const struct policy_request *, struct decision **ret,
	    struct bx_error *err);

/*
 * Decides again the call that pending was made for, with the grants, the
 * session state and the time as they are now (approve, design section 6).
 * pending must be an ask decision.
 */
int	policy_redecide(const char *grants_dir, const struct decision *pending,
	    enum bx_class taint, bool state_unreadable, int64_t now,
	    struct decision **ret, struct grants **ret_grants,
	    struct bx_error *err);

/*
 * The request that policy_redecide decides: pending's call, with the taint,
 * state and time given. *r borrows pending's strings. For deciding again
 * against a set already loaded (policy_decide_grants), as tests do.
 */
int	policy_request_again(const struct decision *pending,
	    enum bx_class taint, bool state_unreadable, int64_t now,
	    struct policy_request *r, struct bx_error *err);

void	decision_free(struct decision *);

struct bx_outcome	 decision_outcome(const struct decision *);
/* The call as it was asked for. */
const char		*decision_tool_name(const struct decision *);
/* BX_TOOL_MAX when the name was no tool. */
enum bx_tool		 decision_tool(const struct decision *);
const char		*decision_arguments(const struct decision *,
			    size_t *ret_len);
/* The parsed arguments; NULL unless they were parsed and valid. */
const struct tool_args	*decision_args(const struct decision *);
enum bx_class		 decision_taint(const struct decision *);
int64_t			 decision_now(const struct decision *);

/*
 * The matched grant: allowed, ask and denied_by_grant have one; every
 * other outcome has none, and then the getters below return NULL, false
 * or 0.
 */
bool			 decision_has_grant(const struct decision *);
const char		*decision_grant_id(const struct decision *);
enum grant_mode		 decision_grant_mode(const struct decision *);
enum bx_class		 decision_result_class(const struct decision *);
bool			 decision_untrusted(const struct decision *);
int64_t			 decision_grant_expires(const struct decision *);
const struct bx_hash	*decision_grant_sha256(const struct decision *);
/*
 * The longest of the grant's paths containing the argument path (or the
 * shell cwd); NULL for http_fetch and for shell without cwd.
 */
const char		*decision_matched_path(const struct decision *);
/* Every path of the grant (shell mounts them all). */
const char *const	*decision_grant_paths(const struct decision *,
			    size_t *ret_len);
/* The grant's host patterns (http_fetch's egress). */
const char *const	*decision_grant_hosts(const struct decision *,
			    size_t *ret_len);

/* The secret the grant sends (an http_fetch grant's), or NULL for none. */
const char		*decision_grant_secret(const struct decision *);

/*
 * Every grant for the requested tool, in id order, with its verdict. None
 * when the decision stopped before matching.
 */
size_t			 decision_ncandidates(const struct decision *);
const struct policy_candidate *decision_candidate(const struct decision *,
			    size_t i);
/*
 * Why arguments were invalid (the parser's message), or "" when they were
 * not refused.
 */
const char		*decision_detail(const struct decision *);

#endif
