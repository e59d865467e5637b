/*
 * runner_bwrap.c: the bubblewrap runtime (runner_impl.h). bwrap has no
 * limits of its own, so the call's cgroup (joined by the child before it
 * execs bwrap) holds memory and processes, and brokerd's seccomp program
 * (seccomp.h) goes in through --seccomp. An early end kills everything in
 * the call's cgroup, where killing the outer bwrap alone in its first
 * milliseconds could leave the sandbox running (the probe); the status
 * descriptor is only kept open, since bwrap dies of SIGPIPE writing its
 * last line to a closed one. The options go
 * in through --args, so the host paths never show in /proc/1/cmdline.
 * The sandbox's root is bwrap's own tmpfs, holding the skeleton and the
 * generated /etc (sandbox_root.c) and made read-only last: a call writes
 * no directory tree to the home's disk (issue 27).
 */
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/runner_impl.h"
#include "proto/writefile.h"

/* A cover: an empty tmpfs of one page, read-only; nothing a call shares. */
#define BWRAP_COVER_BYTES	4096

/*
 * The skeleton (sandbox_root.c) in bwrap's own root, a tmpfs that lives
 * as long as the sandbox: nothing of it is written to the home's disk,
 * and "--remount-ro /" makes it read-only once everything is mounted.
 */
static void
add_skeleton(struct argv *a, const struct sandbox_view *v)
{
	size_t i;

	for (i = 0; sandbox_skeleton_dirs[i] != NULL; i++) {
		argv_add(a, "--dir");
		argv_add(a, "/%s", sandbox_skeleton_dirs[i]);
	}
	for (i = 0; i < v->v_nlinks; i++) {
		argv_add(a, "--symlink");
		argv_add(a, "usr/%s", v->v_links[i]);
		argv_add(a, "/%s", v->v_links[i]);
	}
}

/* The generated /etc's files, copied by bwrap from their memory files. */
static void
add_etc(struct argv *a, const struct bwrap_opts *o,
    const struct sandbox_op *op)
{
	size_t i;

	for (i = 0; i < SANDBOX_ETC_FILES; i++) {
		argv_add(a, "--perms");
		argv_add(a, "0644");
		argv_add(a, "--file");
		argv_add(a, "%d", o->bo_etc_fds[i]);
		argv_add(a, "%s/%s", op->o_dst, sandbox_etc_names[i]);
	}
}

static void
add_op(struct argv *a, const struct bwrap_opts *o,
    const struct sandbox_view *v, size_t i)
{
	const struct sandbox_op *op = &v->v_ops[i];
	int fd = o->bo_bind_fds != NULL ? o->bo_bind_fds[i] : -1;

	switch (op->o_kind) {
	case SB_BIND:
		if (fd >= 0) {
			argv_add(a, op->o_writable ? "--bind-fd" :
			    "--ro-bind-fd");
			argv_add(a, "%d", fd);
		} else {
			argv_add(a, op->o_writable ? "--bind" : "--ro-bind");
			argv_add(a, "%s", op->o_src);
		}
		argv_add(a, "%s", op->o_dst);
		break;
	case SB_ETC:
		add_etc(a, o, op);
		break;
	case SB_TMPFS:
		argv_add(a, "--perms");
		argv_add(a, strcmp(op->o_dst, "/run") == 0 ? "0755" : "1777");
		argv_add(a, "--size");
		argv_add(a, "%" PRId64, v->v_tmp_bytes);
		argv_add(a, "--tmpfs");
		argv_add(a, "%s", op->o_dst);
		break;
	case SB_PROC:
		argv_add(a, "--proc");
		argv_add(a, "%s", op->o_dst);
		break;
	case SB_DEV:
		argv_add(a, "--dev");
		argv_add(a, "%s", op->o_dst);
		break;
	case SB_COVER:
		argv_add(a, "--perms");
		argv_add(a, "0555");
		argv_add(a, "--size");
		argv_add(a, "%d", BWRAP_COVER_BYTES);
		argv_add(a, "--tmpfs");
		argv_add(a, "%s", op->o_dst);
		argv_add(a, "--remount-ro");
		argv_add(a, "%s", op->o_dst);
		break;
	case SB_HELPER:
		argv_add(a, "--ro-bind");
		argv_add(a, "%s", op->o_src);
		argv_add(a, "%s", op->o_dst);
		break;
	default:
		break;
	}
}

int
bwrap_argv(const struct bwrap_opts *o, const struct sandbox_view *v,
    struct argv *opts, struct argv *a, struct bx_error *err)
{
	size_t i;

