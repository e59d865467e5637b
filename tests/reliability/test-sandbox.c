/*
 * test-sandbox.c: allowed calls really run, each in a fresh sandbox of the
 * runtime named on the command line (podman or bwrap), through the real
 * brokerd binary: every row of M3b section 1 that is not about egress. A
 * runtime that is missing or does not work fails these tests: brokerd
 * refuses to start, and the test says why with brokerd's own words.
 *
 * Each case runs as the model would: a tool_request under a grant, the
 * answer read back, and the audit log's Result record checked against the
 * bytes the model received. After every case nothing of the call may be
 * left: no per-call directory, no cgroup, no container.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "brokerd/runner_sandbox.h"
#include "harness.h"
#include "proto/sha256.h"

#define TIMEOUT_MS	3000
#define MEMORY_MB	64
#define OUTPUT_BYTES	65536
#define SESSION		"sandbox-1"
/* Short: the home's socket paths must fit sun_path. */
#define TEST_TOP	"/var/lib/bx-sandbox-XXXXXX"

static const char *kind;	/* "podman" or "bwrap" */

struct fixture {
	char		top[PATH_MAX];		/* all of the test's files */
	struct rh_home	home;
	char		data[PATH_MAX];		/* the granted tree */
	char		outside[PATH_MAX];	/* beside it, never granted */
	char		home_id[17];
	int		calls;
	struct rh_answer last;		/* of the last call */
};

static void
put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "w")) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	fputs(text, fp);
	fclose(fp);
}

static void
grant(struct fixture *f, const char *id, const char *tool, const char *paths)
{
	char text[2 * PATH_MAX], name[128];

	snprintf(text, sizeof(text), "tool = \"%s\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n\n[constraints]\n"
	    "paths = [%s]\n", tool, paths);
	snprintf(name, sizeof(name), "%s.toml", id);
	put(f->home.grants, name, text);
}

static void
start(struct fixture *f)
{
	char runner[1024], errs[4096] = "";
	FILE *fp;

	snprintf(runner, sizeof(runner), "kind = \"%s\"\ntimeout_ms = %d\n"
	    "memory_mb = %d\npids = 32\noutput_bytes = %d\nmax_running = 1\n"
	    "bxtool_path = \"%s/src/bxtool/bxtool\"\n", kind, TIMEOUT_MS,
	    MEMORY_MB, OUTPUT_BYTES, getenv("BX_BUILD_ROOT"));
	assert_int_equal(rh_home_config(&f->home, 900000, runner), 0);
	if (rh_start(&f->home, NULL) == 0)
		return;
	if ((fp = fopen(f->home.errs, "r")) != NULL) {
		errs[fread(errs, 1, sizeof(errs) - 1, fp)] = '\0';
		fclose(fp);
	}
	fail_msg("brokerd with the %s runtime did not start (is %s "
	    "installed?): %s", kind, kind, errs);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct bx_error err;
	char sub[PATH_MAX];

	/*
	 * Not under /tmp, which every sandbox has its own of: under a grant
	 * of "/" the home and the data must be where the host's tree shows.
	 */
	if (f == NULL)
		return -1;
	/* The home two levels down: a writable grant of top holds it deep. */
	snprintf(f->top, sizeof(f->top), "%s", TEST_TOP);
	if (mkdtemp(f->top) == NULL)
		return -1;
	snprintf(sub, sizeof(sub), "%s/h", f->top);
	if (mkdir(sub, 0700) == -1 || setenv("TMPDIR", sub, 1) == -1 ||
	    rh_home_make(&f->home, 900000) == -1)
		return -1;
	snprintf(f->data, sizeof(f->data), "%s/data", f->top);
	snprintf(f->outside, sizeof(f->outside), "%s/outside", f->top);
	if (mkdir(f->data, 0755) == -1 || mkdir(f->outside, 0755) == -1 ||
	    runner_home_id(f->home.dir, f->home_id, &err) == -1)
		return -1;
	snprintf(sub, sizeof(sub), "%s/docs", f->data);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/work", f->data);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/.ssh", f->outside);
	mkdir(sub, 0700);
	put(sub, "id_test", "FAKE-SECRET-outside\n");
	put(f->outside, "secret.txt", "FAKE-SECRET-file\n");
	*state = f;
	start(f);
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	rh_home_remove(&f->home);
	rh_remove_tree(f->top);
	/* brokerd was SIGKILLed: its home's empty cgroups, in every hierarchy. */
	if ((d = opendir("/sys/fs/cgroup")) != NULL) {
		while ((e = readdir(d)) != NULL) {
			snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/"
			    "boxmaker-%s", e->d_name, f->home_id);
			(void)rmdir(path);
		}
		closedir(d);
	}
	free(f);
	return 0;
}

