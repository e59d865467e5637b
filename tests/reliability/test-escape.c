/*
 * test-escape.c: the sandbox attacked the way a prompt-injected model
 * would, through real tool_requests under real grants, under the runtime
 * named on the command line. From a shell sandbox: the system calls that
 * reach the kernel's shared state, the host's pid 1 and other calls'
 * processes, /dev beyond the minimal set, setuid binaries, writes to the
 * read-only tree, the host's loopback over UDP. Hostile files under a
 * read_file grant: a FIFO, a link to /dev/zero, a link loop, a file that
 * grows while read, a path swapped between a directory and a link while
 * write_file writes under it, names with a newline or invalid UTF-8, a
 * 4,096-byte path. Hostile commands: one that ignores SIGTERM and SIGPIPE, a daemon
 * that tries to outlive its call, 1,000 files in /tmp, a flood with no
 * newline, one that closes its stdout and goes on.
 *
 * After each case brokerd still answers a good call, nothing of any call
 * is left, and the audit log verifies with a record for every answer.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/path.h"
#include "sandbox-fixture.h"

/* In brokerd's environment; no sandbox may show it. */
#define ESCAPE_MARK	"BX_ESCAPE_MARK=a-secret-of-the-host"

/*
 * Each system call a tool has no use for, issued with perl's syscall() so
 * that no library stands between the call and the kernel; each line is
 * "NAME RESULT ERRNO". Numbers are x86_64's.
 */
static const char syscall_probe[] =
    "perl -e 'open(my $ns, \"<\", \"/proc/1/ns/mnt\");"
    "my @t = ("
    "[\"mount\", 165, \"none\", \"/tmp\", \"tmpfs\", 0, 0],"
    "[\"umount\", 166, \"/usr\", 0],"
    "[\"unshare-user\", 272, 0x10000000],"
    "[\"unshare-mount\", 272, 0x00020000],"
    "[\"unshare-net\", 272, 0x40000000],"
    "[\"setns\", 308, fileno($ns), 0],"
    "[\"ptrace\", 101, 16, 1, 0, 0],"
    "[\"keyctl\", 250, 0, 0, 0, 0, 0],"
    "[\"bpf\", 321, 0, 0, 0],"
    "[\"perf_event_open\", 298, 0, 0, -1, -1, 0],"
    "[\"userfaultfd\", 323, 0],"
    "[\"mknod\", 133, \"/tmp/dev\", 0020666, 0x0103],"
    "[\"chroot\", 161, \"/tmp\"],"
    "[\"pivot_root\", 155, \"/tmp\", \"/tmp\"]);"
    "for my $c (@t) { my ($n, $nr, @a) = @$c; $! = 0;"
    " my $r = syscall($nr, @a);"
    " printf \"%s %d %d\\n\", $n, $r, $r == -1 ? $! + 0 : 0; }'";

/* A call any case may end with: brokerd still answers it. */
static void
expect_good_call(struct sb_fixture *f)
{
	char *out = sb_shell(f, NULL, "echo still here");

	assert_string_equal(out, "still here\n");
	free(out);
}

/* What every case ends with. */
static void
after_case(struct sb_fixture *f)
{
	struct rh_seen none;
	const struct rh_seen *lists[1] = { &none };
	size_t counts[1] = { 0 };
	char why[512];

	expect_good_call(f);
	sb_expect_nothing_left(f);
	if (rh_run_check(f->home.dir, lists, counts, 1, why,
	    sizeof(why)) == -1)
		fail_msg("%s", why);
}

static int
setup(void **state)
{
	struct sb_fixture *f;

	if (putenv(ESCAPE_MARK) != 0 || sb_setup(state) == -1)
		return -1;
	f = *state;
	sb_grant(f, "shell", "shell", "paths", "");
	return 0;
}

