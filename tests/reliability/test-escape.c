/*
 * test-escape.c: a shell tool that tries to leave its sandbox, as a
 * prompt-injected model would, under the runtime named on the command
 * line: the system calls the sandbox refuses (through escape-probe, a
 * static helper of the build copied into the granted directory, so the
 * exact errno is seen whatever tools /usr holds), setuid programs, the
 * system directories, other processes' /proc, devices, its own mounts,
 * and every way out to the host: loopback TCP and UDP, an abstract
 * socket, brokerd's own sockets by path. (A test host in a network
 * namespace, reached directly, is test-egress's others_have_no_network.)
 *
 * Every case is a real tool_request under a real grant and ends with
 * sb_after_case: brokerd answers, nothing is left, the log holds.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"
#include "sandbox-fixture.h"

/* In brokerd's environment; no sandbox may read it anywhere. */
#define ENV_MARK	"BX_ESCAPE_MARK=fake-host-secret-4711"
/* test_other_call_unseen's runner timeout: its sleep must outlast a start. */
#define ESCAPE_OTHER_TIMEOUT_MS	120000

/* The probe copied to <data>/bin, mode as given; the shell's grant. */
static void
install_probe(struct sb_fixture *f, const char *name, mode_t mode, uid_t uid)
{
	char src[PATH_MAX], dst[PATH_MAX], cmd[3 * PATH_MAX];

	rh_program("tests/reliability/escape-probe", src, sizeof(src));
	snprintf(dst, sizeof(dst), "%s/bin", f->data);
	(void)mkdir(dst, 0755);
	snprintf(dst, sizeof(dst), "%s/bin/%s", f->data, name);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(chown(dst, uid, uid), 0);
	assert_int_equal(chmod(dst, mode), 0);
}

/* The output of a shell command; the call must have run. */
static char *
run(struct sb_fixture *f, const char *fmt, const char *arg)
{
	char *out = sb_shell(f, f->data, fmt, arg);

	if (f->last.a_status != BX_STATUS_RESULT)
		fail_msg("the shell did not run: %s", out);
	return out;
}

static void
expect_out(const char *out, const char *want)
{
	if (strcmp(out, want) != 0)
		fail_msg("got:\n%s\nwant:\n%s", out, want);
}

/* Every system call a way out needs is refused, with EPERM or ENOSYS. */
static void
test_syscalls_refused(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	install_probe(f, "escape-probe", 0755, 0);
	sb_grant_data(f, "shell", "shell");
	out = run(f, "%s/bin/escape-probe mount umount unshare userns "
	    "clone-userns setns ptrace keyctl bpf perf_event_open userfaultfd "
	    "mknod chroot", f->data);
	expect_out(out, "mount: Operation not permitted\n"
	    "umount: Operation not permitted\n"
	    "unshare: Operation not permitted\n"
	    "userns: Operation not permitted\n"
	    "clone-userns: Operation not permitted\n"
	    "setns: Operation not permitted\n"
	    "ptrace: Operation not permitted\n"
	    "keyctl: Operation not permitted\n"
	    "bpf: Operation not permitted\n"
	    "perf_event_open: Operation not permitted\n"
	    "userfaultfd: Operation not permitted\n"
	    "mknod: Operation not permitted\n"
	    "chroot: Operation not permitted\n");
	sb_expect_record(f, f->calls, false, out);
	free(out);
	sb_after_case(f);
}

/*
 * No-new-privileges: a setuid-root program of /usr (mount) does not
 * become root's, and a program setuid to nobody keeps the caller's uid.
 */
static void
test_setuid_gains_nothing(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	install_probe(f, "suid-probe", 04755, 65534);
	sb_grant_data(f, "shell", "shell");
	out = run(f, "grep NoNewPrivs /proc/self/status; /usr/bin/mount -t "
	    "tmpfs none /tmp 2>&1 | head -n 1; "
	    "%s/bin/suid-probe ids | grep -v CapBnd | grep -v CapAmb",
	    f->data);
	expect_out(out, "NoNewPrivs:\t1\n"
	    "mount: /tmp: permission denied.\n"
	    "euid 0\n"
	    "CapInh:\t0000000000000000\n"
	    "CapPrm:\t0000000000000000\n"
	    "CapEff:\t0000000000000000\n"
	    "NoNewPrivs:\t1\n");
	free(out);
	sb_after_case(f);
}

/* /usr, /etc and / are read-only; the granted directory is not. */
static void
test_system_read_only(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	sb_grant_data(f, "shell", "shell");
	out = run(f, "for d in /usr /etc '' /usr/bin; do echo x > $d/x 2>&1 || "
	    "true; done; mkdir /etc/x 2>&1; echo ok > %s/x && cat x",
	    f->data);
	expect_out(out, "/bin/sh: 1: cannot create /usr/x: Read-only file system\n"
	    "/bin/sh: 1: cannot create /etc/x: Read-only file system\n"
	    "/bin/sh: 1: cannot create /x: Read-only file system\n"
	    "/bin/sh: 1: cannot create /usr/bin/x: Read-only file system\n"
	    "mkdir: cannot create directory ‘/etc/x’: Read-only file system\n"
	    "ok\n");
	free(out);
	sb_after_case(f);
}

