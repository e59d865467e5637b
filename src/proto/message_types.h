/*
 * message_types.h: every message kind of the wire protocol as data: the
 * enums and the one tagged struct bx_msg (message.h says what they mean on
 * the wire and who owns what). Each file of the codec includes this and
 * its own header; callers include message.h, which has them all.
 */
#ifndef BX_MESSAGE_TYPES_H
#define BX_MESSAGE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/types.h"

enum bx_msg_kind {
	BX_MSG_TOOL_REQUEST,
	BX_MSG_TOOL_RESPONSE,
	BX_MSG_APPROVALS,
	BX_MSG_APPROVAL_LIST,
	BX_MSG_APPROVE,
	BX_MSG_APPROVE_RESULT,
	BX_MSG_REFUSE,
	BX_MSG_OK,
	BX_MSG_CHECK_GRANTS,
	BX_MSG_GRANTS_REPORT,
	BX_MSG_ERROR,
	BX_MSG_CHAT,
	BX_MSG_TURN_EVENT,
	BX_MSG_SESSIONS,		/* the owner's console (issue 25) */
	BX_MSG_SESSION_LIST,
	BX_MSG_EXPLAIN,
	BX_MSG_EXPLANATION,
	BX_MSG_STATUS,
	BX_MSG_BROKER_STATUS,
	BX_MSG_LIST_GRANTS,
	BX_MSG_GRANT_LIST,
	BX_MSG_APPROVALS_WAIT,		/* the bridge (issue 42) */
	BX_MSG_APPROVAL_CHANGES,
	BX_MSG_MAX
};

/*
 * tool_response status. PENDING_APPROVAL and APPROVED are not final (an ask
 * call's frames before its answer); a turn_event tool_result uses only the
 * final ones.
 */
enum bx_status {
	BX_STATUS_PENDING_APPROVAL,
	BX_STATUS_RESULT,
	BX_STATUS_FAILED,
	BX_STATUS_DENIED,
	BX_STATUS_APPROVED,
	BX_STATUS_MAX
};

/* error codes */
enum bx_code {
	BX_CODE_BAD_REQUEST,
	BX_CODE_FRAME_TOO_LARGE,
	BX_CODE_FORBIDDEN,
	BX_CODE_NO_SUCH_APPROVAL,
	BX_CODE_BUSY,
	BX_CODE_UNAVAILABLE,
	BX_CODE_INTERNAL,
	BX_CODE_MAX
};

/* turn_event types */
enum bx_event {
	BX_EVENT_STARTED,
	BX_EVENT_TEXT,
	BX_EVENT_TOOL_CALL,
	BX_EVENT_TOOL_RESULT,
	BX_EVENT_APPROVAL_PENDING,
	BX_EVENT_DONE,
	BX_EVENT_ERROR,
	BX_EVENT_TEXT_DELTA,
	BX_EVENT_TOOL_RUNNING,	/* an approved call runs now */
	BX_EVENT_MAX
};

struct bx_tool_request {
	char	*session;		/* a valid SessionId */
	char	*call;			/* a valid CallId */
	char	*tool;			/* as received */
	char	*arguments;		/* the model's JSON text, as received */
};

/* Final unless status is PENDING_APPROVAL or APPROVED (no fields). */
struct bx_tool_response {
	enum bx_status	 status;
	uint64_t	 approval;	/* PENDING_APPROVAL: the Decision's seq */
	int64_t		 expires;	/* PENDING_APPROVAL */
	char		*content;	/* RESULT */
	enum bx_class	 class;		/* RESULT */
	bool		 untrusted;	/* RESULT */
	bool		 truncated;	/* RESULT */
	char		*message;	/* FAILED */
	enum bx_deny	 reason;	/* DENIED */
};

struct bx_pending_approval {
	uint64_t	 approval;
	char		*session;
	char		*call;
	char		*tool;
	char		*arguments;
	char		*grant;		/* a valid grant id */
	enum bx_class	 taint;
	int64_t		 created;
	int64_t		 expires;
};

struct bx_grant_problem {
	char		*file;
	bool		 has_line;	/* false: null on the wire */
	uint64_t	 line;
	char		*problem;
};

struct bx_approval_list {
	struct bx_pending_approval	*items;
	size_t				 nitems;
};

struct bx_grants_report {
	struct bx_grant_problem	*problems;
	size_t			 nproblems;
};

/*
 * An answer's by and post: the Mattermost user and post it came from,
 * both given (bridge.sock) or both NULL (admin.sock: the terminal).
 */
struct bx_approve {
	uint64_t	 approval;
	char		*by;		/* a Mattermost user id, or NULL */
	char		*post;		/* a Mattermost post id, or NULL */
};

struct bx_refuse {
	uint64_t	 approval;
	char		*reason;	/* the owner's text, or NULL */
	char		*by;
	char		*post;
};

/* The most approvals an approvals_wait can name: brokerd's APPROVALS_MAX. */
#define BX_WAIT_KNOWN_MAX	1024
/* The longest an approvals_wait may be held. */
#define BX_WAIT_MAX_MS		60000

/*
 * Wait until the pending approvals are no longer exactly known (approval
 * ids), or timeout_ms passed.
 */
