/*
 * test-jail.c: the jail suite (roles.md section 8). It builds the jail
 * loopd's launcher builds (loopd/jail_plan.h) for a loopd.toml of a home
 * it makes, with an admin.sock, grants, audit and broker state beside it,
 * a file of the owner's outside the home, a session log from before the
 * jail and a TCP listener on loopback, then runs jail-attacker.c in it.
 * Each door of section 1 must fail with
 * the errno named here, the doors loopd needs must open, and the program
 * must run with the jail's ids, no capability, no_new_privs, the filter,
 * and namespaces that are not the caller's. It needs what loopd needs:
 * as root the user boxmaker-loop, otherwise a subordinate id range and
 * newuidmap; without them it fails, saying so.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "jail/jail.h"
#include "loopd/config.h"
#include "loopd/jail_plan.h"
#include "proto/acl.h"
#include "proto/unixsock.h"

#define OUTPUT_MAX	(64 * 1024)
#define READ_TIMEOUT_MS	60000

struct rig {
	char			 dir[PATH_MAX];
	char			 home[PATH_MAX];
	char			 config[PATH_MAX];
	char			 planted[PATH_MAX];
	struct loop_config	*cfg;
	struct jail_plan	 plan;
	int			 listeners[4];
	int			 port;
	char			 out[OUTPUT_MAX];
	pid_t			 pid;
};

static void
pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
pathf(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
}

static void
put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
}

static void
mkdirs(struct rig *r, const char *rel)
{
	char path[PATH_MAX], *p;

	pathf(path, "%s/%s", r->dir, rel);
	for (p = path + strlen(r->dir) + 1; (p = strchr(p, '/')) != NULL;
	    p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	mkdir(path, 0700);
}

/* A socket someone listens on, its modes opened so only the jail stops it. */
static int
listen_at(struct rig *r, const char *rel)
{
	struct bx_unix_file made;
	struct bx_error err;
	char path[PATH_MAX];
	int fd;

	pathf(path, "%s/%s", r->home, rel);
	if (bx_unix_listen(path, 4, 0, &fd, &made, &err) == -1)
		fail_msg("%s", err.msg);
	chmod(path, 0777);
	return fd;
}

static int
listen_tcp(int *ret_port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*ret_port = ntohs(sin.sin_port);
	return fd;
}

static void
make_home(struct rig *r)
{
	static const char *const dirs[] = { "home/grants", "home/audit",
	    "home/broker/sessions", "home/run/owner-broker", "home/memory",
	    "home/sessions", "config", "owner/.ssh" };
	char path[PATH_MAX], text[4096];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		mkdirs(r, dirs[i]);
	pathf(r->home, "%s/home", r->dir);
	pathf(r->config, "%s/config/loopd.toml", r->dir);
	pathf(r->planted, "%s/owner/.ssh/id_ed25519", r->dir);
	put(r->planted, "the owner's key\n", 0600);
	pathf(path, "%s/config/brokerd.toml", r->dir);
	put(path, "# brokerd\n", 0600);
	pathf(path, "%s/grants/a.toml", r->home);
	put(path, "# a grant\n", 0600);
	pathf(path, "%s/memory/core.md", r->home);
	put(path, "core memory\n", 0600);
	/* A log from before the jail: the owner's, 0600. */
	pathf(path, "%s/sessions/old.jsonl", r->home);
	put(path, "{}\n", 0600);
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\n[broker]\nsocket = "
	    "\"%s/run/loop-broker/broker.sock\"\n", r->home, r->home);
	put(r->config, text, 0600);
}

static int
setup(void **state)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct bx_error err;
	char path[PATH_MAX];

	pathf(r->dir, "%s/bx-jail-XXXXXX", getenv("TMPDIR") != NULL ?
	    getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(r->dir));
	chmod(r->dir, 0755);
	make_home(r);
	if (loop_config_load(r->config, &r->cfg, &err) == -1 ||
	    jail_plan_make(r->cfg, r->config, &r->plan, &err) == -1 ||
	    jail_plan_grant(&r->plan, &err) == -1)
		fail_msg("the jail cannot be planned here: %s", err.msg);
	pathf(path, "%s/sessions/owner-secret", r->home);
	put(path, "the owner's\n", 0600);
	r->listeners[0] = listen_at(r, "run/owner-broker/admin.sock");
	r->listeners[1] = listen_at(r, "run/loop-broker/broker.sock");
	r->listeners[2] = listen_at(r, JAIL_PLAN_RELAY);
	r->listeners[3] = listen_tcp(&r->port);
	*state = r;
	return 0;
}