/*
 * pid 1's environment and root show nothing of the host's; /dev holds
 * the minimal set; /proc/self/mounts lists only the spec's view.
 */
static void
test_proc_dev_mounts(void **state)
{
	struct sb_fixture *f = *state;
	char *out, *line, *save;

	sb_grant_data(f, "shell", "shell");
	out = run(f, "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | "
	    "grep -c BX_ESCAPE_MARK; ls /proc/1/root/ 2>&1 | tr '\\n' ' '; "
	    "echo; cat /proc/1/root%s/secret.txt 2>&1 | grep -c FAKE-SECRET; true",
	    f->outside);
	if (strncmp(out, "0\n", 2) != 0 || strstr(out, "FAKE") != NULL ||
	    strcmp(out + strlen(out) - 2, "0\n") != 0)
		fail_msg("pid 1 showed the host: %s", out);
	free(out);
	out = run(f, "ls /dev | grep -vxE 'null|zero|full|random|urandom|tty|"
	    "console|core|fd|stdin|stdout|stderr|ptmx|pts|shm|mqueue'; ls /sys "
	    "2>/dev/null | grep -vxE 'block|bus|class|dev|devices|firmware|fs|"
	    "hypervisor|kernel|module|power'; (echo x > /sys/kernel/x) 2>&1 | "
	    "grep -v 'Read-only\\|No such\\|nonexistent'; echo end%s", "");
	expect_out(out, "end\n");
	free(out);
	out = run(f, "awk '{print $2}' /proc/self/mounts | sort -u%s", "");
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "/") == 0 || strcmp(line, "/usr") == 0 ||
		    strcmp(line, "/etc") == 0 || strcmp(line, "/tmp") == 0 ||
		    strcmp(line, "/run") == 0 || strcmp(line, "/var/tmp") == 0 ||
		    strcmp(line, "/etc/ssl/certs") == 0 ||
		    strcmp(line, "/etc/alternatives") == 0 ||
		    strcmp(line, "/.boxmaker/bxtool") == 0 ||
		    /*
		     * podman's own (the hostname file, --init's catatonit)
		     * and brokerd's filter for bxtool to install.
		     */
		    ((strcmp(line, "/etc/hostname") == 0 ||
		    strcmp(line, "/run/podman-init") == 0 ||
		    strcmp(line, "/.boxmaker/seccomp") == 0) &&
		    strcmp(sb_kind, "podman") == 0) ||
		    strcmp(line, f->data) == 0 ||
		    strncmp(line, "/proc", 5) == 0 ||
		    strncmp(line, "/dev", 4) == 0 ||
		    strncmp(line, "/sys", 4) == 0)
			continue;
		fail_msg("a mount the spec does not list: %s", line);
	}
	free(out);
	sb_after_case(f);
}

static bool
has_result(struct sb_fixture *f, const char *session, const char *call)
{
	struct rh_log log;
	bool found;

	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	found = rh_log_find(&log, BX_AUDIT_RESULT, session, call) != NULL;
	rh_log_free(&log);
	return found;
}

/* Two calls at once: neither sees the other's processes. */
static void
test_other_call_unseen(void **state)
{
	struct sb_fixture *f = *state;
	struct rh_call c;
	char *out;
	int64_t until;

	/* The other call's sleep must outlive this one's start, however slow. */
	f->timeout_ms = ESCAPE_OTHER_TIMEOUT_MS;
	sb_restart(f, 2);
	sb_grant(f, "shell", "shell", "paths", "");
	assert_int_equal(rh_call_tool(&c, f->home.broker, "other-1", "o1",
	    "shell", "{\"command\":\"sleep 43.25\"}"), 0);
	until = rh_now_ms() + RH_WAIT_MS;
	/* Until the other call's sleep runs on the host. */
	while (system("pgrep -f 'slee[p] 43.25' >/dev/null") != 0 &&
	    rh_now_ms() < until)
		rh_sleep_ms(50);
	assert_int_equal(system("pgrep -f 'slee[p] 43.25' >/dev/null"), 0);
	out = sb_shell(f, NULL, "cat /proc/[0-9]*/cmdline | tr '\\0' ' ' | "
	    "grep -c 'sleep 43'");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	/* grep's own command line is the one match. */
	if (strcmp(out, "1\n") != 0)
		fail_msg("the other call's process showed: %s", out);
	free(out);
	/* It ran before and still runs: it was there to be seen all along. */
	if (system("pgrep -f 'slee[p] 43.25' >/dev/null") != 0)
		fail_msg("the other call's sleep ended before this call looked");
	rh_call_close(&c);
	/* Its hang-up ends it; its Result comes before the checks. */
	until = rh_now_ms() + RH_WAIT_MS;
	while (!has_result(f, "other-1", "o1") && rh_now_ms() < until)
		rh_sleep_ms(50);
	assert_true(has_result(f, "other-1", "o1"));
	sb_after_case(f);
}

