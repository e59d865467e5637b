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
 * left: no per-call directory, no cgroup, no container. The cases about a
 * call's life are in test-sandbox-calls.c.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
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
#include <jansson.h>

#include "brokerd/runner/runner.h"
#include "harness.h"
#include "proto/sha256.h"
#include "sandbox-calls.h"
#include "sandbox-fixture.h"

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
	struct sb_fixture *f = *state;
	struct rh_answer a;
	char paths[PATH_MAX], path[PATH_MAX], *args, *content;

	snprintf(paths, sizeof(paths), "\"%s/docs\"", f->data);
	sb_grant(f, "read", "read_file", "paths", paths);
	snprintf(path, sizeof(path), "%s/docs", f->data);
	sb_put(path, "a.md", "héllo, sandbox\n");
	snprintf(path, sizeof(path), "%s/docs/a.md", f->data);
	args = read_args(path);
	a = sb_call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_RESULT);
	assert_string_equal(content, "héllo, sandbox\n");
	assert_int_equal(a.a_class, BX_CLASS_PRIVATE);
	assert_false(a.a_truncated);
	sb_expect_record(f, f->calls, false, content);
	free(content);
	free(args);
	/* Not UTF-8: failed, with the file's size. */
	snprintf(path, sizeof(path), "%s/docs", f->data);
	sb_put(path, "bin", "\xff\xfe");
	snprintf(path, sizeof(path), "%s/docs/bin", f->data);
	args = read_args(path);
	a = sb_call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	assert_string_equal(content, "not UTF-8 text (2 bytes)");
	sb_expect_record(f, f->calls, true, content);
	free(content);
	free(args);
	sb_after_case(f);
}

/* Links to a fake secret outside the grant read nothing, at any depth. */
static void
test_symlinks_reach_nothing_outside(void **state)
{
	struct sb_fixture *f = *state;
	struct rh_answer a;
	char paths[PATH_MAX], link[PATH_MAX], target[PATH_MAX], *args, *content;

	snprintf(paths, sizeof(paths), "\"%s/docs\"", f->data);
	sb_grant(f, "read", "read_file", "paths", paths);
	snprintf(target, sizeof(target), "%s/secret.txt", f->outside);
	snprintf(link, sizeof(link), "%s/docs/abs", f->data);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/docs/up", f->data);
	snprintf(target, sizeof(target), "../../%s", strrchr(f->outside,
	    '/') + 1);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/docs/abs", f->data);
	args = read_args(link);
	a = sb_call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	assert_null(strstr(content, "FAKE-SECRET"));
	assert_non_null(strstr(content, "no such file"));
	free(content);
	free(args);
	/* The link as a parent component. */
	snprintf(link, sizeof(link), "%s/docs/up/secret.txt", f->data);
	args = read_args(link);
	a = sb_call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	assert_null(strstr(content, "FAKE-SECRET"));
	free(content);
	free(args);
	sb_after_case(f);
}