static int
teardown(void **state)
{
	struct rig *r = *state;
	char cmd[PATH_MAX + 16];
	size_t i;

	for (i = 0; i < 4; i++)
		close(r->listeners[i]);
	loop_config_free(r->cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", r->dir);
	if (system(cmd) != 0)
		return -1;
	free(r);
	return 0;
}

/* Reads the attacker's report until its "end" line. */
static void
read_until_end(struct rig *r, int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	size_t len = 0;
	ssize_t n;

	while (strstr(r->out, "\nend\n") == NULL) {
		if (poll(&pfd, 1, READ_TIMEOUT_MS) != 1)
			fail_msg("the attacker said nothing for %d ms; so far:"
			    "\n%s", READ_TIMEOUT_MS, r->out);
		n = read(fd, r->out + len, sizeof(r->out) - 1 - len);
		if (n <= 0)
			fail_msg("the attacker ended before \"end\":\n%s",
			    r->out);
		len += (size_t)n;
		r->out[len] = '\0';
	}
}

static void
run_attacker(struct rig *r)
{
	char prog[PATH_MAX], uid[16], pid[16], port[16];
	char *argv[] = { "jail-attacker", r->home, r->config, uid, pid, port,
	    r->planted, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	struct bx_error err;
	int out[2], exe;

	pathf(prog, "%s/tests/jail/jail-attacker", getenv("BX_BUILD_ROOT"));
	assert_true((exe = open(prog, O_RDONLY | O_CLOEXEC)) >= 0);
	snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	snprintf(port, sizeof(port), "%d", r->port);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	r->plan.jp_spec.js_pass_fd = out[1];
	if (jail_spawn(&r->plan.jp_spec, exe, argv, envp, &r->pid, &err) ==
	    -1)
		fail_msg("jail_spawn: %s", err.msg);
	close(out[1]);
	close(exe);
	read_until_end(r, out[0]);
	close(out[0]);
}

/* The line "key value" of the report, or fails. */
static const char *
said(const struct rig *r, const char *key)
{
	static char value[256];
	char pattern[128];
	const char *at;

	snprintf(pattern, sizeof(pattern), "\n%s ", key);
	if (strncmp(r->out, pattern + 1, strlen(pattern + 1)) == 0)
		at = r->out + strlen(pattern + 1);
	else if ((at = strstr(r->out, pattern)) != NULL)
		at += strlen(pattern);
	else
		fail_msg("the attacker did not report %s:\n%s", key, r->out);
	snprintf(value, sizeof(value), "%.*s", (int)strcspn(at, "\n"), at);
	return value;
}

static void
expect(const struct rig *r, const char *door, const char *result)
{
	const char *got = said(r, door);

	if (strcmp(got, result) != 0)
		fail_msg("door %s: %s, where %s was expected; the attacker "
		    "said:\n%s", door, got, result, r->out);
}

static void
kill_attacker(struct rig *r)
{
	kill(r->pid, SIGKILL);
	while (waitpid(r->pid, NULL, 0) == -1 && errno == EINTR)
		;
}

/* Every door of roles.md section 1 that must stay shut, and how. */
static void
test_doors_shut(void **state)
{
	static const char *const shut[][2] = {
		{ "grants", "ENOENT" }, { "audit", "ENOENT" },
		{ "broker-state", "ENOENT" }, { "admin-dir", "ENOENT" },
		{ "config-dir", "ENOENT" }, { "planted", "ENOENT" },
		{ "planted-in-sessions", "EACCES" },
		{ "write-config", "EACCES" }, { "write-core", "EACCES" },
		{ "root-write", "EROFS" }, { "etc-passwd", "ENOENT" },
		{ "sys", "ENOENT" }, { "home-dir", "ENOENT" },
		{ "admin-sock", "ENOENT" }, { "admin-sock-proc-root", "ENOENT" },
		{ "admin-sock-dotdot", "ENOENT" }, { "user-bus", "ENOENT" },
		{ "systemd-private", "ENOENT" }, { "system-private", "ENOENT" },
		{ "podman-user", "ENOENT" }, { "podman-root", "ENOENT" },
		{ "ssh-agent", "ENOENT" }, { "gpg-agent", "ENOENT" },
		{ "tcp-loopback", "ENETUNREACH" },
		{ "udp-loopback", "ENETUNREACH" },
		{ "signal-outside", "ESRCH" }, { "proc-outside", "ENOENT" },
		{ "new-userns", "EPERM" }, { "new-netns", "EPERM" },
		{ "ptrace", "EPERM" }, { "mount", "EPERM" },
		{ "setuid-owner", "EPERM" }, { "bpf", "EPERM" },
		{ "io-uring", "EPERM" }, { "keyctl", "EPERM" },
		{ "perf", "EPERM" }, { "userfaultfd", "EPERM" },
	};
	struct rig *r = *state;
	size_t i;

	run_attacker(r);
	/* The attacker's whole report, as evidence of each door tried. */
	print_message("%s", r->out);
	for (i = 0; i < sizeof(shut) / sizeof(shut[0]); i++)
		expect(r, shut[i][0], shut[i][1]);
	kill_attacker(r);
}

/* The doors loopd needs, and nothing more that answers. */
static void
test_doors_open(void **state)
{
	struct rig *r = *state;
	char path[PATH_MAX];

	run_attacker(r);
	expect(r, "broker-sock", "ok");
	expect(r, "relay-sock", "ok");
	expect(r, "read-core", "ok");
	expect(r, "write-sessions", "ok");
	expect(r, "append-old-log", "ok");
	expect(r, "tmp-write", "ok");
	/*
	 * Walking the tree finds no socket that answers: the two it may use
	 * sit in directories it may pass through but not list.
	 */
	if (strstr(r->out, "walk-connects ") != NULL)
		fail_msg("a socket found by walking the jail answers:\n%s",
		    r->out);
	kill_attacker(r);
	/* What the jail wrote stays the owner's to read. */
	pathf(path, "%s/sessions/from-the-jail", r->home);
	assert_true(bx_acl_allows(path, getuid(), BX_ACL_READ | BX_ACL_WRITE));
}

static const char *
status_of(pid_t pid, const char *key, char *buf, size_t size)
{
	char path[64], line[512];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	assert_non_null(fp = fopen(path, "re"));
	buf[0] = '\0';
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, key, strlen(key)) == 0) {
			snprintf(buf, size, "%.*s", (int)strcspn(line +
			    strlen(key), "\n"), line + strlen(key));
			break;
		}
	fclose(fp);
	return buf;
}

