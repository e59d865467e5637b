/*
 * runner_podman.c: the design's runtime, podman (runner_impl.h). What the
 * probe of this machine found shapes it: every option comes before
 * --rootfs (a flag whose directory is the first positional argument); as
 * root here runc and explicit ulimits are needed; the container outlives a
 * killed or hung-up `podman run`, so an early end removes it by name with
 * `podman rm -f -t 0` (plain rm -f waits 10 s); --init makes a stop signal
 * reach the tool; --log-driver=passthrough gives the container our pipes,
 * so output past the limit never piles up on disk. The memory limit is the
 * call cgroup's, the --cgroup-parent: podman's own OOM report is always
 * false, and only an OOM in that cgroup is seen (cgroup.h).
 */
#include <sys/resource.h>

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/runner_impl.h"
#include "proto/clock.h"

/*
 * brokerd makes and limits each call's cgroup itself, and podman must put
 * the container under it: only the cgroupfs manager takes a cgroup path as
 * --cgroup-parent. podman's default under systemd, the systemd manager,
 * takes only a slice name and asks systemd over D-Bus for a scope outside
 * brokerd's delegated subtree (rootless podman on cgroup v2 refused our
 * path: "did not receive systemd slice as cgroup parent"). Every podman
 * command gets it, so that rm and ps see the containers run made.
 */
#define PODMAN_CGROUP_MANAGER	"--cgroup-manager=cgroupfs"
/* podman's own --timeout, past ours, for a container whose brokerd died. */
#define PODMAN_BACKSTOP_S	10
/* The container's RLIMIT_NPROC per process of its pids limit (nproc_limit). */
#define PODMAN_NPROC_PER_PID	32
/* How long podman rm and podman ps may take. */
#define PODMAN_COMMAND_MS	30000
/* podman ps's answer: container ids, one per line. */
#define PODMAN_PS_MAX		(64 * 1024)
/* The start-up sweep's rounds of podman ps and rm, and the pause before a
 * round that finds a container still listed. */
#define PODMAN_SWEEP_ROUNDS	5
#define PODMAN_SWEEP_PAUSE_MS	100

void
podman_name(const char *home_id, uint64_t seq, char *buf, size_t size)
{
	snprintf(buf, size, "boxmaker-%s-%" PRIu64, home_id, seq);
}

static void
add_op(struct argv *a, const struct sandbox_view *v,
    const struct sandbox_op *op)
{
	switch (op->o_kind) {
	case SB_BIND:
	case SB_ETC:
		argv_add(a, "-v");
		argv_add(a, "%s:%s:%s", op->o_src, op->o_dst,
		    op->o_writable ? "rw" : "ro");
		break;
	case SB_TMPFS:
		/*
		 * notmpcopyup: runc would otherwise copy what the path holds
		 * underneath into the tmpfs: under a grant of / that is the
		 * host's own /var/tmp, whose files then leak into the call
		 * and, if one vanishes mid-copy, fail its start.
		 */
		argv_add(a, "--tmpfs");
		argv_add(a, "%s:rw,nosuid,nodev,notmpcopyup,size=%" PRId64
		    "k,mode=%s",
		    op->o_dst, v->v_tmp_bytes / 1024,
		    strcmp(op->o_dst, "/run") == 0 ? "755" : "1777");
		break;
	case SB_COVER:
		argv_add(a, "-v");
		argv_add(a, "%s/cover:%s:ro", v->v_calldir, op->o_dst);
		break;
	case SB_HELPER:
		argv_add(a, "-v");
		argv_add(a, "%s:%s:ro", op->o_src, op->o_dst);
		break;
	default:
		break;		/* /proc and /dev are podman's own */
	}
}

/* -v takes "src:dst:mode": a path with ':' or ',' cannot be said. */
static int
check_paths(const struct sandbox_view *v, struct bx_error *err)
{
	const struct sandbox_op *op;
	size_t i;

	for (i = 0; i < v->v_nops; i++) {
		op = &v->v_ops[i];
		if (strpbrk(op->o_dst, ":,") != NULL ||
		    (op->o_src != NULL && strpbrk(op->o_src, ":,") != NULL))
			return bx_fail(err, "podman cannot mount %s: a path "
			    "with ':' or ','", op->o_dst);
	}
	return 0;
}

int
podman_argv(const struct podman_opts *o, const struct sandbox_view *v,
    struct argv *a, struct bx_error *err)
{
	char name[96];
	size_t i;