static void
test_syscalls_refused(void **state)
{
	struct sb_fixture *f = *state;
	char *out, *line, *save = NULL, name[64];
	int result, err, n = 0;

	out = sb_shell(f, NULL, "%s", syscall_probe);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save), n++) {
		if (sscanf(line, "%63s %d %d", name, &result, &err) != 3)
			fail_msg("not a probe line: %s", line);
		/* brokerd's filter answers EPERM under both runtimes. */
		if (result != -1 || err != EPERM)
			fail_msg("%s was not refused with EPERM: %s", name,
			    line);
	}
	free(out);
	assert_int_equal(n, 14);
	after_case(f);
}

/* The host's pid 1, other processes, devices and tree are out of reach. */
static void
test_host_out_of_reach(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	out = sb_shell(f, NULL, "tr '\\0' '\\n' < /proc/1/environ; "
	    "ls /proc/1/root%s 2>&1; ls /proc | grep -c '^[0-9]'; "
	    "ls /dev | tr '\\n' ' '; echo", f->outside);
	if (strstr(out, "BX_ESCAPE_MARK") != NULL ||
	    strstr(out, "secret.txt") != NULL)
		fail_msg("the host showed through /proc/1: %s", out);
	/* Only the sandbox's own processes: its init, the shell, ls. */
	if (strstr(out, "No such file or directory\n") == NULL ||
	    atoi(strstr(out, "No such file or directory\n") + 26) > 6)
		fail_msg("/proc shows more than the sandbox: %s", out);
	if (strstr(out, "sda") != NULL || strstr(out, "vda") != NULL ||
	    strstr(out, "mem ") != NULL || strstr(out, "kmsg") != NULL ||
	    strstr(out, "null") == NULL || strstr(out, "urandom") == NULL)
		fail_msg("/dev is not the minimal set: %s", out);
	free(out);
	/* The mount table names no host path but the sandbox's own. */
	out = sb_shell(f, NULL, "cat /proc/self/mounts");
	if (strstr(out, f->home.dir) != NULL || strstr(out, f->outside) !=
	    NULL || strstr(out, f->data) != NULL || strstr(out, " /home ") !=
	    NULL || strstr(out, " /root ") != NULL)
		fail_msg("/proc/self/mounts shows the host: %s", out);
	free(out);
	after_case(f);
}

/* No privilege to gain, nothing of the tree to change. */
static void
test_no_privilege(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	out = sb_shell(f, NULL, "grep -E '^(NoNewPrivs|CapEff):' "
	    "/proc/self/status; mount -t tmpfs none /tmp 2>/dev/null && "
	    "echo MOUNTED; for p in /usr/x /etc/x /x; do touch $p 2>/dev/null "
	    "&& echo WROTE $p; done; echo end");
	assert_string_equal(out, "CapEff:\t0000000000000000\nNoNewPrivs:\t1\n"
	    "end\n");
	free(out);
	after_case(f);
}