/* One call; its final answer, content (malloc'd) in *content. */
static struct rh_answer
call(struct fixture *f, const char *tool, const char *args, char **content)
{
	struct rh_call c;
	struct rh_answer a;
	char id[32];

	snprintf(id, sizeof(id), "c%d", ++f->calls);
	*content = NULL;
	assert_int_equal(rh_call_tool(&c, f->home.broker, SESSION, id, tool,
	    args), 0);
	rh_call_next_full(&c, TIMEOUT_MS + RH_WAIT_MS, &a, content);
	rh_call_close(&c);
	f->last = a;
	if (a.a_got != RH_FINAL)
		fail_msg("call %s %s: no final answer (got %d: %s)", tool, args,
		    a.a_got, a.a_message);
	if (*content == NULL && (*content = strdup(a.a_status ==
	    BX_STATUS_DENIED ? bx_deny_name(a.a_reason) : "")) == NULL)
		fail_msg("out of memory");
	return a;
}

/* A shell command under the grant "shell" (paths set by the case). */
static char *
shell(struct fixture *f, const char *cwd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static char *
shell(struct fixture *f, const char *cwd, const char *fmt, ...)
{
	char cmd[4096], *args, *content;
	json_t *j;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	j = cwd != NULL ? json_pack("{s:s,s:s}", "command", cmd, "cwd", cwd) :
	    json_pack("{s:s}", "command", cmd);
	args = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	(void)call(f, "shell", args, &content);
	free(args);
	return content;
}

/*
 * The Result record of call c<n>: its status, and bytes and sha256 of
 * exactly what the model received.
 */
static void
expect_record(struct fixture *f, int n, bool failed, const char *sent)
{
	const struct bx_audit_record *r;
	struct rh_log log;
	struct bx_hash h;
	char id[32];

	snprintf(id, sizeof(id), "c%d", n);
	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	r = rh_log_find(&log, BX_AUDIT_RESULT, SESSION, id);
	assert_non_null(r);
	assert_int_equal(r->event.result.status, failed ?
	    BX_RESULT_STATUS_FAILED : BX_RESULT_STATUS_RESULT);
	assert_int_equal(r->event.result.bytes, strlen(sent));
	assert_int_equal(bx_sha256(sent, strlen(sent), &h, NULL), 0);
	assert_true(bx_hash_equal(&h, &r->event.result.sha256));
	rh_log_free(&log);
}

/* Nothing of any call is left: directories, cgroups, containers. */
static void
expect_nothing_left(struct fixture *f)
{
	char path[PATH_MAX], cmd[256], out[256] = "";
	struct dirent *e, *h;
	DIR *d, *root;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/broker/runner", f->home.dir);
	assert_non_null(d = opendir(path));
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			fail_msg("left behind: %s/%s", path, e->d_name);
	closedir(d);
	/* podman makes the call's cgroup in every hierarchy, bwrap in two. */
	assert_non_null(root = opendir("/sys/fs/cgroup"));
	while ((h = readdir(root)) != NULL) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/boxmaker-%s",
		    h->d_name, f->home_id);
		if (h->d_name[0] == '.' || (d = opendir(path)) == NULL)
			continue;
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, "call-", 5) == 0)
				fail_msg("left behind: %s/%s", path, e->d_name);
		closedir(d);
	}
	closedir(root);
	if (strcmp(kind, "podman") != 0)
		return;
	snprintf(cmd, sizeof(cmd), "podman ps -a -q --filter "
	    "label=boxmaker.home=%s", f->home_id);
	assert_non_null(fp = popen(cmd, "r"));
	n = fread(out, 1, sizeof(out) - 1, fp);
	pclose(fp);
	if (n > 0)
		fail_msg("containers left behind: %s", out);
}