/* write_file: parents made, a link at the path replaced, not followed. */
static void
test_write_file(void **state)
{
	struct sb_fixture *f = *state;
	struct rh_answer a;
	struct stat st;
	char paths[PATH_MAX], path[PATH_MAX], target[PATH_MAX], args[3 * PATH_MAX];
	char *content, buf[64] = "";
	FILE *fp;

	snprintf(paths, sizeof(paths), "\"%s/work\"", f->data);
	sb_grant(f, "write", "write_file", "paths", paths);
	snprintf(args, sizeof(args), "{\"path\":\"%s/work/new/deep/b.txt\","
	    "\"content\":\"written\\n\"}", f->data);
	a = sb_call(f, "write_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_RESULT);
	snprintf(path, sizeof(path), "%s/work/new/deep/b.txt", f->data);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_size, 8);
	snprintf(target, sizeof(target), "wrote 8 bytes to %s", path);
	assert_string_equal(content, target);
	sb_expect_record(f, f->calls, false, content);
	free(content);
	/* A link to the outside secret at the path: replaced. */
	snprintf(target, sizeof(target), "%s/secret.txt", f->outside);
	snprintf(path, sizeof(path), "%s/work/link", f->data);
	assert_int_equal(symlink(target, path), 0);
	snprintf(args, sizeof(args), "{\"path\":\"%s\",\"content\":\"pwn\"}",
	    path);
	a = sb_call(f, "write_file", args, &content);
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
	a = sb_call(f, "write_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_DENIED);
	free(content);
	sb_after_case(f);
}

/* A shell sees only its mounts: nothing outside, read-only system dirs. */
static void
test_shell_sees_only_its_mounts(void **state)
{
	struct sb_fixture *f = *state;
	char paths[PATH_MAX], cwd[PATH_MAX], *out;

	snprintf(paths, sizeof(paths), "\"%s/work\"", f->data);
	snprintf(cwd, sizeof(cwd), "%s/work", f->data);
	sb_grant(f, "shell", "shell", "paths", paths);
	out = sb_shell(f, cwd, "echo ok > here && cat here; cat %s/secret.txt "
	    "%s/.ssh/id_test 2>&1; echo x > %s/escape 2>&1; "
	    "touch /usr/x /etc/x /x 2>&1; ls -A /home /root 2>&1; id -u",
	    f->outside, f->outside, f->outside);
	assert_non_null(strstr(out, "ok\n"));
	assert_null(strstr(out, "FAKE-SECRET"));
	assert_non_null(strstr(out, "Read-only file system"));
	assert_int_equal(access(strcat(strcpy(paths, f->outside), "/escape"),
	    F_OK), -1);
	assert_int_equal(access(strcat(strcpy(paths, cwd), "/here"), F_OK), 0);
	sb_expect_record(f, f->calls, false, out);
	free(out);
	/* No /home, no /root: the owner's ~/.ssh is nowhere to be read. */
	out = sb_shell(f, cwd, "ls -A /home /root /root/.ssh 2>&1; cat "
	    "/root/.ssh/* /home/*/.ssh/* 2>&1 | head -c 200; echo end");
	assert_non_null(strstr(out, "cannot access '/home'"));
	assert_non_null(strstr(out, "cannot access '/root'"));
	assert_null(strstr(out, "PRIVATE KEY"));
	free(out);
	/* The exit status line, and U+FFFD for bytes that are not UTF-8. */
	out = sb_shell(f, cwd, "printf 'a\\377b\\000c'; exit 3");
	assert_string_equal(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\n"
	    "exit status 3");
	free(out);
	out = sb_shell(f, cwd, "cd /tmp; pwd; echo $HOME $LANG; env | cut -d= -f1 "
	    "| sort | tr '\\n' ' '; hostname");
	assert_string_equal(out, "/tmp\n/tmp C.UTF-8\nHOME LANG OLDPWD PATH PWD "
	    "boxmaker\n");
	free(out);
	sb_after_case(f);
}

/* Whether pid's command line is "sleep <arg>". */
static bool
runs_sleep(const char *pid, const void *ctx)
{
	const char *arg = ctx;
	char path[64], want[64], got[64];
	size_t n, wlen;
	FILE *fp;

	wlen = (size_t)snprintf(want, sizeof(want), "sleep%c%s", '\0', arg) + 1;
	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	if ((fp = fopen(path, "r")) == NULL)
		return false;
	n = fread(got, 1, sizeof(got), fp);
	fclose(fp);
	return n == wlen && memcmp(got, want, wlen) == 0;
}

/*
 * A call finds nothing another left (issue 27): what the first writes in
 * every place of its sandbox it may write to, the next does not see, and
 * the process it left running is gone from the host before its answer.
 * The first call's output shows its writes happened and its process ran,
 * so what follows means something.
 */
static void
test_nothing_carries_to_the_next_call(void **state)
{
	static const char places[] =
	    "/tmp /var/tmp /run /dev/shm /.boxmaker /etc /usr /";
	struct sb_fixture *f = *state;
	char paths[PATH_MAX], cwd[PATH_MAX], arg[32], *out;

	snprintf(paths, sizeof(paths), "\"%s/work\"", f->data);
	snprintf(cwd, sizeof(cwd), "%s/work", f->data);
	/* A sleep no other process of the host runs: 600 s and our pid. */
	snprintf(arg, sizeof(arg), "600.%ld", (long)getpid());
	sb_grant(f, "shell", "shell", "paths", paths);
	out = sb_shell(f, cwd, "for d in %s; do echo left 2>/dev/null "
	    "> $d/bx-left && echo wrote $d; done; "
	    "sleep %s </dev/null >/dev/null 2>&1 & "
	    "until grep -aq %s /proc/$!/cmdline 2>/dev/null; do :; done; "
	    "echo running", places, arg, arg);
	assert_non_null(strstr(out, "wrote /tmp\n"));
	assert_non_null(strstr(out, "running\n"));
	free(out);
	if (sb_any_process(runs_sleep, arg))
		fail_msg("sleep %s outlived the call that started it", arg);
	out = sb_shell(f, cwd, "for d in %s; do test -e $d/bx-left && "
	    "echo found $d; done; echo checked", places);
	if (strstr(out, "found") != NULL || strstr(out, "checked") == NULL)
		fail_msg("the second call saw what the first left: %s", out);
	free(out);
	sb_after_case(f);
}

/*
 * The sandbox's own root is the same under both runtimes (sandbox_root.c):
 * the skeleton's entries, /bin a link into /usr, the generated /etc
 * naming the tool's user, and all of it read-only.
 */
static void
test_the_root_is_the_skeleton(void **state)
{
	static const char *const want[] = {
		".boxmaker bin dev etc lib lib64 proc run sbin sys tmp usr "
		    "var \nusr/bin\n",
		"\nroot:x:0:0:root:/tmp:/bin/sh\n",
		"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
		    "root:x:0:\n",
		"nogroup:x:65534:\nalternatives group hostname hosts "
		    "nsswitch.conf passwd resolv.conf ssl \n",
		" '/x': Read-only file system\n",
		" '/etc/x': Read-only file system\n",
		" '/etc/passwd': Read-only file system\n",
		" '/bin/x': Read-only file system\n",
		" '/.boxmaker/x': Read-only file system\n",
	};
	struct sb_fixture *f = *state;
	char *out;
	size_t i;

	sb_grant(f, "shell", "shell", "paths", "");
	out = sb_shell(f, NULL, "ls -A / | tr '\\n' ' '; echo; readlink /bin; "
	    "echo; cat /etc/passwd /etc/group; ls -A /etc | tr '\\n' ' '; "
	    "echo; touch /x /etc/x /etc/passwd /bin/x /.boxmaker/x 2>&1 | "
	    "sed 's/.*touch//'");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (strstr(out, want[i]) == NULL)
			fail_msg("the sandbox's root is not the skeleton: no "
			    "\"%s\" in:\n%s", want[i], out);
	if (strncmp(out, want[0], strlen(want[0])) != 0)
		fail_msg("the sandbox's / holds more than the skeleton: %s",
		    out);
	free(out);
	sb_after_case(f);
}

/* A grant of "/" finds none of Boxmaker's own files. */
static void
test_grant_of_root_hides_boxmaker(void **state)
{
	struct sb_fixture *f = *state;
	char host_tmp[] = "/var/tmp/bx-copyup-XXXXXX", *out;

	sb_grant(f, "shell", "shell", "paths", "\"/\"");
	out = sb_shell(f, "/", "ls -A %s %s/grants 2>&1; cat %s %s 2>&1 | "
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
	out = sb_shell(f, "/", "ls %s", f->data);
	assert_non_null(strstr(out, "docs"));
	free(out);
	/* But /var/tmp is the call's own, empty: nothing copied up into it. */
	assert_true(mkdtemp(host_tmp) != NULL);
	out = sb_shell(f, "/", "ls -A /var/tmp; echo end");
	if (strcmp(out, "end\n") != 0)
		fail_msg("the host's /var/tmp showed in the call's: %s", out);
	free(out);
	assert_int_equal(rmdir(host_tmp), 0);
	sb_after_case(f);
}

/*
 * What a grant of "/" and a shell with no paths find of the secrets
 * directory beside brokerd.toml (here the home's) and of a secret file in
 * it: nothing, by read_file or by shell.
 */
static void
expect_secrets_hidden(struct sb_fixture *f, const char *dir)
{
	char path[PATH_MAX], *args, *out, *content;
	struct rh_answer a;

	out = sb_shell(f, "/", "ls -A %s 2>&1; cat %s/github.toml 2>&1; "
	    "echo done", dir, dir);
	if (strstr(out, "SECRET-VALUE") != NULL || strstr(out, "github.toml") ==
	    NULL || strstr(out, "done") == NULL)
		fail_msg("a shell under a grant of / saw %s: %s", dir, out);
	/* The one mention of github.toml is cat's complaint. */
	if (strstr(out, "No such file") == NULL)
		fail_msg("%s/github.toml was there to a grant of /: %s", dir,
		    out);
	free(out);
	snprintf(path, sizeof(path), "%s/github.toml", dir);
	args = read_args(path);
	a = sb_call(f, "read_file", args, &content);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	if (strstr(content, "SECRET-VALUE") != NULL)
		fail_msg("read_file under a grant of / read %s", path);
	free(content);
	free(args);
}

/*
 * The secrets directory is one of Boxmaker's own paths: no grant shows
 * it, "/" included, nor a shell with no paths; and where it is a symbolic
 * link (which brokerd refuses to read secrets through), what it points to
 * is covered all the same, though it lies outside the home.
 */
static void
test_grant_of_root_hides_secrets(void **state)
{
	struct sb_fixture *f = *state;
	char secrets[PATH_MAX], vault[PATH_MAX], *out;

	snprintf(secrets, sizeof(secrets), "%s/secrets", f->home.dir);
	assert_int_equal(mkdir(secrets, 0700), 0);
	sb_put(secrets, "github.toml", "kind = \"bearer\"\nhosts = "
	    "[\"api.github.com\"]\nvalue = \"SECRET-VALUE-0123456789\"\n");
	sb_grant(f, "shell", "shell", "paths", "\"/\"");
	sb_grant(f, "read", "read_file", "paths", "\"/\"");
	expect_secrets_hidden(f, secrets);

	sb_grant(f, "shell", "shell", "paths", "");
	out = sb_shell(f, NULL, "ls -A %s 2>&1; echo done", secrets);
	if (strstr(out, "github") != NULL || strstr(out, "No such file") ==
	    NULL)
		fail_msg("a shell with no paths listed %s: %s", secrets, out);
	free(out);

	/* Moved out of the home, a link left in its place. */
	snprintf(vault, sizeof(vault), "%s/vault", f->top);
	assert_int_equal(rename(secrets, vault), 0);
	assert_int_equal(symlink(vault, secrets), 0);
	sb_restart(f, 1);
	sb_grant(f, "shell", "shell", "paths", "\"/\"");
	expect_secrets_hidden(f, vault);
	/* The probe after each case must find no grant for it. */
	snprintf(vault, sizeof(vault), "%s/read.toml", f->home.grants);
	assert_int_equal(unlink(vault), 0);
	sb_after_case(f);
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
	struct sb_fixture *f = *state;
	char link[PATH_MAX], audit[PATH_MAX], paths[3 * PATH_MAX], *out;
	const char *name = strrchr(f->home.dir, '/') + 1;

	snprintf(audit, sizeof(audit), "%s/audit", f->home.dir);
	snprintf(link, sizeof(link), "%s/work/link", f->data);
	assert_int_equal(symlink(audit, link), 0);
	snprintf(paths, sizeof(paths), "\"%s\"", link);
	sb_grant(f, "shell", "shell", "paths", paths);
	out = sb_shell(f, link, "ls -A; cat *.jsonl 2>&1 | head -c 100");
	assert_null(strstr(out, "\"seq\""));
	assert_null(strstr(out, ".jsonl\n"));
	free(out);
	snprintf(paths, sizeof(paths), "\"%s\"", f->top);
	sb_grant(f, "shell", "shell", "paths", paths);
	out = sb_shell(f, f->top, "mv h/%s moved 2>&1; mv h x 2>&1; "
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
	sb_after_case(f);
}

/* No network: the host's loopback server and abstract socket unreached. */
static void
test_no_network(void **state)
{
	struct sb_fixture *f = *state;
	int tcp, abs, port;
	char name[64], *out;

	sb_grant(f, "shell", "shell", "paths", "");
	tcp = sb_listen_loopback(SOCK_STREAM, &port);
	snprintf(name, sizeof(name), "bx-sandbox-%d", (int)getpid());
	abs = sb_listen_abstract(name);
	out = sb_shell(f, NULL, "bash -c 'echo x > /dev/tcp/127.0.0.1/%d' 2>&1 "
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
	sb_after_case(f);
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
	struct sb_fixture *f = *state;
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
	assert_true(rh_errs_contain(&f->home, strcmp(sb_kind, "podman") == 0 ?
	    "rootless podman on a cgroup v1 host" :
	    "the memory and pids limits cannot be held"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_file, sb_setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(
		    test_symlinks_reach_nothing_outside, sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_write_file, sb_setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_shell_sees_only_its_mounts,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(
		    test_nothing_carries_to_the_next_call, sb_setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(
		    test_the_root_is_the_skeleton, sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(
		    test_grant_of_root_hides_boxmaker, sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(
		    test_grant_of_root_hides_secrets, sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(
		    test_boxmaker_paths_stay_covered, sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_no_network, sb_setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_limits, sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_caller_hangs_up, sb_setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_brokerd_killed_mid_call,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_max_running_holds, sb_setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(
		    test_unprivileged_owner_is_refused, sb_setup, sb_teardown),
	};

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-sandbox podman|bwrap\n");
		return 2;
	}
	sb_kind = argv[1];
	return cmocka_run_group_tests_name(sb_kind, tests, NULL, NULL);
}