/* Its ids, privileges and filter, from inside and from outside. */
static void
test_identity(void **state)
{
	struct rig *r = *state;
	const struct bx_jail_id *id = &r->plan.jp_spec.js_id;
	char want[128], got[256];

	run_attacker(r);
	snprintf(want, sizeof(want), "\t%u\t%u\t%u\t%u", (unsigned)id->ji_uid,
	    (unsigned)id->ji_uid, (unsigned)id->ji_uid, (unsigned)id->ji_uid);
	assert_string_equal(status_of(r->pid, "Uid:", got, sizeof(got)),
	    want);
	snprintf(want, sizeof(want), "\t%u\t%u\t%u\t%u", (unsigned)id->ji_gid,
	    (unsigned)id->ji_gid, (unsigned)id->ji_gid, (unsigned)id->ji_gid);
	assert_string_equal(status_of(r->pid, "Gid:", got, sizeof(got)),
	    want);
	assert_string_equal(status_of(r->pid, "NoNewPrivs:", got,
	    sizeof(got)), "\t1");
	assert_string_equal(status_of(r->pid, "Seccomp:", got, sizeof(got)),
	    "\t2");
	assert_string_equal(status_of(r->pid, "CapEff:", got, sizeof(got)),
	    "\t0000000000000000");
	assert_string_equal(status_of(r->pid, "CapPrm:", got, sizeof(got)),
	    "\t0000000000000000");
	assert_string_equal(status_of(r->pid, "CapBnd:", got, sizeof(got)),
	    "\t0000000000000000");
	assert_string_equal(status_of(r->pid, "Groups:", got, sizeof(got)),
	    "\t ");
	assert_string_equal(said(r, "pid"), "1");
	/* The same from inside, where a /proc of its own shows it. */
	if (strstr(r->out, "\nstatus NoNewPrivs:\t1\n") == NULL ||
	    strstr(r->out, "\nstatus Seccomp:\t2\n") == NULL ||
	    strstr(r->out, "\nstatus CapEff:\t0000000000000000\n") == NULL)
		fail_msg("inside, the jail's status is not as outside:\n%s",
		    r->out);
	kill_attacker(r);
}