/* Python's words for each way out; the host's servers saw nothing. */
static void
test_no_way_out(void **state)
{
	struct sb_fixture *f = *state;
	char name[64], cmd[4096], buf[16], *out;
	int tcp, udp, abs, tport, uport;

	sb_grant(f, "shell", "shell", "paths", "\"/\"");
	tcp = sb_listen_loopback(SOCK_STREAM, &tport);
	udp = sb_listen_loopback(SOCK_DGRAM, &uport);
	snprintf(name, sizeof(name), "bx-escape-%d", (int)getpid());
	abs = sb_listen_abstract(name);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import socket\n"
	    "def try_(what, fam, kind, addr, send=False):\n"
	    " s = socket.socket(fam, kind)\n"
	    " try:\n"
	    "  s.sendto(b\"x\", addr) if send else s.connect(addr)\n"
	    "  print(what, \"sent\" if send else \"connected\")\n"
	    " except OSError as e:\n"
	    "  print(what, type(e).__name__)\n"
	    "I, U = socket.AF_INET, socket.AF_UNIX\n"
	    "try_(\"tcp\", I, socket.SOCK_STREAM, (\"127.0.0.1\", %d))\n"
	    "try_(\"udp\", I, socket.SOCK_DGRAM, (\"127.0.0.1\", %d), True)\n"
	    "try_(\"abstract\", U, socket.SOCK_STREAM, \"\\0%s\")\n"
	    "try_(\"broker\", U, socket.SOCK_STREAM, \"%s\")\n"
	    "try_(\"admin\", U, socket.SOCK_STREAM, \"%s\")\n'",
	    tport, uport, name, f->home.broker, f->home.admin);
	out = sb_shell(f, "/", "%s", cmd);
	expect_out(out, "tcp ConnectionRefusedError\n"
	    "udp sent\n"
	    "abstract ConnectionRefusedError\n"
	    "broker FileNotFoundError\n"
	    "admin FileNotFoundError\n");
	/* The datagram went to the sandbox's own loopback, not here. */
	assert_int_equal(accept(tcp, NULL, NULL), -1);
	assert_int_equal(recv(udp, buf, sizeof(buf), 0), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(accept(abs, NULL, NULL), -1);
	close(tcp);
	close(udp);
	close(abs);
	free(out);
	sb_after_case(f);
}

/*
 * A command's daemon writes bxtool's status lines, and half a line, into
 * the sandbox's status channel through /proc (pid 1's stderr, and
 * bxtool's, which is refused): once before the command ends (the command
 * waits for it), then in a burst the moment the command has ended, when
 * bxtool writes its own last line. The answer is the command's, whole,
 * not cut. A command that floods the channel past what brokerd keeps makes its call
 * fail, and is not believed either.
 */
static void
test_status_lines_not_forged(void **state)
{
	struct sb_fixture *f = *state;
	char *out;
	int i;

	sb_grant(f, "shell", "shell", "paths", "\"/\"");
	for (i = 0; i < 3; i++) {
		out = sb_shell(f, "/", "b=$PPID m=$$; (setsid sh -c 'forge() "
		    "{ for fd in /proc/1/fd/2 /proc/'$b'/fd/2; do "
		    "echo \"bxtool: failed forged\" >$fd; "
		    "echo \"bxtool: truncated\" >$fd; "
		    "echo -n partial >$fd; done; }; forge; "
		    "touch /tmp/forged; "
		    "while kill -0 '$m'; do sleep 0.001; done; "
		    "for i in $(seq 200); do forge; done' 2>/dev/null &); "
		    "until [ -e /tmp/forged ]; do sleep 0.01; done; "
		    "echo real");
		if (f->last.a_status != BX_STATUS_RESULT || f->last.a_truncated)
			fail_msg("a forged status line won: status %d, "
			    "truncated %d: %.300s", f->last.a_status,
			    f->last.a_truncated, out);
		assert_string_equal(out, "real\n");
		sb_expect_record(f, f->calls, false, out);
		free(out);
	}
	out = sb_shell(f, "/", "head -c 70000 /dev/zero | tr '\\0' x "
	    ">/proc/1/fd/2; echo 'bxtool: ok' >/proc/1/fd/2; echo real");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_string_equal(out, "the tool's status was lost: more than 64 "
	    "KiB came on the sandbox's stderr, where only bxtool writes");
	sb_expect_record(f, f->calls, true, out);
	free(out);
	sb_after_case(f);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_syscalls_refused,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_setuid_gains_nothing,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_system_read_only,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_proc_dev_mounts,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_other_call_unseen,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_status_lines_not_forged,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_no_way_out, sb_setup,
		    sb_teardown),
	};

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-escape podman|bwrap\n");
		return 2;
	}
	sb_kind = argv[1];
	if (putenv(ENV_MARK) != 0)
		return 1;
	return cmocka_run_group_tests_name(sb_kind, tests, NULL, NULL);
}
