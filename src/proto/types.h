/*
 * types.h: the small value types every part of Boxmaker shares
 * (baseline.md section 4), each with a strict parser that says why a
 * value is refused and a formatter that is its exact inverse.
 *
 * Nothing here allocates. Parsers write their out-parameter only on
 * success; names returned by *_name() are static strings.
 */
#ifndef BX_TYPES_H
#define BX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"

/* DataClass, in its order: public < private < secret. */
enum bx_class {
	BX_CLASS_PUBLIC,
	BX_CLASS_PRIVATE,
	BX_CLASS_SECRET,
	BX_CLASS_MAX
};

const char	*bx_class_name(enum bx_class);
int		 bx_class_parse(const char *, enum bx_class *, struct bx_error *);
enum bx_class	 bx_class_max(enum bx_class, enum bx_class);

/*
 * Timestamp: "YYYY-MM-DDTHH:MM:SS.mmmZ", UTC, exactly BX_TIME_LEN characters,
 * a real calendar date (years 0001 to 9999). Held as milliseconds since the
 * Unix epoch.
 */
#define BX_TIME_LEN	24
#define BX_TIME_MIN_MS	(-62135596800000LL)	/* 0001-01-01T00:00:00.000Z */
#define BX_TIME_MAX_MS	253402300799999LL	/* 9999-12-31T23:59:59.999Z */

int	bx_time_parse(const char *, int64_t *ret_ms, struct bx_error *);
/* buf must hold BX_TIME_LEN + 1 bytes; ms must lie in [BX_TIME_MIN_MS, BX_TIME_MAX_MS]. */
void	bx_time_format(int64_t ms, char *buf);
/* The UTC date of ms as "YYYY-MM-DD" into buf (11 bytes): the audit file name. */
void	bx_time_date(int64_t ms, char *buf);

/* Hash32: 32 bytes, written as 64 lowercase hex digits. */
#define BX_HASH_LEN	32
#define BX_HASH_HEX_LEN	64

struct bx_hash {
	unsigned char	bytes[BX_HASH_LEN];
};

int	bx_hash_parse(const char *, struct bx_hash *, struct bx_error *);
/* buf must hold BX_HASH_HEX_LEN + 1 bytes. */
void	bx_hash_format(const struct bx_hash *, char *buf);
bool	bx_hash_equal(const struct bx_hash *, const struct bx_hash *);
bool	bx_hash_is_zero(const struct bx_hash *);

/*
 * Identifiers: SessionId [a-z0-9-], CallId [A-Za-z0-9_-], grant id and
 * secret name [a-z0-9-].
 */
#define BX_ID_MAX	64

int	bx_session_id_check(const char *, struct bx_error *);
int	bx_call_id_check(const char *, struct bx_error *);
int	bx_grant_id_check(const char *, struct bx_error *);
int	bx_secret_name_check(const char *, struct bx_error *);

/*
 * A Mattermost user or post id, as the bridge reports who answered an
 * approval and in which post: exactly BX_MATTERMOST_ID_LEN characters of
 * [a-z0-9].
 */
#define BX_MATTERMOST_ID_LEN	26

int	bx_mattermost_id_check(const char *, struct bx_error *);

/* The four tools a grant or a tool_request can name. */
enum bx_tool {
	BX_TOOL_READ_FILE,
	BX_TOOL_WRITE_FILE,
	BX_TOOL_SHELL,
	BX_TOOL_HTTP_FETCH,
	BX_TOOL_MAX
};

const char	*bx_tool_name(enum bx_tool);
int		 bx_tool_parse(const char *, enum bx_tool *, struct bx_error *);

/* DenyReason: the ten reasons a call is denied, in the design's table order. */
enum bx_deny {
	BX_DENY_NO_GRANT,
	BX_DENY_GRANT_EXPIRED,
	BX_DENY_TAINT_TOO_HIGH,
	BX_DENY_DENIED_BY_GRANT,
	BX_DENY_APPROVAL_REFUSED,
	BX_DENY_APPROVAL_EXPIRED,
	BX_DENY_INVALID_ARGUMENTS,
	BX_DENY_GRANTS_INVALID,
	BX_DENY_AUDIT_UNAVAILABLE,
	BX_DENY_STATE_UNREADABLE,
	BX_DENY_MAX
};

const char	*bx_deny_name(enum bx_deny);
int		 bx_deny_parse(const char *, enum bx_deny *, struct bx_error *);

/* DecisionRecord: allowed, ask, or denied with a reason. */
enum bx_outcome_kind {
	BX_OUTCOME_ALLOWED,
	BX_OUTCOME_ASK,
	BX_OUTCOME_DENIED,
	BX_OUTCOME_MAX
};

struct bx_outcome {
	enum bx_outcome_kind	kind;
	enum bx_deny		reason;		/* meaningful only when DENIED */
};

const char	*bx_outcome_name(enum bx_outcome_kind);
int		 bx_outcome_kind_parse(const char *, enum bx_outcome_kind *,
		    struct bx_error *);

/* The index of s in the count names of an enum's name table, or -1. */
int		 bx_name_index(const char *s, const char *const *names,
		    int count);

#endif