	argv_add(opts, "--unshare-all");
	argv_add(opts, "--unshare-user");
	argv_add(opts, "--disable-userns");
	argv_add(opts, "--die-with-parent");
	argv_add(opts, "--new-session");
	argv_add(opts, "--clearenv");
	argv_add(opts, "--cap-drop");
	argv_add(opts, "ALL");
	argv_add(opts, "--hostname");
	argv_add(opts, SANDBOX_HOSTNAME);
	argv_add(opts, "--seccomp");
	argv_add(opts, "%d", o->bo_seccomp_fd);
	argv_add(opts, "--json-status-fd");
	argv_add(opts, "%d", o->bo_status_fd);
	add_skeleton(opts, v);
	for (i = 0; i < v->v_nops; i++)
		add_op(opts, o, v, i);
	argv_add(opts, "--remount-ro");
	argv_add(opts, "/");
	argv_add(opts, "--chdir");
	argv_add(opts, "/");
	if (argv_done(opts, err) == -1)
		return -1;
	argv_add(a, "%s", o->bo_program);
	argv_add(a, "--args");
	argv_add(a, "%d", o->bo_args_fd);
	argv_add(a, "--");
	for (i = 0; i < v->v_argc; i++)
		argv_add(a, "%s", v->v_argv[i]);
	return argv_done(a, err);
}

/* Puts len bytes into the memory file fd and rewinds it for the reader. */
static int
fill(int fd, const void *buf, size_t len, struct bx_error *err)
{
	if (bx_write_all(fd, buf, len) == -1 || lseek(fd, 0, SEEK_SET) == -1)
		return bx_fail(err, "bwrap: cannot fill a memory file: %s",
		    strerror(errno));
	return 0;
}

/* A new memory file holding len bytes, rewound; -1 when it cannot be. */
static int
memory_file(const char *name, const void *buf, size_t len,
    struct bx_error *err)
{
	int fd;

