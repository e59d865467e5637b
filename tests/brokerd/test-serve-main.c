/*
 * test-serve-main.c: the real build/brokerd binary. `brokerd serve` on a
 * temporary home, talked to over both sockets (broker.sock and its
 * directory with an ACL entry for loopd's jail uid, admin.sock with none):
 * a call answered by M3a's
 * refusing runner, an approval, a forbidden kind, a second instance refused
 * by the lock, SIGTERM and SIGINT stopping it cleanly (sockets removed, the
 * lock released, the audit log verifying), its usage errors, and its
 * READY=1 to a notify socket (systemd's Type=notify) once both sockets
 * listen.
 *
 *	test-serve-main BROKERD
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "brokerd/broker.h"
#include "grants-fixture.h"
#include "proto/acl.h"
#include "proto/chain.h"
#include "proto/frame.h"
#include "proto/jailid.h"
#include "proto/unixsock.h"
#include "serve-client.h"

#define WAIT_MS	20000

static const char *brokerd;

struct home {
	char	*dir;
	char	 config[4096];
	char	 broker[4096];
	char	 admin[4096];
	char	 bridge[4096];
	char	 errs[4096];
	pid_t	 pid;
};

static void
make_home(struct home *h)
{
	char grants[4096], text[16384];

	memset(h, 0, sizeof(*h));
	h->dir = fixture_dir();
	snprintf(grants, sizeof(grants), "%s/grants", h->dir);
	assert_int_equal(mkdir(grants, 0700), 0);
	fixture_text(grants, "notes.toml", "tool = \"read_file\"\n"
	    "mode = \"ask\"\nmax_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n\n"
	    "[constraints]\npaths = [\"/notes\"]\n");
	fixture_text(grants, "docs.toml", "tool = \"read_file\"\n"
	    "mode = \"auto\"\nmax_taint = \"secret\"\nresult_class = \"public\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n\n"
	    "[constraints]\npaths = [\"/docs\"]\n");
	snprintf(h->broker, sizeof(h->broker), "%s/run/loop-broker/broker.sock",
	    h->dir);
	snprintf(h->admin, sizeof(h->admin), "%s/run/owner-broker/admin.sock",
	    h->dir);
	snprintf(h->bridge, sizeof(h->bridge),
	    "%s/run/bridge-broker/bridge.sock", h->dir);
	snprintf(h->errs, sizeof(h->errs), "%s/stderr", h->dir);
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s\"\ngrants = \"%s\"\n\n"
	    "[sockets]\nbroker = \"%s\"\nadmin = \"%s\"\n\n"
	    "[approvals]\nttl_ms = 900000\n\n[runner]\nkind = \"refuse\"\n",
	    h->dir, grants, h->broker,
	    h->admin);
	fixture_text(h->dir, "brokerd.toml", text);
	snprintf(h->config, sizeof(h->config), "%s/brokerd.toml", h->dir);
}

/* Starts brokerd with the arguments given after "serve --config PATH". */
static pid_t
spawn(struct home *h, const char *extra)
{
	pid_t pid;
	int fd;

	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		fd = open(h->errs, O_WRONLY | O_CREAT | O_APPEND, 0600);
		dup2(fd, 2);
		execl(brokerd, brokerd, "serve", "--config", h->config, extra,
		    (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int
wait_exit(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static bool
errs_contain(struct home *h, const char *text)
{
	char buf[65536];
	size_t n;
	FILE *fp;

	if ((fp = fopen(h->errs, "r")) == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

/* How many times brokerd said it serves, in stderr so far. */
static size_t
serving_lines(struct home *h)
{
	char buf[65536], *p;
	size_t n, count = 0;
	FILE *fp;

	if ((fp = fopen(h->errs, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	for (p = buf; (p = strstr(p, "brokerd: serving on ")) != NULL; p++)
		count++;
	return count;
}

/*
 * Starts brokerd and waits until it says it serves: its sockets are made
 * and the jails' ACL entries given (stderr is kept across starts, hence
 * the count).
 */
static void
start(struct home *h)
{
	size_t before = serving_lines(h);
	int waited = 0, status;

	h->pid = spawn(h, NULL);
	while (serving_lines(h) == before) {
		if (waitpid(h->pid, &status, WNOHANG) == h->pid)
			fail_msg("brokerd exited before serving (see %s)",
			    h->errs);
		if ((waited += 10) > WAIT_MS)
			fail_msg("brokerd did not start serving");
		sleep_ms(10);
	}
}

/* Verifies the audit log; counts records of each type into counts. */
static void
verify(struct home *h, size_t counts[BX_AUDIT_EVENT_MAX])
{
	struct bx_chain *c = bx_chain_new();
	struct bx_chain_report *rep;
	struct bx_audit_summary sum;
	struct dirent **names;
	struct bx_error err;
	char dir[4096], path[8192], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;
	int i, n;

	memset(counts, 0, BX_AUDIT_EVENT_MAX * sizeof(*counts));
	snprintf(dir, sizeof(dir), "%s/audit", h->dir);
	assert_true((n = scandir(dir, &names, NULL, alphasort)) >= 0);
	for (i = 0; i < n; i++) {
		if (strstr(names[i]->d_name, ".jsonl") == NULL)
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		bx_chain_file(c, names[i]->d_name);
		assert_non_null(fp = fopen(path, "r"));
		while ((len = getline(&line, &cap, fp)) > 0) {
			assert_int_equal(line[len - 1], '\n');
			line[--len] = '\0';
			bx_chain_line(c, line, (size_t)len, false, true);
			assert_int_equal(bx_audit_record_scan(line, (size_t)len,
			    &sum, NULL), 0);
			counts[sum.type]++;
		}
		fclose(fp);
next:
		free(names[i]);
	}
	free(names);
	free(line);
	assert_int_equal(bx_chain_finish(c, &rep, &err), 0);
	if (rep->failed)
		fail_msg("audit: %s", rep->failure.what);
	bx_chain_report_free(rep);
}

/*
 * broker.sock is 0600 but for the mask of the ACL entry loopd's jail uid
 * gets there and on its directory; admin.sock and its directory get none.
 */
static void
expect_jail_entries(struct home *h)
{
	struct bx_jail_id id;
	struct bx_error err;
	char dir[4096];
	struct stat st;

	assert_int_equal(stat(h->admin, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(h->broker, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0707, 0600);
	if (bx_jail_identity(geteuid(), &id, &err) == -1) {
		assert_true(errs_contain(h, "loopd's jail uid is unknown"));
		assert_int_equal(st.st_mode & 0777, 0600);
		return;
	}
	assert_false(errs_contain(h, "warning"));
	assert_true(bx_acl_allows(h->broker, id.ji_uid,
	    BX_ACL_READ | BX_ACL_WRITE));
	snprintf(dir, sizeof(dir), "%s/run/loop-broker", h->dir);
	assert_true(bx_acl_allows(dir, id.ji_uid, BX_ACL_EXEC));
	assert_false(bx_acl_allows(h->admin, id.ji_uid, BX_ACL_WRITE));
	snprintf(dir, sizeof(dir), "%s/run/owner-broker", h->dir);
	assert_false(bx_acl_allows(dir, id.ji_uid, BX_ACL_EXEC));
	assert_false(bx_acl_allows(h->bridge, id.ji_uid, BX_ACL_WRITE));
}

/*
 * bridge.sock, made by default under the home, is 0600 but for the mask of
 * the bridge's jail uid's ACL entry, when that uid is known; else brokerd
 * says bridge.sock serves its own uid only, and serves the rest as ever.
 */
static void
expect_bridge_entries(struct home *h)
{
	struct bx_jail_id id;
	struct bx_error err;
	char dir[4096];
	struct stat st;

	assert_int_equal(stat(h->bridge, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0707, 0600);
	if (bx_jail_identity_of(BX_JAIL_BRIDGE, geteuid(), &id, &err) == -1) {
		assert_true(errs_contain(h, "the bridge's jail uid is unknown, "
		    "so bridge.sock serves uid"));
		assert_int_equal(st.st_mode & 0777, 0600);
		return;
	}
	assert_true(bx_acl_allows(h->bridge, id.ji_uid,
	    BX_ACL_READ | BX_ACL_WRITE));
	snprintf(dir, sizeof(dir), "%s/run/bridge-broker", h->dir);
	assert_true(bx_acl_allows(dir, id.ji_uid, BX_ACL_EXEC));
	assert_false(bx_acl_allows(h->admin, id.ji_uid, BX_ACL_WRITE));
	assert_false(bx_acl_allows(h->broker, id.ji_uid, BX_ACL_WRITE));
}

static void
test_serves_both_sockets_and_stops_cleanly(void **state)
{
	struct bx_frame_reader r;
	struct home h;
	struct bx_msg *m;
	struct stat st;
	size_t counts[BX_AUDIT_EVENT_MAX];
	uint64_t id;
	pid_t second;
	int fd;

	(void)state;
	make_home(&h);
	start(&h);
	expect_jail_entries(&h);
	expect_bridge_entries(&h);
	assert_true(errs_contain(&h, "brokerd: serving on"));

	/* auto: M3a's runner refuses, and loopd hears failed. */
	m = one(h.broker, bx_msg_tool_request("s1", "c1", "read_file",
	    "{\"path\":\"/docs/a\"}"));
	assert_int_equal(m->tool_response.status, BX_STATUS_FAILED);
	assert_string_equal(m->tool_response.message,
	    "no tool runs: the runner kind is refuse");
	bx_msg_free(m);

	/* ask: pending, listed, approved, then the same refusal. */
	fd = dial(h.broker);
	send_msg(fd, bx_msg_tool_request("s1", "c2", "read_file",
	    "{\"path\":\"/notes/a\"}"));
	bx_frame_reader_init(&r, fd);
	m = next_frame(&r);
	assert_int_equal(m->tool_response.status, BX_STATUS_PENDING_APPROVAL);
	id = m->tool_response.approval;
	bx_msg_free(m);
	m = one(h.admin, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->approval_list.nitems, 1);
	assert_int_equal(m->approval_list.items[0].approval, id);
	bx_msg_free(m);
	m = one(h.admin, bx_msg_approve(id));
	assert_int_equal(m->approve_result.kind, BX_OUTCOME_ASK);
	bx_msg_free(m);
	m = next_frame(&r);
	assert_int_equal(m->tool_response.status, BX_STATUS_APPROVED);
	bx_msg_free(m);
	m = next_frame(&r);
	assert_int_equal(m->tool_response.status, BX_STATUS_FAILED);
	bx_msg_free(m);
	bx_frame_reader_free(&r);
	close(fd);

	m = one(h.admin, bx_msg_new(BX_MSG_CHECK_GRANTS));
	assert_int_equal(m->grants_report.nproblems, 0);
	bx_msg_free(m);
	m = one(h.broker, bx_msg_approve(id));
	assert_int_equal(m->error.code, BX_CODE_FORBIDDEN);
	bx_msg_free(m);
	assert_true(errs_contain(&h, "see docs/runbook.md#socket-forbidden"));

	/* A second brokerd is refused by the audit lock. */
	second = spawn(&h, NULL);
	assert_int_equal(wait_exit(second), 1);
	assert_true(errs_contain(&h, "already running"));
	assert_int_equal(stat(h.broker, &st), 0);

	kill(h.pid, SIGTERM);
	assert_int_equal(wait_exit(h.pid), 0);
	assert_true(errs_contain(&h, "brokerd: stopped"));
	assert_int_equal(stat(h.broker, &st), -1);
	assert_int_equal(stat(h.admin, &st), -1);
	verify(&h, counts);
	assert_int_equal(counts[BX_AUDIT_DECISION], 2);
	assert_int_equal(counts[BX_AUDIT_APPROVAL], 1);
	assert_int_equal(counts[BX_AUDIT_RESULT], 2);
	assert_int_equal(counts[BX_AUDIT_RECOVERY], 0);

	/* The lock was released: it starts again, with nothing pending. */
	start(&h);
	m = one(h.admin, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->approval_list.nitems, 0);
	bx_msg_free(m);
	kill(h.pid, SIGINT);
	assert_int_equal(wait_exit(h.pid), 0);
	verify(&h, counts);
	assert_int_equal(counts[BX_AUDIT_DECISION], 2);
	fixture_remove(h.dir);
	free(h.dir);
}

static void
test_sigterm_abandons_a_pending_approval(void **state)
{
	struct bx_frame_reader r;
	struct home h;
	struct bx_error err;
	const char *line;
	size_t len, counts[BX_AUDIT_EVENT_MAX];
	int fd;

	(void)state;
	make_home(&h);
	start(&h);
	fd = dial(h.broker);
	send_msg(fd, bx_msg_tool_request("s1", "c1", "read_file",
	    "{\"path\":\"/notes/a\"}"));
	bx_frame_reader_init(&r, fd);
	bx_msg_free(next_frame(&r));
	kill(h.pid, SIGTERM);
	/* The call ends without an answer, and brokerd exits. */
	assert_int_equal(bx_frame_read(&r, WAIT_MS, &line, &len, &err),
	    BX_FRAME_EOF);
	bx_frame_reader_free(&r);
	close(fd);
	assert_int_equal(wait_exit(h.pid), 0);
	verify(&h, counts);
	assert_int_equal(counts[BX_AUDIT_DECISION], 1);
	assert_int_equal(counts[BX_AUDIT_APPROVAL], 0);
	fixture_remove(h.dir);
	free(h.dir);
}

static void
test_usage_and_nothing_to_accept(void **state)
{
	struct home h;
	pid_t pid;

	(void)state;
	make_home(&h);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		close(2);
		execl(brokerd, brokerd, "serve", "--config", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(wait_exit(pid), 2);
	assert_int_equal(wait_exit(spawn(&h, "--accept-break")), 2);
	assert_true(errs_contain(&h, "nothing to accept"));
	fixture_remove(h.dir);
	free(h.dir);
}

/*
 * With NOTIFY_SOCKET set, brokerd says READY=1 there, and only once both
 * of its sockets exist.
 */
static void
test_ready_once_serving(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct pollfd p;
	struct home h;
	struct stat st;
	char buf[64];
	ssize_t n;
	int fd;

	(void)state;
	make_home(&h);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/notify", h.dir);
	assert_true((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(setenv("NOTIFY_SOCKET", sun.sun_path, 1), 0);
	h.pid = spawn(&h, NULL);
	unsetenv("NOTIFY_SOCKET");
	p = (struct pollfd){ fd, POLLIN, 0 };
	if (poll(&p, 1, WAIT_MS) != 1)
		fail_msg("no READY=1 from brokerd within %d ms (see %s)",
		    WAIT_MS, h.errs);
	assert_true((n = recv(fd, buf, sizeof(buf) - 1, 0)) > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "READY=1");
	assert_int_equal(stat(h.broker, &st), 0);
	assert_int_equal(stat(h.admin, &st), 0);
	kill(h.pid, SIGTERM);
	assert_int_equal(wait_exit(h.pid), 0);
	close(fd);
	fixture_remove(h.dir);
	free(h.dir);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_serves_both_sockets_and_stops_cleanly),
		cmocka_unit_test(test_sigterm_abandons_a_pending_approval),
		cmocka_unit_test(test_usage_and_nothing_to_accept),
		cmocka_unit_test(test_ready_once_serving),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test-serve-main BROKERD\n");
		return 2;
	}
	brokerd = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