struct bx_approvals_wait {
	uint64_t	*known;
	size_t		 nknown;
	int64_t		 timeout_ms;	/* 0 to BX_WAIT_MAX_MS */
};

/* How an approval that was pending ended. */
enum bx_end {
	BX_END_APPROVED,
	BX_END_REFUSED,
	BX_END_EXPIRED,
	BX_END_ABANDONED,	/* its call went away, or brokerd stopped */
	BX_END_FORGOTTEN,	/* brokerd no longer knows (restart, too old) */
	BX_END_MAX
};

struct bx_ended_approval {
	uint64_t		 approval;
	enum bx_end		 end;
	char			*by;		/* NULL: not from Mattermost */
	char			*post;
	bool			 has_outcome;	/* false: null */
	struct bx_outcome	 outcome;	/* what the Approval record says */
};

/* An approvals_wait's answer: what is pending now, and what ended of known. */
struct bx_approval_changes {
	struct bx_pending_approval	*items;
	size_t				 nitems;
	struct bx_ended_approval	*ended;
	size_t				 nended;
};

struct bx_error_msg {
	enum bx_code	 code;
	char		*message;
};

struct bx_chat {
	char	*session;		/* NULL: a new session */
	char	*text;
};

/* Final for DONE and ERROR only. */
struct bx_turn_event {
	enum bx_event	 type;
	char		*session;	/* STARTED */
	char		*text;		/* TEXT, TEXT_DELTA; DONE: the
					   reply; ERROR: the message */
	char		*call;		/* TOOL_CALL, TOOL_RESULT, TOOL_RUNNING */
	char		*tool;		/* TOOL_CALL, APPROVAL_PENDING, TOOL_RUNNING */
	char		*arguments;	/* TOOL_CALL */
	enum bx_status	 status;	/* TOOL_RESULT: RESULT, FAILED or DENIED */
	char		*content;	/* TOOL_RESULT */
	enum bx_class	 class;		/* TOOL_RESULT */
	bool		 untrusted;	/* TOOL_RESULT */
	uint64_t	 approval;	/* APPROVAL_PENDING */
	int64_t		 expires;	/* APPROVAL_PENDING */
};

/* One session brokerd knows, from its state file and the audit log. */
struct bx_session_info {
	char		*session;
	enum bx_class	 taint;
	bool		 untrusted;
	uint64_t	 calls;		/* its Decision records */
	bool		 has_last_call;	/* false: null on the wire */
	int64_t		 last_call;
};

struct bx_session_list {
	uint64_t		 total;		/* sessions; items may be fewer */
	struct bx_session_info	*items;
	size_t			 nitems;
};

struct bx_explain {
	char	*session;		/* a valid SessionId */
	char	*tool;			/* as the owner typed it */
	char	*arguments;
};

/* One grant for the tool, and why it was or was not chosen. */
struct bx_candidate {
	char		*grant;		/* a valid grant id */
	char		*mode;		/* auto, ask, deny */
	char		*verdict;	/* matched, outranked, expired, ... */
	char		*why;		/* brokerd explain's words */
};

/* The grant a decision matched. */
struct bx_matched_grant {
	char		*id;
	char		*mode;
	enum bx_class	 result_class;
	bool		 untrusted;
	char		*matched_path;	/* NULL: null */
};

struct bx_explanation {
	char			*session;
	enum bx_class		 taint;		/* the session's, now */
	bool			 untrusted;
	int64_t			 now;
	struct bx_outcome	 outcome;
	char			*detail;	/* NULL: null */
	bool			 has_grant;	/* false: null */
	struct bx_matched_grant	 grant;
	struct bx_candidate	*candidates;
	size_t			 ncandidates;
	struct bx_grant_problem	*problems;
	size_t			 nproblems;
};

struct bx_broker_status {
	char		*version;
	char		*runtime;	/* podman, bwrap or refuse */
	int64_t		 started;
	int64_t		 now;
};

struct bx_grant_info {
	char		*id;
	char		*tool;
	char		*mode;
	enum bx_class	 max_taint;
	enum bx_class	 result_class;
	bool		 untrusted;
	int64_t		 expires;
	char		**paths;
	size_t		 npaths;
	char		**hosts;
	size_t		 nhosts;
};

struct bx_grant_list {
	struct bx_grant_info	*grants;
	size_t			 ngrants;
	struct bx_grant_problem	*problems;
	size_t			 nproblems;
};

/* approvals, ok, check_grants, sessions, status, list_grants: no fields. */
struct bx_msg {
	enum bx_msg_kind	kind;
	union {
		struct bx_tool_request	 tool_request;
		struct bx_tool_response	 tool_response;
		struct bx_approval_list	 approval_list;
		struct bx_approve	 approve;
		struct bx_outcome	 approve_result;	/* the re-decision */
		struct bx_refuse	 refuse;
		struct bx_grants_report	 grants_report;
		struct bx_error_msg	 error;
		struct bx_chat		 chat;
		struct bx_turn_event	 turn_event;
		struct bx_session_list	 session_list;
		struct bx_explain	 explain;
		struct bx_explanation	 explanation;
		struct bx_broker_status	 broker_status;
		struct bx_grant_list	 grant_list;
		struct bx_approvals_wait approvals_wait;
		struct bx_approval_changes approval_changes;
	};
};

#endif
