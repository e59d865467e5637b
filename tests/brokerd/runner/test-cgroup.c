/*
 * test-cgroup.c: per-call cgroups (src/brokerd/runner/cgroup.h) on this machine's
 * real cgroup tree. It needs root and the memory and pids controllers; on a
 * machine without them it fails, never skips, since the sandbox limits
 * rest on them. Every cgroup it makes sits under boxmaker-<id> for ids
 * drawn at random per run, and the group teardown removes those trees
 * whether the tests passed or not.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "brokerd/runner/cgroup.h"

#define MiB	(1024 * 1024)

static char	home_id[17];	/* this run's home */
static char	sweep_id[17];	/* the sweep's, clean of the others' leftovers */
static char	other_id[17];	/* another home, which the sweep leaves alone */

static void
random_id(char id[17])
{
	unsigned char b[8];
	int fd, i;

	assert_true((fd = open("/dev/urandom", O_RDONLY)) != -1);
	assert_int_equal(read(fd, b, sizeof(b)), sizeof(b));
	close(fd);
	for (i = 0; i < 8; i++)
		snprintf(id + 2 * i, 3, "%02x", b[i]);
}

/* Whether <root>/<hier>/boxmaker-<id><rel> exists in any hierarchy. */
static bool
exists_anywhere(const char *id, const char *rel)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	bool found = false;
	DIR *d;

	assert_non_null(d = opendir(CGROUP_ROOT));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/boxmaker-%s%s",
		    CGROUP_ROOT, de->d_name, id, rel);
		found |= stat(path, &st) == 0;
	}
	closedir(d);
	return found;
}

/* rmdir -r for an empty cgroup tree; the sweep has killed what was in it. */
static void
remove_tree(char *path)
{
	struct dirent *de;
	size_t len = strlen(path);
	DIR *d;

	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path + len, PATH_MAX - len, "/%s", de->d_name);
		remove_tree(path);
		path[len] = '\0';
	}
	closedir(d);
	(void)rmdir(path);
}

static void
remove_home(const char *id)
{
	struct cgroup_host *h;
	struct bx_error err;
	char path[PATH_MAX];
	struct dirent *de;
	size_t n;
	DIR *d;

	if (cgroup_host_open(CGROUP_ROOT, id, &h, &err) == 0) {
		(void)cgroup_sweep(h, &n, &err);
		cgroup_host_free(h);
	}
	if ((d = opendir(CGROUP_ROOT)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s/boxmaker-%s", CGROUP_ROOT,
		    de->d_name, id);
		if (de->d_name[0] != '.')
			remove_tree(path);
	}
	closedir(d);
}

static int
group_setup(void **state)
{
	(void)state;
	random_id(home_id);
	random_id(sweep_id);
	random_id(other_id);
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	remove_home(home_id);
	remove_home(sweep_id);
	remove_home(other_id);
	if (exists_anywhere(home_id, "") || exists_anywhere(sweep_id, "") ||
	    exists_anywhere(other_id, ""))
		fail_msg("a test cgroup was left behind");
	return 0;
}

static struct cgroup_host *
host(const char *id)
{
	struct cgroup_host *h = NULL;
	struct bx_error err;

	if (cgroup_host_open(CGROUP_ROOT, id, &h, &err) == -1)
		fail_msg("cgroup_host_open: %s", err.msg);
	return h;
}

static struct cgroup_call *
call(struct cgroup_host *h, uint64_t seq, int64_t memory, int64_t pids)
{
	struct cgroup_call *c = NULL;
	struct bx_error err;

	if (cgroup_call_new(h, seq, memory, pids, &c, &err) == -1)
		fail_msg("cgroup_call_new: %s", err.msg);
	return c;
}

static void
removed(struct cgroup_call *c)
{
	struct bx_error err;

	if (cgroup_call_remove(c, &err) == -1)
		fail_msg("cgroup_call_remove: %s", err.msg);
}

/* What the runner's child does between fork and exec: only write(2). */
static void
join(const struct cgroup_call *c)
{
	const int *fds;
	size_t i, n;

	n = cgroup_call_join_fds(c, &fds);
	for (i = 0; i < n; i++)
		if (write(fds[i], "0", 1) != 1)
			_exit(100);
}

/* Touches mib MiB in 1 MiB steps; returns if it got them all. */
static void
allocate(int mib)
{
	char *p;
	int i;

	for (i = 0; i < mib; i++) {
		if ((p = malloc(MiB)) == NULL)
			_exit(101);
		memset(p, i, MiB);
	}
}

