/*
 * harness.h: the real build/brokerd binary as the reliability tests use it
 * (tests/crash/ and tests/reliability/): a temporary home with grants that
 * allow, ask and deny, starting brokerd (optionally under a wrapper such as
 * strace), killing and restarting it, talking to it over both sockets, and
 * reading back its audit log to check what it promised.
 *
 * Nothing here calls cmocka: functions return a status so that the client
 * threads of the crash test can use them; the tests assert on the results.
 *
 * Ownership: a struct rh_home is the caller's (usually on the stack);
 * rh_home_make creates the directory and rh_home_remove deletes it and all
 * it holds. A struct rh_log is filled by rh_log_read and freed with
 * rh_log_free. A struct rh_call owns its socket until rh_call_close.
 */
#ifndef TESTS_RELIABILITY_HARNESS_H
#define TESTS_RELIABILITY_HARNESS_H

#include <sys/types.h>

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/broker.h"
#include "proto/audit_record.h"
#include "proto/frame.h"

/* Generous: brokerd may run under strace or a sanitizer. */
#define RH_WAIT_MS	20000

/*
 * The grants of every home, one per mode, all for read_file:
 *	docs	/docs	auto	-> allowed; M3a's runner answers failed
 *	notes	/notes	ask	-> pending, then approve or refuse
 *	secret	/secret	deny	-> denied_by_grant
 * Any other path is no_grant.
 */
#define RH_ARGS_ALLOW	"{\"path\":\"/docs/a.md\"}"
#define RH_ARGS_ASK	"{\"path\":\"/notes/b.md\"}"
#define RH_ARGS_DENY	"{\"path\":\"/secret/c\"}"
#define RH_ARGS_NONE	"{\"path\":\"/elsewhere/d\"}"

struct rh_home {
	char	dir[PATH_MAX];
	char	config[PATH_MAX];
	char	grants[PATH_MAX];
	char	broker[PATH_MAX];
	char	admin[PATH_MAX];
	char	audit[PATH_MAX];
	char	errs[PATH_MAX];		/* brokerd's stderr, appended */
	pid_t	pid;			/* brokerd (or its wrapper), or 0 */
	pid_t	brokerd;		/* brokerd itself, once it serves */
	int	status;			/* the wait status rh_reaped saw last */
};

/* A new home under $TMPDIR (or /tmp) with the grants above; -1 on failure. */
int	rh_home_make(struct rh_home *, int64_t ttl_ms);
/*
 * Rewrites <home>/brokerd.toml with runner as the body of its [runner]
 * table (rh_home_make's is kind = "refuse": M3a's runner).
 */
int	rh_home_config(struct rh_home *, int64_t ttl_ms, const char *runner);
/* Stops brokerd if it runs (SIGKILL), then deletes the home. */
void	rh_home_remove(struct rh_home *);

/* Removes path and everything below it, not following symlinks. */
void	rh_remove_tree(const char *path);

/* The path of a program of the build: BX_BUILD_ROOT/<rel>. */
void	rh_program(const char *rel, char *out, size_t size);

/*
 * Starts `[wrapper...] brokerd serve --config <home>/brokerd.toml`, stderr
 * appended to h->errs, and waits until both sockets accept a connection
 * (a stale socket file left by a killed brokerd does not count). Returns 0,
 * or -1 if brokerd exited first or did not serve within RH_WAIT_MS.
 */
int	rh_start(struct rh_home *, const char *const *wrapper);
/*
 * Sends sig to brokerd itself (not to a wrapper: strace ignores SIGTERM, and
 * a tracer that dies leaves its tracee running) and reaps what rh_start
 * started; its wait status (a wrapper's own, when there is one).
 */
int	rh_kill(struct rh_home *, int sig);
/* Reaps brokerd if it has exited; its wait status, or -1 while it runs. */
int	rh_reaped(struct rh_home *);
/*
 * Attaches `strace -f -qq ARGS... -p <brokerd>` to the running brokerd and
 * waits until each of its threads is traced: a fault injected this way
 * counts calls from the attach on, so the startup's own writes are not
 * counted. Returns strace's pid, or -1. rh_strace_wait reaps it once
 * brokerd has stopped or died; its wait status.
 */
pid_t	rh_strace_attach(const struct rh_home *, const char *const *args);
int	rh_strace_wait(pid_t);
/* Whether h->errs contains text. */
bool	rh_errs_contain(const struct rh_home *, const char *text);

/* A Unix socket connected to path, or -1. */
int	rh_dial(const char *path);

/* What a tool_request's connection answered, frame by frame. */
enum rh_got {
	RH_NOTHING,	/* the connection ended or timed out */
	RH_PENDING,	/* tool_response pending_approval */
	RH_FINAL,	/* a final tool_response */
	RH_ERROR,	/* an error frame */
};

struct rh_answer {
	enum rh_got	a_got;
	uint64_t	a_approval;	/* RH_PENDING */
	enum bx_status	a_status;	/* RH_FINAL */
	enum bx_deny	a_reason;	/* RH_FINAL, denied */
	enum bx_code	a_code;		/* RH_ERROR */
	char		a_message[256];	/* RH_FINAL failed, RH_ERROR */
	bool		a_truncated;	/* RH_FINAL result */
	enum bx_class	a_class;	/* RH_FINAL result */
};

struct rh_call {
	int			c_fd;
	struct bx_frame_reader	c_reader;
};

