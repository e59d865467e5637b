/*
 * message.h: every message kind of the wire protocol (design section 10,
 * baseline.md sections 3 and 7) as one tagged struct, with its strict
 * decoder and deterministic encoder. docs/protocol.md lists each kind with
 * its fields in encoded order and an example frame.
 *
 * Ownership: a struct bx_msg and every string and array inside it are heap
 * memory owned by the message; bx_msg_free() frees all of it (NULL is
 * fine). bx_msg_decode() and the constructors return a new message the
 * caller frees. Constructors copy the strings they are given. Strings that
 * are optional on the wire (chat.session, refuse.reason) are NULL when
 * null or absent. bx_msg_encode() returns a
 * malloc'd buffer the caller frees with free().
 *
 * Decoding is strict: an unknown kind, an unknown field, a duplicate key, a
 * missing required field, a wrong type, a "final" that does not match the status or
 * event type, an invalid session, call or grant id, or a bad Timestamp is
 * an error naming the key. Fields of another status or event type are
 * unknown fields. tool_request.tool is kept as received (brokerd denies an
 * unknown tool with invalid_arguments), and so is every "arguments" string.
 * The optional fields (chat.session, refuse.reason, GrantProblem.line) may
 * be absent, which decodes as null (baseline.md section 1); the encoder
 * always writes them, null where absent.
 */
#ifndef BX_MESSAGE_H
#define BX_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
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

struct bx_approve {
	uint64_t	 approval;
};

struct bx_refuse {
	uint64_t	 approval;
	char		*reason;	/* the owner's text, or NULL */
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
	};
};

const char	*bx_msg_kind_name(enum bx_msg_kind);
const char	*bx_status_name(enum bx_status);
/* Whether a tool_response of this status ends its call. */
bool		 bx_status_is_final(enum bx_status);
const char	*bx_code_name(enum bx_code);
const char	*bx_event_name(enum bx_event);

/* Whether the frame ends its answer ("final": true on the wire). */
bool	bx_msg_is_final(const struct bx_msg *);

/* Decodes one frame (len bytes, without the newline) into a new message. */
int	bx_msg_decode(const char *line, size_t len, struct bx_msg **ret,
	    struct bx_error *);

/*
 * Encodes msg in its compact form with the trailing "\n" into a new,
 * NUL-terminated buffer; *ret_len counts the newline. Fails if a value
 * cannot be encoded (a string that is not UTF-8, a Timestamp out of range)
 * or the frame would pass BX_FRAME_MAX.
 */
int	bx_msg_encode(const struct bx_msg *, char **ret, size_t *ret_len,
	    struct bx_error *);

/* Encodes msg and writes it with bx_frame_write(); 0 or -1. */
int	bx_msg_send(int fd, const struct bx_msg *, int timeout_ms,
	    struct bx_error *);

void	bx_msg_free(struct bx_msg *);

/*
 * Constructors. Each returns a new message, or NULL if memory ran out. They
 * copy their strings and do not validate them (the peer's decoder does).
 */
struct bx_msg	*bx_msg_new(enum bx_msg_kind);	/* zeroed; for fieldless kinds */
struct bx_msg	*bx_msg_tool_request(const char *session, const char *call,
		    const char *tool, const char *arguments);
struct bx_msg	*bx_msg_pending(uint64_t approval, int64_t expires);
struct bx_msg	*bx_msg_approved(void);
struct bx_msg	*bx_msg_result(const char *content, enum bx_class,
		    bool untrusted, bool truncated);
struct bx_msg	*bx_msg_failed(const char *message);
struct bx_msg	*bx_msg_denied(enum bx_deny);
struct bx_msg	*bx_msg_approve(uint64_t approval);
struct bx_msg	*bx_msg_approve_result(const struct bx_outcome *);
struct bx_msg	*bx_msg_refuse(uint64_t approval, const char *reason);
struct bx_msg	*bx_msg_error(enum bx_code, const char *message);
struct bx_msg	*bx_msg_chat(const char *session, const char *text);

/*
 * approval_list and grants_report start empty; these append a copy.
 * bx_msg_add_problem also fills an explanation's or a grant_list's.
 */
int	bx_msg_add_pending(struct bx_msg *approval_list,
	    const struct bx_pending_approval *);
int	bx_msg_add_problem(struct bx_msg *grants_report, const char *file,
	    bool has_line, uint64_t line, const char *problem);

/* turn_event, one constructor per type. */
struct bx_msg	*bx_msg_ev_started(const char *session);
struct bx_msg	*bx_msg_ev_text(const char *text);
/* A piece of the model's text as it arrives (whole UTF-8 characters). */
struct bx_msg	*bx_msg_ev_text_delta(const char *text);
struct bx_msg	*bx_msg_ev_tool_call(const char *call, const char *tool,
		    const char *arguments);
struct bx_msg	*bx_msg_ev_tool_running(const char *call, const char *tool);
struct bx_msg	*bx_msg_ev_tool_result(const char *call, enum bx_status,
		    const char *content, enum bx_class, bool untrusted);
struct bx_msg	*bx_msg_ev_approval_pending(uint64_t approval,
		    const char *tool, int64_t expires);
struct bx_msg	*bx_msg_ev_done(const char *reply);
struct bx_msg	*bx_msg_ev_error(const char *message);

/*
 * The console's kinds (message_console.c). Their lists start empty; the
 * add functions append a copy of what they are given.
 */
struct bx_msg	*bx_msg_explain(const char *session, const char *tool,
		    const char *arguments);
struct bx_msg	*bx_msg_broker_status(const char *version,
		    const char *runtime, int64_t started, int64_t now);
int	bx_msg_add_session(struct bx_msg *session_list,
	    const struct bx_session_info *);
int	bx_msg_add_candidate(struct bx_msg *explanation,
	    const struct bx_candidate *);
int	bx_msg_add_grant(struct bx_msg *grant_list,
	    const struct bx_grant_info *);
/* Copies what the explanation's fixed fields and grant point at. */
int	bx_msg_set_explanation(struct bx_msg *explanation,
	    const struct bx_explanation *);

/* Frees the strings of one PendingApproval (not the struct itself). */
void	bx_pending_approval_clear(struct bx_pending_approval *);

#endif