	if (check_paths(v, err) == -1)
		return -1;
	podman_name(o->po_home_id, v->v_seq, name, sizeof(name));
	argv_add(a, "%s", o->po_program);
	argv_add(a, PODMAN_CGROUP_MANAGER);
	argv_add(a, "run");
	argv_add(a, "--rm");
	argv_add(a, "--pull=never");
	if (o->po_runtime != NULL)
		argv_add(a, "--runtime=%s", o->po_runtime);
	argv_add(a, "--name=%s", name);
	argv_add(a, "--network=none");
	/*
	 * podman passes the host's proxy variables (credentials, often) and
	 * an inherited notify socket into the container by default; brokerd's
	 * environment is the owner's session, none of it the sandbox's.
	 */
	argv_add(a, "--http-proxy=false");
	argv_add(a, "--env-host=false");
	argv_add(a, "--sdnotify=ignore");
	argv_add(a, "--no-hosts");
	argv_add(a, "--hostname=%s", SANDBOX_HOSTNAME);
	argv_add(a, "--read-only");
	argv_add(a, "--init");
	argv_add(a, "--log-driver=passthrough");
	argv_add(a, "--cap-drop=all");
	argv_add(a, "--security-opt=no-new-privileges");
	argv_add(a, "--pids-limit=%" PRId64, o->po_pids);
	argv_add(a, "--ulimit=nofile=1024:1024");
	argv_add(a, "--ulimit=nproc=%s", o->po_nproc);
	argv_add(a, "--cgroup-parent=%s", o->po_cgroup_parent);
	argv_add(a, "--timeout=%" PRId64, (o->po_timeout_ms + 999) / 1000 +
	    PODMAN_BACKSTOP_S);
	argv_add(a, "--label=boxmaker.home=%s", o->po_home_id);
	argv_add(a, "--label=boxmaker.call=%" PRIu64, v->v_seq);
	if (o->po_user != NULL)
		argv_add(a, "--user=%s", o->po_user);
	if (v->v_stdin != NULL)
		argv_add(a, "--interactive");
	for (i = 0; i < v->v_nops; i++)
		add_op(a, v, &v->v_ops[i]);
	argv_add(a, "-v");
	argv_add(a, "%s:%s:ro", o->po_seccomp, SANDBOX_SECCOMP);
	argv_add(a, "--workdir=/");
	argv_add(a, "--rootfs");
	argv_add(a, "%s", v->v_rootfs);
	for (i = 0; i < v->v_argc; i++)
		argv_add(a, "%s", v->v_argv[i]);
	return argv_done(a, err);
}

/* Removes the container by name or id; podman says nothing we need. */
static void
remove_container(const char *program, const char *which)
{
	char *argv[] = { (char *)program, PODMAN_CGROUP_MANAGER, "rm", "-f",
	    "-t", "0", "-i", (char *)which, NULL };
	struct bx_error ignored;

	(void)exec_command(argv, PODMAN_COMMAND_MS, 0, NULL, &ignored);
}

struct podman_kill {
	const char	*pk_program;
	char		 pk_name[96];
	pid_t		 pk_run;	/* podman run, unreaped while this runs */
};

/*
 * SIGTERM reaches the tool through podman run (--init makes it count) even
 * while the container is still being made, when there is nothing to remove
 * yet; the removal ends one that exists. remove_call removes it once more
 * after an early end, for one made after this.
 */
static void
kill_container(void *ctx)
{
	struct podman_kill *k = ctx;

	kill(k->pk_run, SIGTERM);
	remove_container(k->pk_program, k->pk_name);
}

/*
 * The container's RLIMIT_NPROC: well above pids.max, so that the call's
 * pids cgroup is the bound its forks reach and count. Rootless, RLIMIT_NPROC
 * counts every process of the owner's uid (podman's pause and conmon, other
 * calls), so the old value, pids.max itself, refused forks first and no
 * cgroup counted them (the owner's VM). As root, podman needs an explicit
 * value and the kernel ignores it for uid 0; runc there could not set one
 * as high as brokerd's own hard limit (65536 of 96362 refused, 4096 taken),
 * so it is a multiple of pids, never above brokerd's soft limit.
 */
static const char *
nproc_limit(int64_t pids, char *buf, size_t size)
{
	struct rlimit rl;
	int64_t n = pids * PODMAN_NPROC_PER_PID;

	if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (int64_t)rl.rlim_cur < n)
		n = (int64_t)rl.rlim_cur;
	snprintf(buf, size, "%" PRId64 ":%" PRId64, n, n);
	return buf;
}

static void
pids_watch_read(void *cgroup_call)
{
	cgroup_call_pids_watch_read(cgroup_call);
}

int
podman_run(const struct backend_settings *bs, struct sandbox_call *call,
    struct exec_outcome *ret, struct bx_error *err)
{
	const struct sandbox_view *v = call->sc_view;
	struct podman_opts o;
	struct podman_kill k;
	char nproc[64];
	struct exec_hooks hooks = { .eh_kill = kill_container, .eh_ctx = &k };
	struct exec_spawn sp;
	struct exec_child c;
	struct argv a;
	int rc = -1;

