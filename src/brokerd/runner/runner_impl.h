/*
 * runner_impl.h: what the sandbox runtime (runner_sandbox.c) shares with
 * its two backends, runner_podman.c and runner_bwrap.c. Each backend
 * renders a sandbox_view into its runtime's argv (a pure function, pinned
 * by the golden argv tests) and runs one call: start, supervise through
 * runner_exec.c, end the sandbox when the call ends early, and remove what
 * its runtime left.
 *
 * Ownership: the opts and settings structs borrow their strings; a struct
 * argv's is written in runner_argv.h.
 */
#ifndef BROKERD_RUNNER_IMPL_H
#define BROKERD_RUNNER_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <limits.h>
#include <pthread.h>

#include "brokerd/log.h"
#include "brokerd/runner/cgroup.h"
#include "brokerd/runner/config_runner.h"
#include "brokerd/runner/runner_argv.h"
#include "brokerd/runner/runner.h"
#include "brokerd/runner/runner_exec.h"
#include "brokerd/runner/runner_slots.h"
#include "brokerd/runner/sandbox.h"
#include "proto/error.h"

/* What podman's argv is made from besides the view. */
struct podman_opts {
	const char	*po_program;	/* absolute */
	const char	*po_runtime;	/* NULL: podman's default */
	const char	*po_home_id;	/* 16 hex digits */
	const char	*po_cgroup_parent;
	int64_t		 po_pids;
	int64_t		 po_timeout_ms;	/* the backstop is a little past it */
	const char	*po_user;	/* "UID:GID", or NULL */
	const char	*po_seccomp;	/* the filter's file, for bxtool */
	const char	*po_nproc;	/* "SOFT:HARD", above po_pids */
};

/* What bwrap's argv is made from besides the view. */
struct bwrap_opts {
	const char	*bo_program;	/* absolute */
	int		 bo_seccomp_fd;
	int		 bo_status_fd;
	int		 bo_args_fd;
	/*
	 * Per op of the view, the open source of an SB_BIND (--bind-fd), so
	 * that what bwrap mounts is what brokerd checked; NULL: by path.
	 */
	const int	*bo_bind_fds;
	/* The generated /etc's files (sandbox_etc), in memory files. */
	int		 bo_etc_fds[SANDBOX_ETC_FILES];
};

/* The name of call seq's container: boxmaker-<home id>-<seq>. */
void	podman_name(const char *home_id, uint64_t seq, char *buf,
	    size_t size);
int	podman_argv(const struct podman_opts *, const struct sandbox_view *,
	    struct argv *ret, struct bx_error *err);
/*
 * bwrap's argv is "bwrap --args FD COMMAND..."; the options it reads from
 * FD (NUL-separated) go in *ret_options, so the sandbox's /proc/1/cmdline
 * does not list the host paths it mounts.
 */
int	bwrap_argv(const struct bwrap_opts *, const struct sandbox_view *,
	    struct argv *ret_options, struct argv *ret, struct bx_error *err);

/* One call in progress, as the backends see it. */
struct sandbox_call {
	const struct sandbox_view	*sc_view;
	struct cgroup_call		*sc_cgroup;
	const struct exec_limits	*sc_limits;
	/* Set by the backend: whether its runtime may have left something. */
	bool				 sc_abnormal;
};

/* A backend, with the settings it was made with (runner_sandbox.c). */
struct backend_settings {
	const char	*bs_program;
	const char	*bs_podman_runtime;
	const char	*bs_home_id;
	int64_t		 bs_pids;
	int64_t		 bs_timeout_ms;
	const char	*bs_user;	/* "UID:GID", or NULL */
	const void	*bs_seccomp;	/* the BPF program of seccomp.h */
	size_t		 bs_seccomp_len;
	const char	*bs_seccomp_file; /* podman: it, for bxtool to install */
};

int	podman_run(const struct backend_settings *, struct sandbox_call *,
	    struct exec_outcome *ret, struct bx_error *err);
/* Removes call seq's container if it is still there. */
void	podman_cleanup(const struct backend_settings *, uint64_t seq);
/* Removes every container labelled with this home (startup). */
int	podman_sweep(const struct backend_settings *, size_t *ret_removed,
	    struct bx_error *err);
int	bwrap_run(const struct backend_settings *, struct sandbox_call *,
	    struct exec_outcome *ret, struct bx_error *err);

/* The sandbox runtime (runner_sandbox.c); filled by runner_setup. */
struct runner_sandbox {
	struct config_runner	 rs_cfg;	/* its strings borrowed */
	const struct broker_log	*rs_log;	/* NULL: silent */
	struct runtime		 rs_runtime;
	struct backend_settings	 rs_backend;
	struct sandbox_host	 rs_host;
	struct cgroup_host	*rs_cgroups;
	char			 rs_home_id[17];
	char			 rs_program[PATH_MAX];
	char			 rs_bxtool[PATH_MAX];
	char			 rs_bxegress[PATH_MAX];
	char			 rs_runner_dir[PATH_MAX];
	char			 rs_usr[PATH_MAX];
	char			 rs_user[32];
	char			*rs_protected[SANDBOX_MAX_PROTECTED];
	char			*rs_entries[SANDBOX_MAX_ROOT_ENTRIES];
	void			*rs_seccomp;
	char			 rs_seccomp_file[PATH_MAX];
	struct runner_slots	 rs_slots;	/* max_running, in order */
};

struct runner_sandbox_config;

/* The host's facts into rs (runner_host.c), from its copied rs_cfg. */
int	runner_setup(struct runner_sandbox *, const struct runner_sandbox_config *,
	    struct bx_error *err);
/* Removes this home's cgroups where they are empty (runner_host.c). */
void	runner_release(struct runner_sandbox *);

#endif