static char *
read_args(const char *path)
{
	char *args;

	if (asprintf(&args, "{\"path\":\"%s\"}", path) == -1)
		fail_msg("out of memory");
	return args;
}

/* read_file: the file's text, its class, and a Result record of it. */
static void
test_read_file(void **state)
{
	struct fixture *f = *state;
	struct rh_answer a;
	char paths[PATH_MAX], path[PATH_MAX], *args, *content;

	snprintf(paths, sizeof(paths), "\"%s/docs\"", f->data);
	grant(f, "read", "read_file", paths);
	snprintf(path, sizeof(path), "%s/docs", f->data);
	put(path, "a.md", "héllo, sandbox\n");
	snprintf(path, sizeof(path), "%s/docs/a.md", f->data);
	args = read_args(path);
	a = call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_RESULT);
	assert_string_equal(content, "héllo, sandbox\n");
	assert_int_equal(a.a_class, BX_CLASS_PRIVATE);
	assert_false(a.a_truncated);
	expect_record(f, f->calls, false, content);
	free(content);
	free(args);
	/* Not UTF-8: failed, with the file's size. */
	snprintf(path, sizeof(path), "%s/docs", f->data);
	put(path, "bin", "\xff\xfe");
	snprintf(path, sizeof(path), "%s/docs/bin", f->data);
	args = read_args(path);
	a = call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	assert_string_equal(content, "not UTF-8 text (2 bytes)");
	expect_record(f, f->calls, true, content);
	free(content);
	free(args);
	expect_nothing_left(f);
}

/* Links to a fake secret outside the grant read nothing, at any depth. */
static void
test_symlinks_reach_nothing_outside(void **state)
{
	struct fixture *f = *state;
	struct rh_answer a;
	char paths[PATH_MAX], link[PATH_MAX], target[PATH_MAX], *args, *content;

	snprintf(paths, sizeof(paths), "\"%s/docs\"", f->data);
	grant(f, "read", "read_file", paths);
	snprintf(target, sizeof(target), "%s/secret.txt", f->outside);
	snprintf(link, sizeof(link), "%s/docs/abs", f->data);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/docs/up", f->data);
	snprintf(target, sizeof(target), "../../%s", strrchr(f->outside,
	    '/') + 1);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/docs/abs", f->data);
	args = read_args(link);
	a = call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	assert_null(strstr(content, "FAKE-SECRET"));
	assert_non_null(strstr(content, "no such file"));
	free(content);
	free(args);
	/* The link as a parent component. */
	snprintf(link, sizeof(link), "%s/docs/up/secret.txt", f->data);
	args = read_args(link);
	a = call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	assert_null(strstr(content, "FAKE-SECRET"));
	free(content);
	free(args);
	expect_nothing_left(f);
}