static int
wait_status(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void
test_oom_kill_is_seen(void **state)
{
	struct cgroup_host *h = host(home_id);
	struct cgroup_call *c = call(h, 1, 32 * MiB, 64);
	int status;
	pid_t pid;

	(void)state;
	assert_false(cgroup_call_oomed(c));
	if ((pid = fork()) == 0) {
		join(c);
		allocate(256);
		_exit(0);
	}
	status = wait_status(pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_true(cgroup_call_oomed(c));
	assert_true(cgroup_call_oomed(c));	/* it stays said */
	removed(c);
	cgroup_host_free(h);
}

static void
test_no_oom_is_not_seen(void **state)
{
	struct cgroup_host *h = host(home_id);
	struct cgroup_call *c = call(h, 2, 64 * MiB, 64);
	int status;
	pid_t pid;

	(void)state;
	if ((pid = fork()) == 0) {
		join(c);
		allocate(8);
		_exit(0);
	}
	status = wait_status(pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(cgroup_call_oomed(c));
	assert_false(cgroup_call_pids_hit(c));
	removed(c);
	cgroup_host_free(h);
}

/*
 * podman's case: the victim in <call>/libpod-<id> with no limit of its own,
 * the limit only on the call. Its oom_kill count goes to the child.
 */
static void
test_oom_kill_in_child_cgroup_is_seen(void **state)
{
	struct cgroup_host *h = host(home_id);
	struct cgroup_call *c = call(h, 3, 32 * MiB, 64);
	char path[PATH_MAX];
	int status, fd;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "%s/memory/boxmaker-%s/call-3/libpod-test",
	    CGROUP_ROOT, home_id);
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/cgroup.procs");
	assert_true((fd = open(path, O_WRONLY | O_CLOEXEC)) != -1);
	if ((pid = fork()) == 0) {
		if (write(fd, "0", 1) != 1)
			_exit(100);
		allocate(256);
		_exit(0);
	}
	close(fd);
	status = wait_status(pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_true(cgroup_call_oomed(c));
	removed(c);
	assert_false(exists_anywhere(home_id, "/call-3"));
	cgroup_host_free(h);
}

/* Forks children that wait, until a fork fails; exits with how many. */
static void
fork_until_refused(void)
{
	pid_t kids[64];
	int n, i;

	for (n = 0; n < 64 && (kids[n] = fork()) != -1; n++)
		if (kids[n] == 0) {
			pause();
			_exit(0);
		}
	for (i = 0; i < n; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	_exit(n);
}

static void
test_pids_limit_holds(void **state)
{
	struct cgroup_host *h = host(home_id);
	struct cgroup_call *c = call(h, 4, 64 * MiB, 16);
	int status, got;
	pid_t pid;

	(void)state;
	if ((pid = fork()) == 0) {
		join(c);
		fork_until_refused();
	}
	status = wait_status(pid);
	assert_true(WIFEXITED(status));
	got = WEXITSTATUS(status);
	/* The forking child itself is one of the 16. */
	if (got <= 0 || got >= 16)
		fail_msg("%d children under a pids limit of 16", got);
	assert_true(cgroup_call_pids_hit(c));	/* and it is said */
	removed(c);
	cgroup_host_free(h);
}

/*
 * podman's case on a kernel that counts a refused fork only in the forking
 * process's cgroup (v1; v2 before 6.12): a libpod-<id> child with its own
 * pids limit, made after the watch began, removed before anyone asks.
 * Only the watch saw the counter: the call's own never moved, and its
 * peak stayed under its limit. (cgroup_call_pids_hit alone, without the
 * watch, says no here.)
 */
static void
test_refused_fork_in_a_removed_child_is_seen(void **state)
{
	struct cgroup_host *h = host(home_id);
	struct cgroup_call *c = call(h, 7, 64 * MiB, 64);
	char dir[PATH_MAX], file[PATH_MAX + 32];
	int status, fd;
	pid_t pid;

	(void)state;
	assert_true(cgroup_call_pids_watch(c) != -1);
	snprintf(dir, sizeof(dir), "%s/pids/boxmaker-%s/call-7/libpod-test",
	    CGROUP_ROOT, home_id);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(file, sizeof(file), "%s/pids.max", dir);
	assert_true((fd = open(file, O_WRONLY | O_CLOEXEC)) != -1);
	assert_int_equal(write(fd, "8", 1), 1);
	close(fd);
	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	assert_true((fd = open(file, O_WRONLY | O_CLOEXEC)) != -1);
	if ((pid = fork()) == 0) {
		if (write(fd, "0", 1) != 1)
			_exit(100);
		fork_until_refused();
	}
	close(fd);
	status = wait_status(pid);
	assert_true(WIFEXITED(status));
	assert_true(WEXITSTATUS(status) > 0 && WEXITSTATUS(status) < 8);
	/*
	 * The runner's poll wakes for the new cgroup late, after the refused
	 * fork: its counter is read then, before podman removes it.
	 */
	cgroup_call_pids_watch_read(c);
	assert_int_equal(rmdir(dir), 0);
	cgroup_call_pids_watch_read(c);
	assert_true(cgroup_call_pids_hit(c));
	removed(c);
	cgroup_host_free(h);
}

/*
 * A child that joined forks a grandchild, reports its pid and sleeps. The
 * test is a subreaper, as brokerd is, so it can reap the grandchild too.
 */
static pid_t
sleepers(const struct cgroup_call *c, pid_t *ret_grandchild)
{
	pid_t pid, g;
	int p[2];

	assert_int_equal(pipe(p), 0);
	if ((pid = fork()) == 0) {
		join(c);
		if ((g = fork()) == 0) {
			pause();
			_exit(0);
		}
		if (write(p[1], &g, sizeof(g)) != sizeof(g))
			_exit(102);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], ret_grandchild, sizeof(pid_t)),
	    sizeof(pid_t));
	close(p[0]);
	return pid;
}

static void
test_kill_ends_the_grandchild_too(void **state)
{
	struct cgroup_host *h = host(home_id);
	struct cgroup_call *c = call(h, 5, 64 * MiB, 64);
	struct bx_error err;
	pid_t pid, g;
	int status;

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	pid = sleepers(c, &g);
	if (cgroup_call_kill(c, &err) == -1)
		fail_msg("cgroup_call_kill: %s", err.msg);
	status = wait_status(pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	status = wait_status(g);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(kill(g, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	removed(c);
	cgroup_host_free(h);
}

static void
make_cgroup(const char *id, const char *hier, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/boxmaker-%s%s", CGROUP_ROOT, hier,
	    id, rel);
	if (mkdir(path, 0755) == -1 && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

/* podman makes <call>/libpod-<id> in every hierarchy, and the parents. */
static void
test_remove_takes_runtime_subgroups(void **state)
{
	struct cgroup_host *h = host(home_id);
	struct cgroup_call *c = call(h, 6, 64 * MiB, 64);
	char path[PATH_MAX];
	pid_t pid;
	int fd;

	(void)state;
	make_cgroup(home_id, "cpu", "");
	make_cgroup(home_id, "cpu", "/call-6");
	make_cgroup(home_id, "cpu", "/call-6/libpod-x");
	make_cgroup(home_id, "memory", "/call-6/libpod-x");
	make_cgroup(home_id, "memory", "/call-6/libpod-x/deeper");
	snprintf(path, sizeof(path), "%s/memory/boxmaker-%s/call-6/libpod-x/"
	    "cgroup.procs", CGROUP_ROOT, home_id);
	assert_true((fd = open(path, O_WRONLY | O_CLOEXEC)) != -1);
	if ((pid = fork()) == 0) {
		if (write(fd, "0", 1) != 1)
			_exit(100);
		pause();
		_exit(0);
	}
	close(fd);
	assert_true(exists_anywhere(home_id, "/call-6/libpod-x"));
	removed(c);
	assert_false(exists_anywhere(home_id, "/call-6"));
	assert_true(exists_anywhere(home_id, ""));
	assert_int_equal(kill(pid, 0), 0);	/* a zombie until reaped */
	wait_status(pid);
	cgroup_host_free(h);
}

/* Whether pid has exited: no longer there, or a zombie for init to reap. */
static bool
gone(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *fp;
	bool z;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return true;
	z = fgets(buf, sizeof(buf), fp) != NULL &&
	    (p = strrchr(buf, ')')) != NULL && (p[2] == 'Z' || p[2] == 'X');
	fclose(fp);
	return z;
}

/* A leftover call with a process the sweep must kill, not its parent's. */
static void
test_sweep_removes_leftovers_only(void **state)
{
	struct cgroup_host *old = host(sweep_id), *o = host(other_id), *h;
	struct cgroup_call *c = call(old, 7, 64 * MiB, 64);
	struct cgroup_call *keep = call(o, 7, 64 * MiB, 64);
	struct bx_error err;
	size_t n = 0;
	pid_t pid, g;

	(void)state;
	make_cgroup(sweep_id, "memory", "/not-a-call");
	make_cgroup(sweep_id, "pids", "/call-8");
	pid = sleepers(c, &g);
	/* The child goes; its orphan stays in the cgroup, as after a crash. */
	kill(pid, SIGKILL);
	wait_status(pid);
	assert_int_equal(kill(g, 0), 0);
	/* A new brokerd on the same home; the old one's call outlives it. */
	h = host(sweep_id);
	if (cgroup_sweep(h, &n, &err) == -1)
		fail_msg("cgroup_sweep: %s", err.msg);
	assert_int_equal(n, 2);
	assert_false(exists_anywhere(sweep_id, "/call-7"));
	assert_false(exists_anywhere(sweep_id, "/call-8"));
	assert_true(exists_anywhere(sweep_id, "/not-a-call"));
	assert_true(exists_anywhere(sweep_id, ""));
	assert_true(exists_anywhere(other_id, "/call-7"));
	assert_true(gone(g));
	removed(keep);
	removed(c);	/* its cgroups are gone: this closes and frees */
	cgroup_host_free(old);
	cgroup_host_free(h);
	cgroup_host_free(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oom_kill_is_seen),
		cmocka_unit_test(test_no_oom_is_not_seen),
		cmocka_unit_test(test_oom_kill_in_child_cgroup_is_seen),
		cmocka_unit_test(test_pids_limit_holds),
		cmocka_unit_test(test_refused_fork_in_a_removed_child_is_seen),
		cmocka_unit_test(test_kill_ends_the_grandchild_too),
		cmocka_unit_test(test_remove_takes_runtime_subgroups),
		cmocka_unit_test(test_sweep_removes_leftovers_only),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