	memset(&o, 0, sizeof(o));
	memset(&a, 0, sizeof(a));
	o.po_program = bs->bs_program;
	o.po_runtime = bs->bs_podman_runtime;
	o.po_home_id = bs->bs_home_id;
	o.po_cgroup_parent = cgroup_call_parent(call->sc_cgroup);
	o.po_pids = bs->bs_pids;
	o.po_timeout_ms = bs->bs_timeout_ms;
	o.po_user = bs->bs_user;
	o.po_seccomp = bs->bs_seccomp_file;
	o.po_nproc = nproc_limit(bs->bs_pids, nproc, sizeof(nproc));
	k.pk_program = bs->bs_program;
	podman_name(bs->bs_home_id, v->v_seq, k.pk_name, sizeof(k.pk_name));
	if (podman_argv(&o, v, &a, err) == -1)
		goto out;
	memset(&sp, 0, sizeof(sp));
	sp.es_argv = a.a_v;
	sp.es_stdin = v->v_stdin != NULL;
	sp.es_cwd = v->v_calldir;	/* conmon leaves an "oom" file there */
	sp.es_status_read = -1;
	/*
	 * The pids counter of podman's libpod-<id> is removed with it; it is
	 * watched from before the container is made (cgroup_pids.c).
	 */
	if ((hooks.eh_watch_fd = cgroup_call_pids_watch(call->sc_cgroup)) != -1) {
		hooks.eh_on_watch = pids_watch_read;
		hooks.eh_watch_ctx = call->sc_cgroup;
	}
	call->sc_abnormal = true;
	if (exec_start(&sp, &c, err) == -1)
		goto out;
	k.pk_run = c.ec_pid;
	if (exec_supervise(&c, call->sc_limits, &hooks, ret, err) == -1)
		goto out;
	call->sc_abnormal = ret->eo_end != EXEC_EXITED;
	rc = 0;
out:
	argv_clear(&a);
	return rc;
}

void
podman_cleanup(const struct backend_settings *bs, uint64_t seq)
{
	char name[96];

	podman_name(bs->bs_home_id, seq, name, sizeof(name));
	remove_container(bs->bs_program, name);
}

/* This home's containers, one id per line, into *ret (the caller frees). */
static int
list_containers(const struct backend_settings *bs, char **ret,
    struct bx_error *err)
{
	char filter[64], *out = NULL;
	char *argv[] = { (char *)bs->bs_program, PODMAN_CGROUP_MANAGER, "ps",
	    "-a", "-q", "--filter", filter, NULL };
	int status;

	snprintf(filter, sizeof(filter), "label=boxmaker.home=%s",
	    bs->bs_home_id);
	if ((status = exec_command(argv, PODMAN_COMMAND_MS, PODMAN_PS_MAX,
	    &out, err)) == -1)
		return -1;
	if (status != 0) {
		free(out);
		return bx_fail(err, "podman ps -a --filter %s failed (wait "
		    "status %d)", filter, status);
	}
	*ret = out;
	return 0;
}

/* Removes each container listed; how many there were. */
static size_t
remove_listed(const struct backend_settings *bs, char *list)
{
	char *line, *save = NULL;
	size_t n = 0;

	for (line = strtok_r(list, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		remove_container(bs->bs_program, line);
		n++;
	}
	return n;
}

/*
 * A container still running when brokerd died is stopped by our rm, and
 * its own --rm cleanup then races that rm: measured here, about one kill
 * in 250 left it listed as exited. So the sweep lists again after each
 * round, and a container still listed after PODMAN_SWEEP_ROUNDS fails the
 * start rather than be forgotten.
 */
int
podman_sweep(const struct backend_settings *bs, size_t *ret_removed,
    struct bx_error *err)
{
	size_t removed = 0, found;
	char *out = NULL;
	int round;

	for (round = 0; ; round++) {
		if (list_containers(bs, &out, err) == -1)
			return -1;
		if (out[strspn(out, "\n")] == '\0')
			break;
		if (round == PODMAN_SWEEP_ROUNDS) {
			out[strcspn(out, "\n")] = '\0';
			bx_fail(err, "podman rm -f did not remove container %s "
			    "(and perhaps others) in %d rounds; remove "
			    "them with podman rm -f", out, round);
			free(out);
			return -1;
		}
		/* Still listed after a round: let its own cleanup finish. */
		if (round > 0)
			bx_clock_sleep_ms(PODMAN_SWEEP_PAUSE_MS);
		found = remove_listed(bs, out);
		if (round == 0)
			removed = found;
		free(out);
		out = NULL;
	}
	free(out);
	*ret_removed = removed;
	return 0;
}