/* write_file: parents made, a link at the path replaced, not followed. */
static void
test_write_file(void **state)
{
	struct fixture *f = *state;
	struct rh_answer a;
	struct stat st;
	char paths[PATH_MAX], path[PATH_MAX], target[PATH_MAX], args[3 * PATH_MAX];
	char *content, buf[64] = "";
	FILE *fp;

	snprintf(paths, sizeof(paths), "\"%s/work\"", f->data);
	grant(f, "write", "write_file", paths);
	snprintf(args, sizeof(args), "{\"path\":\"%s/work/new/deep/b.txt\","
	    "\"content\":\"written\\n\"}", f->data);
	a = call(f, "write_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_RESULT);
	snprintf(path, sizeof(path), "%s/work/new/deep/b.txt", f->data);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_size, 8);
	snprintf(target, sizeof(target), "wrote 8 bytes to %s", path);
	assert_string_equal(content, target);
	expect_record(f, f->calls, false, content);
	free(content);
	/* A link to the outside secret at the path: replaced. */
	snprintf(target, sizeof(target), "%s/secret.txt", f->outside);
	snprintf(path, sizeof(path), "%s/work/link", f->data);
	assert_int_equal(symlink(target, path), 0);
	snprintf(args, sizeof(args), "{\"path\":\"%s\",\"content\":\"pwn\"}",
	    path);
	a = call(f, "write_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_RESULT);
	free(content);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_non_null(fp = fopen(target, "r"));
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "FAKE-SECRET-file\n");
	/* Outside the grant: denied before anything runs. */
	snprintf(args, sizeof(args), "{\"path\":\"%s/x\",\"content\":\"x\"}",
	    f->outside);
	a = call(f, "write_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_DENIED);
	free(content);
	expect_nothing_left(f);
}

/* A shell sees only its mounts: nothing outside, read-only system dirs. */
static void
test_shell_sees_only_its_mounts(void **state)
{
	struct fixture *f = *state;
	char paths[PATH_MAX], cwd[PATH_MAX], *out;

	snprintf(paths, sizeof(paths), "\"%s/work\"", f->data);
	snprintf(cwd, sizeof(cwd), "%s/work", f->data);
	grant(f, "shell", "shell", paths);
	out = shell(f, cwd, "echo ok > here && cat here; cat %s/secret.txt "
	    "%s/.ssh/id_test 2>&1; echo x > %s/escape 2>&1; "
	    "touch /usr/x /etc/x /x 2>&1; ls -A /home /root 2>&1; id -u",
	    f->outside, f->outside, f->outside);
	assert_non_null(strstr(out, "ok\n"));
	assert_null(strstr(out, "FAKE-SECRET"));
	assert_non_null(strstr(out, "Read-only file system"));
	assert_int_equal(access(strcat(strcpy(paths, f->outside), "/escape"),
	    F_OK), -1);
	assert_int_equal(access(strcat(strcpy(paths, cwd), "/here"), F_OK), 0);
	expect_record(f, f->calls, false, out);
	free(out);
	/* No /home, no /root: the owner's ~/.ssh is nowhere to be read. */
	out = shell(f, cwd, "ls -A /home /root /root/.ssh 2>&1; cat "
	    "/root/.ssh/* /home/*/.ssh/* 2>&1 | head -c 200; echo end");
	assert_non_null(strstr(out, "cannot access '/home'"));
	assert_non_null(strstr(out, "cannot access '/root'"));
	assert_null(strstr(out, "PRIVATE KEY"));
	free(out);
	/* The exit status line, and U+FFFD for bytes that are not UTF-8. */
	out = shell(f, cwd, "printf 'a\\377b\\000c'; exit 3");
	assert_string_equal(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\n"
	    "exit status 3");
	free(out);
	out = shell(f, cwd, "cd /tmp; pwd; echo $HOME $LANG; env | cut -d= -f1 "
	    "| sort | tr '\\n' ' '; hostname");
	assert_string_equal(out, "/tmp\n/tmp C.UTF-8\nHOME LANG OLDPWD PATH PWD "
	    "boxmaker\n");
	free(out);
	expect_nothing_left(f);
}

/* A grant of "/" finds none of Boxmaker's own files. */
static void
test_grant_of_root_hides_boxmaker(void **state)
{
	struct fixture *f = *state;
	char *out;

	grant(f, "shell", "shell", "\"/\"");
	out = shell(f, "/", "ls -A %s %s/grants 2>&1; cat %s %s 2>&1 | "
	    "head -c 300; test -S %s && echo ADMIN; test -S %s && echo BROKER; "
	    "ls %s/audit 2>&1; echo done", f->home.dir, f->home.dir,
	    f->home.config, f->home.admin, f->home.admin, f->home.broker,
	    f->home.dir);
	assert_null(strstr(out, "ADMIN"));
	assert_null(strstr(out, "BROKER"));
	assert_null(strstr(out, "jsonl"));
	assert_null(strstr(out, "[paths]"));
	if (strstr(out, "done") == NULL)
		fail_msg("the shell did not run to its end: %s", out);
	free(out);
	/* The host's other files are there, at their paths. */
	out = shell(f, "/", "ls %s", f->data);
	assert_non_null(strstr(out, "docs"));
	free(out);
	expect_nothing_left(f);
}

/*
 * A grant that reaches the audit log through a symlink shows an empty
 * directory (or, where podman's runc follows the link to mount the cover,
 * cannot start: unavailable); a writable grant holding the home cannot rename the home (or
 * a directory above it) away from its cover and put its own in its place.
 */
static void
test_boxmaker_paths_stay_covered(void **state)
{
	struct fixture *f = *state;
	char link[PATH_MAX], audit[PATH_MAX], paths[3 * PATH_MAX], *out;
	const char *name = strrchr(f->home.dir, '/') + 1;

	snprintf(audit, sizeof(audit), "%s/audit", f->home.dir);
	snprintf(link, sizeof(link), "%s/work/link", f->data);
	assert_int_equal(symlink(audit, link), 0);
	snprintf(paths, sizeof(paths), "\"%s\"", link);
	grant(f, "shell", "shell", paths);
	out = shell(f, link, "ls -A; cat *.jsonl 2>&1 | head -c 100");
	assert_null(strstr(out, "\"seq\""));
	assert_null(strstr(out, ".jsonl\n"));
	free(out);
	snprintf(paths, sizeof(paths), "\"%s\"", f->top);
	grant(f, "shell", "shell", paths);
	out = shell(f, f->top, "mv h/%s moved 2>&1; mv h x 2>&1; "
	    "mkdir -p h/%s/grants && echo 'tool = 1' > h/%s/grants/evil.toml; "
	    "ls -A h/%s", name, name, name, name);
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	/* A listing of the home would have the line "audit". */
	if (strstr(out, "\naudit\n") != NULL || strncmp(out, "audit\n", 6) == 0)
		fail_msg("the home showed: %s", out);
	free(out);
	assert_int_equal(access(f->home.audit, F_OK), 0);
	snprintf(link, sizeof(link), "%s/evil.toml", f->home.grants);
	assert_int_equal(access(link, F_OK), -1);
	/* mv may copy what it cannot rename: the empty cover, no log. */
	snprintf(link, sizeof(link), "%s/moved/audit", f->top);
	assert_int_equal(access(link, F_OK), -1);
	snprintf(link, sizeof(link), "%s/x", f->top);
	assert_int_equal(access(link, F_OK), -1);
	expect_nothing_left(f);
}

static int
listen_tcp(int *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

static int
listen_abstract(const char *name)
{
	struct sockaddr_un sun;
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	assert_int_equal(bind(fd, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name))), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

/* No network: the host's loopback server and abstract socket unreached. */
static void
test_no_network(void **state)
{
	struct fixture *f = *state;
	int tcp, abs, port;
	char name[64], *out;

	grant(f, "shell", "shell", "");
	tcp = listen_tcp(&port);
	snprintf(name, sizeof(name), "bx-sandbox-%d", (int)getpid());
	abs = listen_abstract(name);
	out = shell(f, NULL, "bash -c 'echo x > /dev/tcp/127.0.0.1/%d' 2>&1 "
	    "&& echo TCP; python3 -c 'import socket; s=socket.socket("
	    "socket.AF_UNIX); s.connect(\"\\0%s\"); print(\"ABS\")' 2>&1 | "
	    "tail -n 1; ip -o link 2>/dev/null | wc -l", port, name);
	assert_null(strstr(out, "TCP\n"));
	assert_null(strstr(out, "ABS\n"));
	assert_int_equal(accept(tcp, NULL, NULL), -1);
	assert_int_equal(accept(abs, NULL, NULL), -1);
	close(tcp);
	close(abs);
	free(out);
	expect_nothing_left(f);
}

/* Limits hold: wall time, memory (the sandbox's /tmp too), processes, output. */
static void
test_limits(void **state)
{
	struct fixture *f = *state;
	int64_t t0;
	char *out;

	grant(f, "shell", "shell", "");
	t0 = rh_now_ms();
	out = shell(f, NULL, "echo before; sleep 60");
	assert_true(rh_now_ms() - t0 < 15000);
	assert_string_equal(out, "timed out after 3 s\nbefore\n");
	expect_record(f, f->calls, true, out);
	free(out);
	out = shell(f, NULL, "tail /dev/zero");
	assert_string_equal(out, "out of memory (64 MiB)");
	free(out);
	/* The sandbox's /tmp counts: the memory limit or its size stops it. */
	out = shell(f, NULL, "head -c 200M /dev/zero > /tmp/big && echo wrote");
	if (strstr(out, "out of memory (64 MiB)") == NULL &&
	    strstr(out, "No space left on device") == NULL)
		fail_msg("200 MiB into /tmp: %s", out);
	free(out);
	/* pids = 32: a hundred children cannot all start. */
	out = shell(f, NULL, "python3 -c 'import os, time\n"
	    "n = 0\ntry:\n while n < 100:\n  if os.fork() == 0:\n"
	    "   time.sleep(5)\n   os._exit(0)\n  n += 1\n"
	    "except OSError:\n pass\nprint(n, flush=True)\nos._exit(0)'");
	if (atoi(out) <= 0 || atoi(out) > 32)
		fail_msg("pids = 32 let %s processes run", out);
	free(out);
	t0 = rh_now_ms();
	/* A fork bomb is bounded: its shell dies or the wall time ends it. */
	out = shell(f, NULL, "f() { f | f & }; f; sleep 60");
	assert_true(rh_now_ms() - t0 < 20000);
	if (strstr(out, "timed out after 3 s") == NULL &&
	    strstr(out, "exit status 2") == NULL && !f->last.a_truncated)
		fail_msg("the fork bomb's call answered: %.200s", out);
	free(out);
	out = shell(f, NULL, "yes");
	assert_true(f->last.a_truncated);
	assert_int_equal(strlen(out), OUTPUT_BYTES);
	assert_int_equal(strspn(out, "y\n"), OUTPUT_BYTES);
	expect_record(f, f->calls, false, out);
	free(out);
	expect_nothing_left(f);
}

/* Whether a process whose command line holds mark runs on the host. */
static bool
running(const char *mark)
{
	char path[PATH_MAX], buf[4096];
	struct dirent *e;
	bool found = false;
	ssize_t n, i;
	DIR *d;
	int fd;

	assert_non_null(d = opendir("/proc"));
	while (!found && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		for (i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n > 0 ? n : 0] = '\0';
		found = strstr(buf, mark) != NULL;
	}
	closedir(d);
	return found;
}

/* Waits up to ms for mark to run (true) or to be gone (false). */
static bool
await_running(const char *mark, bool want, int ms)
{
	int64_t until = rh_now_ms() + ms;

	while (running(mark) != want && rh_now_ms() < until)
		rh_sleep_ms(50);
	return running(mark) == want;
}

static void
send_sleep(struct fixture *f, struct rh_call *c, const char *secs)
{
	char args[128], id[32];

	snprintf(id, sizeof(id), "c%d", ++f->calls);
	snprintf(args, sizeof(args), "{\"command\":\"sleep %s\"}", secs);
	assert_int_equal(rh_call_tool(c, f->home.broker, SESSION, id, "shell",
	    args), 0);
}

/* A caller who hangs up ends its sandbox; the Result says so. */
static void
test_caller_hangs_up(void **state)
{
	struct fixture *f = *state;
	struct rh_call c;

	grant(f, "shell", "shell", "");
	send_sleep(f, &c, "41.25");
	assert_true(await_running("sleep 41.25", true, RH_WAIT_MS));
	rh_call_close(&c);
	assert_true(await_running("sleep 41.25", false, RH_WAIT_MS));
	rh_sleep_ms(500);
	expect_record(f, f->calls, true, "the caller went away");
	expect_nothing_left(f);
}

/*
 * brokerd SIGKILLed mid-call: the restart removes what it left; the
 * Decision without its Result stays as the evidence, and the chain
 * verifies.
 */
static void
test_brokerd_killed_mid_call(void **state)
{
	struct fixture *f = *state;
	const struct bx_audit_record *r;
	struct rh_call c;
	struct rh_log log;
	char out[4096], id[32];

	grant(f, "shell", "shell", "");
	send_sleep(f, &c, "42.75");
	assert_true(await_running("sleep 42.75", true, RH_WAIT_MS));
	rh_kill(&f->home, SIGKILL);
	rh_call_close(&c);
	start(f);
	assert_true(await_running("sleep 42.75", false, RH_WAIT_MS));
	expect_nothing_left(f);
	assert_true(rh_errs_contain(&f->home, "runner: removed"));
	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	snprintf(id, sizeof(id), "c%d", f->calls);
	assert_non_null(r = rh_log_find(&log, BX_AUDIT_DECISION, SESSION, id));
	assert_null(rh_log_find(&log, BX_AUDIT_RESULT, SESSION, id));
	rh_log_free(&log);
	assert_int_equal(rh_verify(f->home.dir, out, sizeof(out)), 0);
	/* And the restarted brokerd runs calls. */
	free(shell(f, NULL, "true"));
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
}

/*
 * max_running = 1: three calls of three sessions sent at once run one after
 * another, never two sandboxes at a time (a directory in a shared grant
 * that each call makes and removes shows any overlap), and all three are
 * answered.
 */
static void
test_max_running_holds(void **state)
{
	struct fixture *f = *state;
	struct rh_call c[3];
	struct rh_answer a;
	char paths[PATH_MAX], args[2 * PATH_MAX], session[32], id[32];
	char *content;
	int i;

	snprintf(paths, sizeof(paths), "\"%s/work\"", f->data);
	grant(f, "shell", "shell", paths);
	snprintf(args, sizeof(args), "{\"command\":\"mkdir slot || echo "
	    "OVERLAP; sleep 0.3; rmdir slot\",\"cwd\":\"%s/work\"}", f->data);
	for (i = 0; i < 3; i++) {
		snprintf(session, sizeof(session), "slots-%d", i);
		snprintf(id, sizeof(id), "slot%d", i);
		assert_int_equal(rh_call_tool(&c[i], f->home.broker, session, id,
		    "shell", args), 0);
	}
	for (i = 0; i < 3; i++) {
		content = NULL;
		rh_call_next_full(&c[i], 3 * TIMEOUT_MS + RH_WAIT_MS, &a,
		    &content);
		rh_call_close(&c[i]);
		assert_int_equal(a.a_got, RH_FINAL);
		assert_int_equal(a.a_status, BX_STATUS_RESULT);
		assert_non_null(content);
		assert_null(strstr(content, "OVERLAP"));
		free(content);
	}
	expect_nothing_left(f);
}

/*
 * An owner who is not root, on this cgroup v1 host: neither runtime can
 * hold the memory and pids limits there (rootless podman ignores them, and
 * an unprivileged bwrap cannot make cgroups), so brokerd refuses to start,
 * naming the runbook entry, and runs nothing unbounded.
 */
static void
test_unprivileged_owner_is_refused(void **state)
{
	const char *const as_nobody[] = { "setpriv", "--reuid=65534",
	    "--regid=65534", "--clear-groups", NULL };
	struct fixture *f = *state;
	char cmd[PATH_MAX + 64];
	int status;

	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
		fail_msg("this test is written for a cgroup v1 host");
	rh_kill(&f->home, SIGTERM);
	snprintf(cmd, sizeof(cmd), "chown -R 65534:65534 '%s'", f->top);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(rh_start(&f->home, as_nobody), -1);
	/* rh_start saw it exit, and reaped it. */
	status = f->home.status;
	assert_int_equal(f->home.pid, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_true(rh_errs_contain(&f->home,
	    "see docs/runbook.md#runner-unavailable"));
	assert_true(rh_errs_contain(&f->home, strcmp(kind, "podman") == 0 ?
	    "rootless podman on a cgroup v1 host" :
	    "the memory and pids limits cannot be held"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_symlinks_reach_nothing_outside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_shell_sees_only_its_mounts,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_grant_of_root_hides_boxmaker, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_boxmaker_paths_stay_covered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_network, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caller_hangs_up, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_brokerd_killed_mid_call,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_running_holds, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_unprivileged_owner_is_refused, setup, teardown),
	};

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-sandbox podman|bwrap\n");
		return 2;
	}
	kind = argv[1];
	return cmocka_run_group_tests_name(kind, tests, NULL, NULL);
}