/* Connects and sends one tool_request for read_file; 0 or -1. */
int		rh_call_start(struct rh_call *, const char *socket,
		    const char *session, const char *call, const char *args);
/* Connects and sends one tool_request for tool; 0 or -1. */
int		rh_call_tool(struct rh_call *, const char *socket,
		    const char *session, const char *call, const char *tool,
		    const char *args);
/* The next frame of the answer, within timeout_ms. */
enum rh_got	rh_call_next(struct rh_call *, int timeout_ms,
		    struct rh_answer *);
/*
 * The same; a final result's content or failure's message, whole, in
 * *content (malloc'd, the caller frees) when content is not NULL.
 */
enum rh_got	rh_call_next_full(struct rh_call *, int timeout_ms,
		    struct rh_answer *, char **content);
void		rh_call_close(struct rh_call *);

/*
 * One admin request on a new connection (req is taken); *ret is the
 * answer's frame, or NULL if none came. Returns 0 or -1.
 */
int	rh_admin(const char *socket, struct bx_msg *req, struct bx_msg **ret,
	    int timeout_ms);

/* The audit log as brokerd left it: every line that decodes, in order. */
struct rh_log {
	struct bx_audit_record	*l_recs;
	size_t			 l_n;
	size_t			 l_bad;		/* lines that do not decode */
	size_t			 l_recoveries;
};

/* Reads each <home>/audit/ file ending .jsonl, in name order; -1 on error. */
int	rh_log_read(const char *home, struct rh_log *);
void	rh_log_free(struct rh_log *);
/* Whether the newest audit file ends in bytes without a newline. */
bool	rh_log_torn(const char *home);
/* The first record of type for session and call, or NULL. */
const struct bx_audit_record *rh_log_find(const struct rh_log *,
	    enum bx_event_type, const char *session, const char *call);
/* The record with seq, or NULL. */
const struct bx_audit_record *rh_log_seq(const struct rh_log *, uint64_t);

/*
 * The log's own promises, whatever the clients saw: seq 0, 1, 2... with no
 * gap; every Approval names an earlier ask Decision of its call; every
 * Result names an earlier Decision of its call that let it run (allowed, or
 * ask with an Approval that let it run) and nothing ran twice. Returns 0,
 * or -1 with why filled.
 */
int	rh_log_check(const struct rh_log *, char *why, size_t size);

/* What one client saw of one call, for rh_answers_check. */
struct rh_seen {
	char		s_session[BX_ID_MAX + 1];
	char		s_call[BX_ID_MAX + 1];
	bool		s_pending;	/* a pending frame came */
	uint64_t	s_approval;
	bool		s_approved;	/* approve was answered approve_result */
	struct bx_outcome s_approve_outcome;	/* ...with this outcome */
	bool		s_refused;	/* refuse was answered ok */
	bool		s_final;	/* a final tool_response came */
	enum bx_status	s_status;
	enum bx_deny	s_reason;
	bool		s_unrecorded;	/* failed BROKER_UNRECORDED */
};

/*
 * Every answer a client received has its record on disk: a pending frame
 * its ask Decision (seq = the approval id); an answered approve or refuse
 * its Approval with that outcome (an approve answered audit_unavailable:
 * no Result); a final denial its Decision (and Approval, after a pending
 * frame) with that reason; a final result or failure its Decision and
 * Result, except "the result could not be recorded" and audit_unavailable,
 * which promise the opposite (checked: no Result, or no Decision). Returns
 * 0, or -1 with why filled.
 */
int	rh_answers_check(const struct rh_log *, const struct rh_seen *,
	    size_t n, char *why, size_t size);

/*
 * Runs `bxctl audit verify --home <home>`; its exit status, its stdout in
 * out (cut to size).
 */
int	rh_verify(const char *home, char *out, size_t size);

/*
 * The checks after a run, in one: bxctl audit verify says ok, the log keeps
 * its own promises (rh_log_check), and every answer in each of the n lists
 * has its records (rh_answers_check). Returns 0, or -1 with why filled.
 */
int	rh_run_check(const char *home, const struct rh_seen *const *lists,
	    const size_t *counts, size_t n, char *why, size_t size);

/*
 * A client thread's loop: one_call(arg, &seen[i], n) for n = 0, 1, ...
 * until *stop or max calls; a call that never reached brokerd (false) is
 * not kept, and the loop waits a millisecond (brokerd is being killed).
 * Returns how many calls were kept in seen.
 */
size_t	rh_client_loop(atomic_bool *stop, struct rh_seen *seen, size_t max,
	    bool (*one_call)(void *arg, struct rh_seen *, unsigned n),
	    void *arg);

/*
 * A process on the host other than this one and skip whose command line
 * (its words joined by spaces) holds mark; its pid, or 0.
 */
pid_t	rh_process_with(const char *mark, pid_t skip);
/* Waits up to ms for such a process to run (want) or be gone (!want). */
bool	rh_await_process(const char *mark, bool want, int ms);

/* xorshift64: the tests' reproducible random numbers; *state is not 0. */
uint64_t rh_rand(uint64_t *state);

/* VmHWM (peak resident set) and VmRSS of a process, in KiB; -1 if unknown. */
long	rh_vm_kib(pid_t, const char *field);

/* Milliseconds on the monotonic clock. */
int64_t	rh_now_ms(void);
void	rh_sleep_ms(int);

#endif