/* Every namespace of the jail is its own. */
static void
test_namespaces(void **state)
{
	static const char *const kinds[] = { "user", "mnt", "pid", "net",
	    "ipc", "uts" };
	struct rig *r = *state;
	char mine[64], its[64], path[64], link[128];
	ssize_t n;
	size_t i;

	run_attacker(r);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", kinds[i]);
		assert_true((n = readlink(path, mine, sizeof(mine) - 1)) > 0);
		mine[n] = '\0';
		snprintf(link, sizeof(link), "/proc/%ld/ns/%s", (long)r->pid,
		    kinds[i]);
		assert_true((n = readlink(link, its, sizeof(its) - 1)) > 0);
		its[n] = '\0';
		if (strcmp(mine, its) == 0)
			fail_msg("the jail shares the %s namespace (%s)",
			    kinds[i], its);
	}
	kill_attacker(r);
}

/* Its mounts are the plan's and the system's few, nothing else. */
static void
test_mounts(void **state)
{
	static const char *const system[] = { "/", "/usr", "/etc/ssl",
	    "/etc/ld.so.cache", "/etc/ca-certificates", "/etc/nsswitch.conf",
	    "/etc/localtime", "/dev", "/dev/null", "/dev/zero", "/dev/full",
	    "/dev/random", "/dev/urandom", "/proc", "/tmp" };
	struct rig *r = *state;
	char path[64], line[4096], point[4096];
	size_t i, n = 0;
	bool known;
	FILE *fp;

	run_attacker(r);
	snprintf(path, sizeof(path), "/proc/%ld/mountinfo", (long)r->pid);
	assert_non_null(fp = fopen(path, "re"));
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			fail_msg("mountinfo: %s", line);
		known = false;
		for (i = 0; !known && i < sizeof(system) / sizeof(system[0]);
		    i++)
			known = strcmp(point, system[i]) == 0 ||
			    (strncmp(point, "/usr/", 5) == 0);
		for (i = 0; !known && i < r->plan.jp_spec.js_nbinds; i++)
			known = strcmp(point, r->plan.jp_binds[i].jb_path) == 0;
		if (!known)
			fail_msg("the jail shows a mount at %s", point);
		n++;
	}
	fclose(fp);
	assert_true(n > r->plan.jp_spec.js_nbinds);
	kill_attacker(r);
}

/* A socket's directory the jail would get whole must hold only it. */
static void
test_shared_socket_dir(void **state)
{
	struct rig *r = *state;
	struct loop_config *cfg;
	struct jail_plan plan;
	struct bx_error err;
	char text[4096], path[PATH_MAX];

	mkdirs(r, "userrun");
	pathf(path, "%s/userrun/bus", r->dir);
	put(path, "", 0600);
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\n[broker]\nsocket = "
	    "\"%s/userrun/broker.sock\"\n", r->home, r->dir);
	assert_int_equal(loop_config_parse("t.toml", text, strlen(text), NULL,
	    &cfg, &err), 0);
	assert_int_equal(jail_plan_make(cfg, r->config, &plan, &err), -1);
	if (strstr(err.msg, "holds bus beside broker.sock") == NULL)
		fail_msg("%s", err.msg);
	loop_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_doors_shut, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_doors_open, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_identity, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_namespaces, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mounts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_socket_dir, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