	if ((fd = memfd_create(name, MFD_CLOEXEC)) == -1)
		return bx_fail(err, "bwrap: memfd_create: %s", strerror(errno));
	if (fill(fd, buf, len, err) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The options, NUL-separated, as --args reads them. */
static int
fill_args(int fd, const struct argv *opts, struct bx_error *err)
{
	size_t i, len = 0, at = 0;
	char *buf;
	int rc;

	for (i = 0; i < opts->a_n; i++)
		len += strlen(opts->a_v[i]) + 1;
	if ((buf = malloc(len + 1)) == NULL)
		return bx_fail(err, "bwrap: out of memory");
	for (i = 0; i < opts->a_n; i++) {
		memcpy(buf + at, opts->a_v[i], strlen(opts->a_v[i]) + 1);
		at += strlen(opts->a_v[i]) + 1;
	}
	rc = fill(fd, buf, len, err);
	free(buf);
	return rc;
}

/*
 * Opens each bind's source, the path sandbox.c resolved and checked, with
 * no symlink anywhere in it: a component swapped for a link since then
 * (by another call's tool, in a writable grant) fails the call instead of
 * mounting where the link points. fds[i] is -1 for the other ops; the
 * descriptors are O_PATH, and bwrap closes them once mounted.
 */
static int
open_sources(const struct sandbox_view *v, int *fds, struct bx_error *err)
{
	struct open_how how;
	size_t i;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS;
	for (i = 0; i < v->v_nops; i++) {
		fds[i] = -1;
		if (v->v_ops[i].o_kind != SB_BIND)
			continue;
		fds[i] = (int)syscall(SYS_openat2, AT_FDCWD, v->v_ops[i].o_src,
		    &how, sizeof(how));
		if (fds[i] == -1)
			return bx_fail(err, "bwrap: the granted path %s cannot "
			    "be opened without following a link (did it change "
			    "since it was checked?): %s", v->v_ops[i].o_src,
			    strerror(errno));
	}
	return 0;
}

static void
close_sources(const struct sandbox_view *v, int *fds)
{
	size_t i;

	for (i = 0; fds != NULL && i < v->v_nops; i++)
		if (fds[i] != -1)
			close(fds[i]);
	free(fds);
}

/*
 * The memory files bwrap reads: the filter, the generated /etc's files,
 * and the options (empty here, filled once their argv is known).
 */
static int
open_memory_files(struct bwrap_opts *o, const struct backend_settings *bs,
    const struct sandbox_view *v, struct bx_error *err)
{
	struct sandbox_etc_file files[SANDBOX_ETC_FILES];
	size_t i;

	o->bo_seccomp_fd = memory_file("bwrap-seccomp", bs->bs_seccomp,
	    bs->bs_seccomp_len, err);
	if (o->bo_seccomp_fd == -1)
		return -1;
	sandbox_etc(v, files);
	for (i = 0; i < SANDBOX_ETC_FILES; i++) {
		o->bo_etc_fds[i] = memory_file("bwrap-etc", files[i].ef_text,
		    files[i].ef_len, err);
		if (o->bo_etc_fds[i] == -1)
			return -1;
	}
	o->bo_args_fd = memory_file("bwrap-args", NULL, 0, err);
	return o->bo_args_fd == -1 ? -1 : 0;
}

static void
close_memory_files(struct bwrap_opts *o)
{
	size_t i;

	if (o->bo_seccomp_fd != -1)
		close(o->bo_seccomp_fd);
	for (i = 0; i < SANDBOX_ETC_FILES; i++)
		if (o->bo_etc_fds[i] != -1)
			close(o->bo_etc_fds[i]);
	if (o->bo_args_fd != -1)
		close(o->bo_args_fd);
}

/* The descriptors the child keeps: bwrap's options' and the sources. */
static int *
keep_list(const struct bwrap_opts *o, const struct sandbox_view *v,
    size_t *ret_n)
{
	size_t i, n = 0;
	int *keep;

	if ((keep = calloc(v->v_nops + 3 + SANDBOX_ETC_FILES,
	    sizeof(*keep))) == NULL)
		return NULL;
	keep[n++] = o->bo_seccomp_fd;
	keep[n++] = o->bo_status_fd;
	keep[n++] = o->bo_args_fd;
	for (i = 0; i < SANDBOX_ETC_FILES; i++)
		keep[n++] = o->bo_etc_fds[i];
	for (i = 0; i < v->v_nops; i++)
		if (o->bo_bind_fds[i] != -1)
			keep[n++] = o->bo_bind_fds[i];
	*ret_n = n;
	return keep;
}

struct bwrap_watch {
	pid_t			 bw_bwrap;
	struct cgroup_call	*bw_cgroup;
};

/*
 * Everything the sandbox runs is in the call's cgroup (the child joined it
 * before it execed bwrap): killing what is in it ends the sandbox whole,
 * also in bwrap's first milliseconds, and names no pid that bwrap may
 * already have reaped. bwrap itself is killed too, still unreaped.
 */
static void
kill_sandbox(void *ctx)
{
	struct bwrap_watch *w = ctx;
	struct bx_error ignored;

	(void)cgroup_call_kill(w->bw_cgroup, &ignored);
	kill(w->bw_bwrap, SIGKILL);
}

int
bwrap_run(const struct backend_settings *bs, struct sandbox_call *call,
    struct exec_outcome *ret, struct bx_error *err)
{
	const struct sandbox_view *v = call->sc_view;
	struct bwrap_opts o;
	struct bwrap_watch w = { 0, call->sc_cgroup };
	struct exec_hooks hooks = { .eh_kill = kill_sandbox, .eh_ctx = &w };
	struct argv opts, a;
	struct exec_spawn sp;
	struct exec_child c;
	int status[2] = { -1, -1 }, *fds, *keep = NULL;
	int rc = -1;
	size_t i;

	o.bo_program = bs->bs_program;
	o.bo_seccomp_fd = o.bo_status_fd = o.bo_args_fd = -1;
	o.bo_bind_fds = NULL;
	for (i = 0; i < SANDBOX_ETC_FILES; i++)
		o.bo_etc_fds[i] = -1;
	memset(&opts, 0, sizeof(opts));
	memset(&a, 0, sizeof(a));
	if ((fds = calloc(v->v_nops, sizeof(*fds))) == NULL) {
		bx_fail(err, "bwrap: out of memory");
		goto out;
	}
	o.bo_bind_fds = fds;
	if (open_sources(v, fds, err) == -1)
		goto out;
	if (pipe2(status, O_CLOEXEC) == -1) {
		bx_fail(err, "bwrap: pipe: %s", strerror(errno));
		goto out;
	}
	o.bo_status_fd = status[1];
	if (open_memory_files(&o, bs, v, err) == -1 ||
	    bwrap_argv(&o, v, &opts, &a, err) == -1 ||
	    fill_args(o.bo_args_fd, &opts, err) == -1)
		goto out;
	memset(&sp, 0, sizeof(sp));
	if ((keep = keep_list(&o, v, &sp.es_nkeep)) == NULL) {
		bx_fail(err, "bwrap: out of memory");
		goto out;
	}
	sp.es_argv = a.a_v;
	sp.es_env = exec_no_env;
	sp.es_njoin = cgroup_call_join_fds(call->sc_cgroup, &sp.es_join_fds);
	sp.es_cgroup_dir = cgroup_call_start_dir(call->sc_cgroup);
	sp.es_into_cgroup = sp.es_cgroup_dir != -1;
	sp.es_keep_fds = keep;
	sp.es_stdin = v->v_stdin != NULL;
	sp.es_status_read = status[0];
	call->sc_abnormal = true;
	if (exec_start(&sp, &c, err) == -1)
		goto out;
	status[0] = -1;		/* the child's now */
	close(status[1]);
	status[1] = -1;
	w.bw_bwrap = c.ec_pid;
	if (exec_supervise(&c, call->sc_limits, &hooks, ret, err) == -1)
		goto out;
	call->sc_abnormal = ret->eo_end != EXEC_EXITED;
	rc = 0;
out:
	if (status[0] != -1)
		close(status[0]);
	if (status[1] != -1)
		close(status[1]);
	close_memory_files(&o);
	close_sources(v, fds);
	free(keep);
	argv_clear(&opts);
	argv_clear(&a);
	return rc;
}
