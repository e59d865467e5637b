/*
 * jail.c: the caller's side of jail_spawn (jail.h). It forks the child
 * into its new namespaces, writes the child's id maps (itself as root,
 * through newuidmap and newgidmap otherwise), lets it go on, and reads
 * its report pipe to the end: nothing there means the program was exec'd,
 * text means the jail failed and says where.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jail/filter.h"
#include "jail/jail_impl.h"
#include "proto/writefile.h"

#define NAMESPACES	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | \
			CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
#define FIX_USERNS	"echo kernel.unprivileged_userns_clone=1 | sudo tee " \
			"/etc/sysctl.d/50-userns.conf && sudo sysctl --system"

struct pipes {
	int	go[2];
	int	report[2];
};

static void
close_fd(int *fd)
{
	if (*fd != -1)
		close(*fd);
	*fd = -1;
}

static void
close_pipes(struct pipes *p)
{
	close_fd(&p->go[0]);
	close_fd(&p->go[1]);
	close_fd(&p->report[0]);
	close_fd(&p->report[1]);
}

static int
check_spec(const struct jail_spec *spec, struct bx_error *err)
{
	size_t i;

	if (spec->js_nbinds > JAIL_MAX_BINDS)
		return bx_fail(err, "the jail takes at most %d binds",
		    JAIL_MAX_BINDS);
	for (i = 0; i < spec->js_nbinds; i++)
		if (spec->js_binds[i].jb_path[0] != '/')
			return bx_fail(err, "the jail's bind \"%s\" is not an "
			    "absolute path", spec->js_binds[i].jb_path);
	if (spec->js_id.ji_uid == 0 || spec->js_id.ji_uid == spec->js_uid ||
	    spec->js_id.ji_gid == 0 || spec->js_id.ji_gid == spec->js_gid)
		return bx_fail(err, "the jail's ids (%u:%u) must be neither "
		    "root's nor the caller's; " BX_RUNBOOK_JAIL,
		    (unsigned)spec->js_id.ji_uid, (unsigned)spec->js_id.ji_gid);
	if (spec->js_uid != 0 && (spec->js_newuidmap == NULL ||
	    spec->js_newgidmap == NULL))
		return bx_fail(err, "newuidmap and newgidmap are needed to "
		    "jail loopd without root: sudo apt-get install uidmap; "
		    BX_RUNBOOK_JAIL);
	return 0;
}

/* As root: the maps are written straight to the child's files. */
static int
write_map(pid_t pid, const char *file, unsigned own, unsigned jail,
    struct bx_error *err)
{
	char path[64], map[64];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, file);
	n = snprintf(map, sizeof(map), "%u %u 1\n%u %u 1\n", own, own, jail,
	    jail);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return bx_fail(err, "%s: %s", path, strerror(errno));
	if (bx_write_all(fd, map, (size_t)n) == -1) {
		bx_fail(err, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Without root: newuidmap or newgidmap, its complaint kept for err. */
static int
run_map_tool(const char *tool, pid_t pid, unsigned own, unsigned jail,
    struct bx_error *err)
{
	char spid[16], sown[16], sjail[16], said[256];
	char *argv[] = { (char *)tool, spid, sown, sown, "1", sjail, sjail,
	    "1", NULL };
	char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	posix_spawn_file_actions_t fa;
	int out[2], status, rc;
	pid_t child;
	ssize_t n;

	snprintf(spid, sizeof(spid), "%ld", (long)pid);
	snprintf(sown, sizeof(sown), "%u", own);
	snprintf(sjail, sizeof(sjail), "%u", jail);
	if (pipe2(out, O_CLOEXEC) == -1)
		return bx_fail(err, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 2);
	rc = posix_spawn(&child, tool, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	if (rc != 0) {
		close(out[0]);
		return bx_fail(err, "cannot run %s: %s", tool, strerror(rc));
	}
	do
		n = read(out[0], said, sizeof(said) - 1);
	while (n == -1 && errno == EINTR);
	said[n > 0 ? n : 0] = '\0';
	said[strcspn(said, "\n")] = '\0';
	close(out[0]);
	while (waitpid(child, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return bx_fail(err, "%s %s %s 1 %s %s 1 failed%s%s (the range "
		    "must be yours in /etc/subuid and /etc/subgid); "
		    BX_RUNBOOK_JAIL, tool, sown, sown, sjail, sjail,
		    said[0] != '\0' ? ": " : "", said);
	return 0;
}

static int
write_maps(const struct jail_spec *spec, pid_t pid, struct bx_error *err)
{
	if (spec->js_uid == 0) {
		if (write_map(pid, "uid_map", spec->js_uid,
		    spec->js_id.ji_uid, err) == -1)
			return -1;
		return write_map(pid, "gid_map", spec->js_gid,
		    spec->js_id.ji_gid, err);
	}
	if (run_map_tool(spec->js_newuidmap, pid, spec->js_uid,
	    spec->js_id.ji_uid, err) == -1)
		return -1;
	return run_map_tool(spec->js_newgidmap, pid, spec->js_gid,
	    spec->js_id.ji_gid, err);
}

/* The child's report, to its end; returns whether it said anything. */
static bool
read_report(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf + len, size - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0 || (len += (size_t)n) == size - 1)
			break;
	}
	buf[len] = '\0';
	return len > 0;
}

static void
reap(pid_t pid, bool kill_it)
{
	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
}

static int
start(const struct jail_spec *spec, struct jail_child *jc, struct pipes *p,
    pid_t *ret_pid, struct bx_error *err)
{
	char why[JAIL_WHY_MAX];
	pid_t pid;

	pid = (pid_t)syscall(SYS_clone, NAMESPACES | SIGCHLD, NULL, NULL,
	    NULL, 0);
	if (pid == -1)
		return bx_fail(err, "cannot make the jail's namespaces: %s%s; "
		    BX_RUNBOOK_JAIL, strerror(errno), errno == EPERM ||
		    errno == ENOSPC ? " (user namespaces may be off: "
		    FIX_USERNS ")" : "");
	if (pid == 0) {
		close(p->go[1]);
		close(p->report[0]);
		jail_child_main(jc);
	}
	close_fd(&p->go[0]);
	close_fd(&p->report[1]);
	if (write_maps(spec, pid, err) == -1) {
		reap(pid, true);
		return -1;
	}
	if (bx_write_all(p->go[1], "g", 1) == -1) {
		reap(pid, true);
		return bx_fail(err, "the jail's child is gone: %s",
		    strerror(errno));
	}
	close_fd(&p->go[1]);
	if (read_report(p->report[0], why, sizeof(why))) {
		reap(pid, true);
		return bx_fail(err, "the jail could not be built: %s; "
		    BX_RUNBOOK_JAIL, why);
	}
	*ret_pid = pid;
	return 0;
}

int
jail_spawn(const struct jail_spec *spec, int exec_fd, char *const argv[],
    char *const envp[], pid_t *ret_pid, struct bx_error *err)
{
	struct pipes p = { { -1, -1 }, { -1, -1 } };
	struct jail_child jc;
	void *bpf = NULL;
	size_t len;
	int rc = -1;

	if (check_spec(spec, err) == -1 ||
	    seccomp_program(&bpf, &len, err) == -1)
		return -1;
	if (pipe2(p.go, O_CLOEXEC) == -1 || pipe2(p.report, O_CLOEXEC) == -1) {
		bx_fail(err, "pipe: %s", strerror(errno));
		goto out;
	}
	memset(&jc, 0, sizeof(jc));
	jc.jc_spec = spec;
	jc.jc_exec_fd = exec_fd;
	jc.jc_argv = argv;
	jc.jc_envp = envp;
	jc.jc_go = p.go[0];
	jc.jc_report = p.report[1];
	jc.jc_filter.len = (unsigned short)(len / sizeof(struct sock_filter));
	jc.jc_filter.filter = bpf;
	rc = start(spec, &jc, &p, ret_pid, err);
out:
	close_pipes(&p);
	free(bpf);
	return rc;
}