/* The host's loopback over UDP, as test-sandbox does over TCP. */
static void
test_no_udp_to_the_host(void **state)
{
	struct sb_fixture *f = *state;
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	char buf[16], *out;
	int fd;

	assert_true((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) != -1);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	out = sb_shell(f, NULL, "python3 -c 'import socket\n"
	    "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
	    "try:\n s.sendto(b\"x\", (\"127.0.0.1\", %d)); print(\"sent\")\n"
	    "except OSError as e:\n print(e.errno)'", ntohs(sin.sin_port));
	/* Sent into the sandbox's own loopback, or refused: never here. */
	assert_int_equal(recv(fd, buf, sizeof(buf), 0), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	free(out);
	close(fd);
	after_case(f);
}

/* read_file of path under the data grant; the answer, content in *out. */
static struct rh_answer
read_data(struct sb_fixture *f, const char *path, char **out)
{
	char args[2 * PATH_MAX];

	snprintf(args, sizeof(args), "{\"path\":\"%s\"}", path);
	return sb_call(f, "read_file", args, out);
}

/* Files a hostile tree holds: none hangs a call or reaches past it. */
static void
test_hostile_files(void **state)
{
	struct sb_fixture *f = *state;
	char path[2 * PATH_MAX], link[PATH_MAX], *out;
	struct rh_answer a;
	int64_t t0;
	size_t n;

	sb_grant_data(f, "read", "read_file");
	snprintf(path, sizeof(path), "%s/fifo", f->data);
	assert_int_equal(mkfifo(path, 0644), 0);
	t0 = rh_now_ms();
	a = read_data(f, path, &out);
	assert_true(rh_now_ms() - t0 < 10000);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	free(out);
	snprintf(path, sizeof(path), "%s/zero", f->data);
	assert_int_equal(symlink("/dev/zero", path), 0);
	a = read_data(f, path, &out);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	free(out);
	snprintf(path, sizeof(path), "%s/loop-a", f->data);
	snprintf(link, sizeof(link), "%s/loop-b", f->data);
	assert_int_equal(symlink(link, path), 0);
	assert_int_equal(symlink(path, link), 0);
	a = read_data(f, path, &out);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	free(out);
	/* A name with a newline reads as any other. */
	sb_put(f->data, "new\nline", "two words\n");
	snprintf(path, sizeof(path), "%s/new\\nline", f->data);
	a = read_data(f, path, &out);
	assert_int_equal(a.a_status, BX_STATUS_RESULT);
	assert_string_equal(out, "two words\n");
	free(out);
	/* A path of 4,096 bytes passes the form check; the kernel refuses it. */
	n = (size_t)snprintf(path, sizeof(path), "%s/", f->data);
	memset(path + n, 'a', BX_PATH_MAX - n);
	path[BX_PATH_MAX] = '\0';
	a = read_data(f, path, &out);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	free(out);
	path[BX_PATH_MAX] = 'a';
	path[BX_PATH_MAX + 1] = '\0';
	a = read_data(f, path, &out);
	assert_int_equal(a.a_status, BX_STATUS_DENIED);
	assert_int_equal(a.a_reason, BX_DENY_INVALID_ARGUMENTS);
	free(out);
	after_case(f);
}

/* Commands that fight their end: each ends, and leaves nothing running. */
static void
test_hostile_commands(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	out = sb_shell(f, NULL, "trap '' TERM PIPE HUP INT; "
	    "exec bash -c 'exec -a bx-escape-stubborn sleep 60'");
	assert_string_equal(out, "timed out after 3 s\n");
	free(out);
	assert_true(rh_await_process("bx-escape-stubborn", false, RH_WAIT_MS));
	out = sb_shell(f, NULL, "(setsid bash -c 'exec -a bx-escape-daemon "
	    "sleep 30' > /dev/null 2>&1 &); echo parent done");
	assert_true(rh_await_process("bx-escape-daemon", false, RH_WAIT_MS));
	free(out);
	out = sb_shell(f, NULL, "exec >&-; "
	    "exec bash -c 'exec -a bx-escape-closed sleep 60'");
	assert_string_equal(out, "timed out after 3 s\n");
	free(out);
	assert_true(rh_await_process("bx-escape-closed", false, RH_WAIT_MS));
	out = sb_shell(f, NULL, "head -c 10000000 /dev/zero | tr '\\0' a");
	assert_true(f->last.a_truncated);
	assert_int_equal(strlen(out), SB_OUTPUT_BYTES);
	assert_int_equal(strspn(out, "a"), SB_OUTPUT_BYTES);
	free(out);
	out = sb_shell(f, NULL, "i=0; while [ $i -lt 1000 ]; do : > /tmp/f$i; "
	    "i=$((i + 1)); done; ls /tmp | wc -l");
	assert_string_equal(out, "1000\n");
	free(out);
	/* The next call's /tmp is its own. */
	out = sb_shell(f, NULL, "ls -A /tmp | wc -l");
	assert_string_equal(out, "0\n");
	free(out);
	after_case(f);
}

struct racer {
	pthread_t	 r_thread;
	atomic_bool	 r_stop;
	char		 r_path[PATH_MAX];	/* what the racer changes */
	char		 r_aside[PATH_MAX];
	char		 r_target[PATH_MAX];	/* where a link points */
};

/* Appends to r_path until stopped: a file that grows while it is read. */
static void *
grow(void *arg)
{
	struct racer *r = arg;
	char line[64];
	int fd;

	memset(line, 'g', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	if ((fd = open(r->r_path, O_WRONLY | O_APPEND | O_CLOEXEC)) == -1)
		return NULL;
	while (!atomic_load(&r->r_stop))
		if (write(fd, line, sizeof(line)) == -1)
			break;
	close(fd);
	return NULL;
}

/*
 * Swaps r_path between a directory and a link to r_target until stopped,
 * as a tool running beside write_file would.
 */
static void *
swap(void *arg)
{
	struct racer *r = arg;

	while (!atomic_load(&r->r_stop)) {
		(void)unlink(r->r_aside);
		(void)symlink(r->r_target, r->r_aside);
		(void)rename(r->r_aside, r->r_path);
		(void)unlink(r->r_path);
		(void)mkdir(r->r_path, 0755);
		(void)rmdir(r->r_path);
	}
	return NULL;
}

/* A file growing while read, a path swapped while written. */
static void
test_races(void **state)
{
	struct sb_fixture *f = *state;
	char args[2 * PATH_MAX], victim[PATH_MAX], *out;
	struct racer r;
	struct rh_answer a;
	int i;

	sb_grant_data(f, "read", "read_file");
	sb_grant_data(f, "write", "write_file");
	memset(&r, 0, sizeof(r));
	snprintf(r.r_path, sizeof(r.r_path), "%s/grow", f->data);
	sb_put(f->data, "grow", "start\n");
	assert_int_equal(pthread_create(&r.r_thread, NULL, grow, &r), 0);
	a = read_data(f, r.r_path, &out);
	atomic_store(&r.r_stop, true);
	pthread_join(r.r_thread, NULL);
	/* Whatever it read, the answer is bounded and recorded. */
	assert_int_equal(a.a_status, BX_STATUS_RESULT);
	assert_true(strlen(out) <= SB_OUTPUT_BYTES);
	sb_expect_record(f, f->calls, false, out);
	free(out);
	memset(&r, 0, sizeof(r));
	snprintf(r.r_path, sizeof(r.r_path), "%s/work/sw", f->data);
	snprintf(r.r_aside, sizeof(r.r_aside), "%s/work/sw-aside", f->data);
	snprintf(r.r_target, sizeof(r.r_target), "%s", f->outside);
	snprintf(victim, sizeof(victim), "%s/x.txt", f->outside);
	assert_int_equal(pthread_create(&r.r_thread, NULL, swap, &r), 0);
	for (i = 0; i < 20; i++) {
		snprintf(args, sizeof(args), "{\"path\":\"%s/x.txt\","
		    "\"content\":\"raced\\n\"}", r.r_path);
		(void)sb_call(f, "write_file", args, &out);
		free(out);
	}
	atomic_store(&r.r_stop, true);
	pthread_join(r.r_thread, NULL);
	if (access(victim, F_OK) == 0)
		fail_msg("write_file wrote through a swapped link: %s", victim);
	after_case(f);
}

/* Names that are not UTF-8 reach the model as valid text. */
static void
test_names_not_utf8(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	sb_grant_data(f, "shell-data", "shell");
	sb_put(f->data, "bad-\xff\xfe", "x\n");
	out = sb_shell(f, f->data, "ls");
	if (strstr(out, "bad-\xef\xbf\xbd") == NULL ||
	    strstr(out, "\xff") != NULL)
		fail_msg("not shown as U+FFFD: %s", out);
	free(out);
	after_case(f);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_syscalls_refused, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_host_out_of_reach, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_no_privilege, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_no_udp_to_the_host, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_files, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_commands, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_races, setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_names_not_utf8, setup,
		    sb_teardown),
	};

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-escape podman|bwrap\n");
		return 2;
	}
	sb_kind = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
