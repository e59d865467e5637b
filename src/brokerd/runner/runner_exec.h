/*
 * runner_exec.h: starting a runtime's process (podman run, bwrap) and
 * watching it until it ends: its stdin fed, its stdout read up to the
 * output limit, its stderr kept for the helper's status lines and the
 * runtime's own words, the wall time, and the caller's hang-up. Whatever
 * ends the call early (timeout, output cap, hang-up) calls the runtime's
 * kill hook once; the process is always reaped before exec_supervise
 * returns, and a process that outlives its kill by EXEC_KILL_GRACE_MS is
 * SIGKILLed itself.
 *
 * The child between fork and exec uses only async-signal-safe calls
 * (brokerd is threaded): on cgroup v2 it is made in the call's cgroup by
 * clone3(CLONE_INTO_CGROUP) (Linux 5.7); on v1 it joins the call's cgroups
 * by writing "0" to the descriptors it is given, a move that costs 8 to
 * 12 ms in the kernel (bench/README.md), starts its own session, asks for SIGKILL when
 * the forking thread ends (PR_SET_PDEATHSIG: the thread that forks waits
 * for the child, so it outlives it), and gets default signal dispositions
 * and an empty mask.
 *
 * Ownership: exec_outcome_clear frees what exec_supervise put in the
 * outcome. Descriptors of the exec_child are closed by exec_supervise.
 */
#ifndef BROKERD_RUNNER_EXEC_H
#define BROKERD_RUNNER_EXEC_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"

/* The runtime's stderr kept (the helper's lines, the runtime's words). */
#define EXEC_ERR_MAX		(64 * 1024)
/* After a kill, how long the process has to end before it is killed too. */
#define EXEC_KILL_GRACE_MS	5000
/* After the process ended, how long its pipes may still be drained. */
#define EXEC_DRAIN_MS		1000
/* What exec_command reads and drops of a command whose output is unwanted. */
#define EXEC_DISCARD_MAX	(1024 * 1024)
/*
 * bxtool's first status line (src/bxtool/status.c), written just before it
 * starts the tool: where a call's own time begins.
 */
#define EXEC_STARTED_LINE	"bxtool: started\n"
/* Runtime processes watched at once (calls and their podman commands). */
#define EXEC_MAX_LIVE		256

struct exec_spawn {
	char *const	*es_argv;
	const int	*es_join_fds;	/* cgroup.procs files; "0" written */
	size_t		 es_njoin;
	bool		 es_into_cgroup; /* made in es_cgroup_dir (v2) */
	int		 es_cgroup_dir;	/* a cgroup's directory, read-only */
	const int	*es_keep_fds;	/* kept open across exec */
	size_t		 es_nkeep;
	bool		 es_stdin;	/* a pipe for stdin; else /dev/null */
	const char	*es_cwd;	/* NULL: brokerd's */
	int		 es_status_read; /* a status pipe's read end, or -1 */
	/*
	 * The program's environment; NULL: brokerd's own. A runtime whose
	 * own process stays inside the sandbox (bwrap is its pid 1, and its
	 * /proc/1/environ is the tool's to read) gets an empty one.
	 */
	char *const	*es_env;
};

/* An empty environment, for es_env. */
extern char *const exec_no_env[];

struct exec_child {
	pid_t	ec_pid;
	int	ec_pidfd;
	int	ec_stdin;	/* -1 when none */
	int	ec_stdout;
	int	ec_stderr;
	int	ec_status;	/* a runtime's status pipe, -1 when none */
	int64_t	ec_started_ms;	/* bx_clock_mono_ms */
};

enum exec_end {
	EXEC_EXITED,	/* on its own */
	EXEC_TIMED_OUT,
	EXEC_CAPPED,	/* past the output limit */
	EXEC_HUNG_UP,	/* the caller went away */
	EXEC_END_MAX
};

struct exec_outcome {
	enum exec_end	 eo_end;
	char		*eo_out;	/* stdout, at most the limit + 1 */
	size_t		 eo_out_len;
	char		*eo_err;	/* stderr, at most EXEC_ERR_MAX */
	size_t		 eo_err_len;
	bool		 eo_err_lost;	/* stderr was longer */
	int		 eo_wait_status;
	int64_t		 eo_elapsed_ms;
	bool		 eo_started;	/* EXEC_STARTED_LINE was seen */
};

struct exec_hooks {
	/* Ends the sandbox; called at most once. */
	void	(*eh_kill)(void *ctx);
	void	*eh_ctx;
	/*
	 * With eh_on_watch set, eh_watch_fd is polled too while the process
	 * runs, and eh_on_watch reads it when it is readable: a counter that
	 * podman removes with its container is read while it is there.
	 */
	void	(*eh_on_watch)(void *watch_ctx);
	void	*eh_watch_ctx;
	int	 eh_watch_fd;
};

struct exec_limits {
	/*
	 * With el_start_timeout_ms > 0, el_timeout_ms counts from
	 * EXEC_STARTED_LINE at the start of a line of the runtime's stderr,
	 * and the runtime's own start (the fork to that line) has a bound of
	 * its own, el_start_timeout_ms: so a slow or busy runtime never eats
	 * the tool's time. Past either bound the call ends EXEC_TIMED_OUT
	 * (eo_started says which). With 0, el_timeout_ms counts from the fork.
	 */
	int64_t	 el_timeout_ms;
	int64_t	 el_start_timeout_ms;
	size_t	 el_output_bytes;
	int	 el_hangup_fd;		/* -1: none */
	const char *el_stdin;		/* fed to the child's stdin pipe */
	size_t	 el_stdin_len;
};

/*
 * Forks and execs; on success the child's descriptors are in *ret and
 * es_status_read is its ec_status. The caller still closes its own copies
 * of es_keep_fds.
 */
int	exec_start(const struct exec_spawn *, struct exec_child *ret,
	    struct bx_error *err);

/* Watches the child until it ends (see above); closes its descriptors. */
int	exec_supervise(struct exec_child *, const struct exec_limits *,
	    const struct exec_hooks *, struct exec_outcome *ret,
	    struct bx_error *err);

void	exec_outcome_clear(struct exec_outcome *);

/*
 * Whether err[0..len) holds EXEC_STARTED_LINE at the start of a line
 * (exec_started.c; exec_supervise calls it after each read of stderr). Only
 * what came after the first scanned bytes is searched, with the few bytes
 * before it where a line split between two reads may begin; scanned is
 * what an earlier search (which found nothing) saw.
 */
bool	exec_find_started(const char *err, size_t len, size_t scanned);

/*
 * Runs argv (a runtime's helper command: podman rm, podman ps) with stdout
 * read into *ret_out (at most max bytes, NUL-terminated; NULL: discarded)
 * and stderr discarded, within timeout_ms; returns its wait status, or -1.
 */
int	exec_command(char *const argv[], int64_t timeout_ms, size_t max,
	    char **ret_out, struct bx_error *err);

/*
 * Kills and reaps brokerd's children that no exec_supervise watches: what
 * a runtime left to a subreaper brokerd. Returns how many.
 */
size_t	exec_reap_orphans(void);

/*
 * The table of children calls watch (runner_reap.c). exec_start holds the
 * lock across fork, so the reaper never sees a new child unlisted;
 * exec_live_swap (lock held) replaces old by new: (0, pid) lists a child,
 * (pid, 0) unlists it.
 */
void	exec_live_lock(void);
void	exec_live_unlock(void);
bool	exec_live_swap(pid_t old, pid_t new);	/* false: old not found */

#endif
