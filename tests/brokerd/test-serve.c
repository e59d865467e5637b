/*
 * test-serve.c: brokerd's two sockets (design section 6, baseline section
 * 3), served in-process on a thread: modes 0600 and 0700; every admin kind
 * (the console's too) on broker.sock and tool_request on admin.sock
 * forbidden and printed, the console's answered on admin.sock;
 * calls and approvals over real connections; the expiry thread; a dropped
 * connection; a worker for each call in progress, ended when idle; the
 * bounds, the first-frame deadline and frame_too_large; a
 * clean stop that removes the sockets.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "brokerd/serve.h"
#include "brokerd/serve_socket.h"
#include "proto/chain.h"
#include "proto/frame.h"
#include "proto/unixsock.h"
#include "serve-client.h"

/* Generous: nothing here should take more than a moment. */
#define WAIT_MS	20000

struct sfix {
	struct bfix	*f;
	struct serve	*s;
	pthread_t	 thread;
	char		 broker[4096];
	char		 admin[4096];
	char		 bridge[4096];
	int		 rc;
};

static void *
serve_thread(void *arg)
{
	struct sfix *x = arg;
	struct bx_error err;

	x->rc = serve_run(x->s, &err);
	return NULL;
}

static struct sfix *
start_budget(int64_t ttl_ms, size_t max_connections, size_t max_calls,
    int read_timeout_ms, size_t wait_budget, int worker_idle_ms)
{
	struct sfix *x = calloc(1, sizeof(*x));
	struct serve_config sc;
	struct bx_error err;

	x->f = bfix_new(ttl_ms, NULL);
	bfix_grant(x->f, "notes", "read_file", "ask", "secret", "private",
	    false, "paths = [\"/notes\"]");
	bfix_grant(x->f, "docs", "read_file", "auto", "secret", "public",
	    false, "paths = [\"/docs\"]");
	snprintf(x->broker, sizeof(x->broker), "%s/run/loop-broker/broker.sock",
	    x->f->home);
	snprintf(x->admin, sizeof(x->admin), "%s/run/owner-broker/admin.sock",
	    x->f->home);
	snprintf(x->bridge, sizeof(x->bridge),
	    "%s/run/bridge-broker/bridge.sock", x->f->home);
	memset(&sc, 0, sizeof(sc));
	sc.broker_socket = x->broker;
	sc.admin_socket = x->admin;
	sc.bridge_socket = x->bridge;
	sc.broker = x->f->broker;
	sc.max_connections = max_connections;
	sc.max_calls = max_calls;
	sc.read_timeout_ms = read_timeout_ms;
	sc.wait_budget = wait_budget;
	sc.worker_idle_ms = worker_idle_ms;
	sc.stop_fd = -1;
	if ((x->s = serve_new(&sc, &err)) == NULL)
		fail_msg("serve_new: %s", err.msg);
	assert_int_equal(pthread_create(&x->thread, NULL, serve_thread, x), 0);
	return x;
}

static struct sfix *
start(int64_t ttl_ms, size_t max_connections, size_t max_calls,
    int read_timeout_ms)
{
	return start_budget(ttl_ms, max_connections, max_calls,
	    read_timeout_ms, 0, 0);
}

static void
stop(struct sfix *x)
{
	struct stat st;

	serve_stop(x->s);
	pthread_join(x->thread, NULL);
	assert_int_equal(x->rc, 0);
	/* Stopped: the sockets are gone. */
	assert_int_equal(stat(x->broker, &st), -1);
	assert_int_equal(stat(x->admin, &st), -1);
	assert_int_equal(stat(x->bridge, &st), -1);
	serve_free(x->s);
	bfix_free(x->f);
	free(x);
}

static void
send_text(int fd, const char *text)
{
	assert_int_equal(bx_frame_write(fd, text, strlen(text), WAIT_MS, NULL),
	    BX_FRAME_OK);
}

static void
expect_error(struct bx_msg *m, enum bx_code code)
{
	assert_int_equal(m->kind, BX_MSG_ERROR);
	if (m->error.code != code)
		fail_msg("error %s, want %s: %s", bx_code_name(m->error.code),
		    bx_code_name(code), m->error.message);
	bx_msg_free(m);
}

/*
 * Opens a call on broker.sock that waits for the owner (read_file under
 * /notes is ask); returns its pending answer (the caller frees it), with
 * the connection in *ret_fd and its reader in r.
 */
static struct bx_msg *
call_waiting(struct sfix *x, const char *session, const char *call,
    struct bx_frame_reader *r, int *ret_fd)
{
	struct bx_msg *m;
	int fd = dial(x->broker);

	bx_frame_reader_init(r, fd);
	send_msg(fd, bx_msg_tool_request(session, call, "read_file",
	    "{\"path\":\"/notes/a\"}"));
	m = next_frame(r);
	assert_int_equal(m->kind, BX_MSG_TOOL_RESPONSE);
	assert_int_equal(m->tool_response.status, BX_STATUS_PENDING_APPROVAL);
	*ret_fd = fd;
	return m;
}

/* Waits (generously) until brokerd's waiting connections hold want bytes. */
static size_t
wait_held(struct sfix *x, bool (*done)(size_t, size_t), size_t want)
{
	struct timespec t0, t;
	size_t held;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		held = serve_waiting_bytes(x->s);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (done(held, want) || t.tv_sec - t0.tv_sec >= WAIT_MS / 1000)
			return held;
		usleep(10 * 1000);
	}
}

static bool
at_least(size_t held, size_t want)
{
	return held >= want;
}

static bool
nothing(size_t held, size_t want)
{
	(void)want;
	return held == 0;
}

static void
test_modes(void **state)
{
	struct sfix *x = start(900000, 0, 0, 0);
	char dir[4096];
	struct stat st;

	(void)state;
	assert_int_equal(stat(x->broker, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(x->admin, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(x->bridge, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(dir, sizeof(dir), "%s/run/bridge-broker", x->f->home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(dir, sizeof(dir), "%s/run/loop-broker", x->f->home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(dir, sizeof(dir), "%s/run/owner-broker", x->f->home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(dir, sizeof(dir), "%s/run", x->f->home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	stop(x);
}

static void
test_admin_kinds_on_broker_sock_are_forbidden(void **state)
{
	struct sfix *x = start(900000, 0, 0, 0);
	struct bx_msg *reqs[8];
	const char *names[8] = { "approvals", "approve", "refuse",
	    "check_grants", "sessions", "explain", "status", "list_grants" };
	char want[256];
	int i;

	(void)state;
	reqs[0] = bx_msg_new(BX_MSG_APPROVALS);
	reqs[1] = bx_msg_approve(0);
	reqs[2] = bx_msg_refuse(0, "x");
	reqs[3] = bx_msg_new(BX_MSG_CHECK_GRANTS);
	reqs[4] = bx_msg_new(BX_MSG_SESSIONS);
	reqs[5] = bx_msg_explain("s1", "read_file", "{\"path\":\"/docs/a\"}");
	reqs[6] = bx_msg_new(BX_MSG_STATUS);
	reqs[7] = bx_msg_new(BX_MSG_LIST_GRANTS);
	for (i = 0; i < 8; i++) {
		expect_error(one(x->broker, reqs[i]), BX_CODE_FORBIDDEN);
		snprintf(want, sizeof(want), "a %s message on broker.sock (%s)",
		    names[i], x->broker);
		if (!bfix_logged(x->f, want))
			fail_msg("nothing printed like \"%s\"", want);
	}
	assert_true(bfix_logged(x->f, "see docs/runbook.md#socket-forbidden"));
	stop(x);
}

/* The console's kinds are answered on admin.sock, over a connection. */
static void
test_console_kinds_on_admin_sock(void **state)
{
	struct sfix *x = start(900000, 0, 0, 0);
	struct bx_msg *m;

	(void)state;
	m = one(x->admin, bx_msg_new(BX_MSG_STATUS));
	assert_int_equal(m->kind, BX_MSG_BROKER_STATUS);
	bx_msg_free(m);
	m = one(x->admin, bx_msg_new(BX_MSG_SESSIONS));
	assert_int_equal(m->kind, BX_MSG_SESSION_LIST);
	bx_msg_free(m);
	m = one(x->admin, bx_msg_new(BX_MSG_LIST_GRANTS));
	assert_int_equal(m->kind, BX_MSG_GRANT_LIST);
	assert_int_equal(m->grant_list.ngrants, 2);
	bx_msg_free(m);
	m = one(x->admin, bx_msg_explain("s1", "read_file",
	    "{\"path\":\"/docs/a\"}"));
	assert_int_equal(m->kind, BX_MSG_EXPLANATION);
	assert_int_equal(m->explanation.outcome.kind, BX_OUTCOME_ALLOWED);
	bx_msg_free(m);
	stop(x);
}

static void
test_tool_request_on_admin_sock_is_forbidden(void **state)
{
	struct sfix *x = start(900000, 0, 0, 0);
	char want[256];

	(void)state;
	expect_error(one(x->admin, bx_msg_tool_request("s1", "c1", "read_file",
	    "{\"path\":\"/docs/a\"}")), BX_CODE_FORBIDDEN);
	snprintf(want, sizeof(want), "a tool_request message on admin.sock "
	    "(%s) is forbidden", x->admin);
	assert_true(bfix_logged(x->f, want));
	/* Nothing was decided for it. */
	assert_false(bfix_audit_contains(x->f, "read_file"));
	assert_int_equal(recording_count(&x->f->rec), 0);
	stop(x);
}

static void
test_a_call_and_an_approval_over_the_sockets(void **state)
{
	struct sfix *x = start(900000, 0, 0, 0);
	struct bx_frame_reader r;
	struct bx_msg *m;
	uint64_t id;
	int fd;

	(void)state;
	m = one(x->broker, bx_msg_tool_request("s1", "c1", "read_file",
	    "{\"path\":\"/docs/a\"}"));
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	assert_string_equal(m->tool_response.content, "content");
	bx_msg_free(m);

	m = call_waiting(x, "s1", "c2", &r, &fd);
	id = m->tool_response.approval;
	bx_msg_free(m);
	m = one(x->admin, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->approval_list.nitems, 1);
	assert_int_equal(m->approval_list.items[0].approval, id);
	bx_msg_free(m);
	m = one(x->admin, bx_msg_approve(id));
	assert_int_equal(m->kind, BX_MSG_APPROVE_RESULT);
	assert_int_equal(m->approve_result.kind, BX_OUTCOME_ASK);
	bx_msg_free(m);
	/* Told it runs, before its result. */
	m = next_frame(&r);
	assert_int_equal(m->tool_response.status, BX_STATUS_APPROVED);
	bx_msg_free(m);
	m = next_frame(&r);
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	bx_msg_free(m);
	expect_closed(&r);
	bx_frame_reader_free(&r);
	close(fd);
	expect_error(one(x->admin, bx_msg_approve(id)),
	    BX_CODE_NO_SUCH_APPROVAL);
	m = one(x->admin, bx_msg_new(BX_MSG_CHECK_GRANTS));
	assert_int_equal(m->grants_report.nproblems, 0);
	bx_msg_free(m);
	assert_int_equal(recording_count(&x->f->rec), 2);
	stop(x);
}

static void
test_the_expiry_thread_expires_approvals(void **state)
{
	struct sfix *x = start(100, 0, 0, 0);
	struct bx_frame_reader r;
	struct bx_msg *m;
	int fd;

	(void)state;
	m = call_waiting(x, "s1", "c1", &r, &fd);
	assert_int_equal(m->tool_response.expires, bfix_now(x->f) + 100);
	bx_msg_free(m);
	/* The thread checks once a second against the broker's clock. */
	bfix_set_now(x->f, bfix_now(x->f) + 100);
	m = next_frame(&r);
	assert_int_equal(m->tool_response.status, BX_STATUS_DENIED);
	assert_int_equal(m->tool_response.reason, BX_DENY_APPROVAL_EXPIRED);
	bx_msg_free(m);
	expect_closed(&r);
	bx_frame_reader_free(&r);
	close(fd);
	stop(x);
}

static void
test_a_closed_connection_abandons_its_approval(void **state)
{
	struct sfix *x = start(900000, 0, 0, 0);
	struct bx_frame_reader r;
	struct bx_chain_report *rep;
	struct timespec t0, t;
	struct bx_msg *m;
	int fd;

	(void)state;
	bx_msg_free(call_waiting(x, "s1", "c1", &r, &fd));
	assert_int_equal(approvals_pending(x->f->approvals), 1);
	bx_frame_reader_free(&r);
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(10 * 1000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (approvals_pending(x->f->approvals) > 0 &&
	    t.tv_sec - t0.tv_sec < WAIT_MS / 1000);
	assert_int_equal(approvals_pending(x->f->approvals), 0);
	m = one(x->admin, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->approval_list.nitems, 0);
	bx_msg_free(m);
	rep = bfix_verify(x->f);
	assert_int_equal(rep->records, 1);
	assert_int_equal(rep->nabandoned, 1);
	bx_chain_report_free(rep);
	stop(x);
}

static void
test_calls_past_the_bound_are_busy(void **state)
{
	struct sfix *x = start(900000, 0, 1, 0);
	struct bx_frame_reader r;
	struct bx_msg *m;
	int fd;

	(void)state;
	bx_msg_free(call_waiting(x, "s1", "c1", &r, &fd));
	/* The waiting call is the one call in progress. */
	expect_error(one(x->broker, bx_msg_tool_request("s2", "c2",
	    "read_file", "{\"path\":\"/docs/a\"}")), BX_CODE_BUSY);
	/* The owner is not locked out by busy tool calls. */
	m = one(x->admin, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->approval_list.nitems, 1);
	bx_msg_free(m);
	bx_frame_reader_free(&r);
	close(fd);
	stop(x);
}

/* Calls of different sessions waiting for the owner each hold a worker. */
static void
test_each_call_in_progress_has_its_own_worker(void **state)
{
	static const char *sessions[] = { "s1", "s2", "s3" };
	struct sfix *x = start(900000, 0, 3, 0);
	struct bx_frame_reader r[3];
	struct bx_msg *m;
	int fd[3], i;

	(void)state;
	for (i = 0; i < 3; i++)
		bx_msg_free(call_waiting(x, sessions[i], "c1", &r[i], &fd[i]));
	expect_error(one(x->broker, bx_msg_tool_request("s4", "c1",
	    "read_file", "{\"path\":\"/docs/a\"}")), BX_CODE_BUSY);
	m = one(x->admin, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->approval_list.nitems, 3);
	bx_msg_free(m);
	for (i = 0; i < 3; i++) {
		bx_frame_reader_free(&r[i]);
		close(fd[i]);
	}
	stop(x);
}

/* How many threads this process has now. */
static int
threads_now(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Waits (generously) until this process has fewer than n threads. */
static int
wait_threads_below(int n)
{
	int i, now = threads_now();

	for (i = 0; now >= n && i < WAIT_MS / 10; i++) {
		usleep(10 * 1000);
		now = threads_now();
	}
	return now;
}

static void
test_an_idle_worker_ends_and_a_new_one_starts(void **state)
{
	struct sfix *x = start_budget(900000, 0, 0, 0, 0, 50);
	struct bx_msg *m;
	int busy, round;

	(void)state;
	for (round = 0; round < 2; round++) {
		m = one(x->broker, bx_msg_tool_request("s1", round == 0 ?
		    "c1" : "c2", "read_file", "{\"path\":\"/docs/a\"}"));
		assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
		bx_msg_free(m);
		busy = threads_now();
		assert_true(wait_threads_below(busy) < busy);
	}
	assert_int_equal(recording_count(&x->f->rec), 2);
	stop(x);
}

/* Connects to path and expects error busy, then the connection closed. */
static void
expect_busy(const char *path)
{
	struct bx_frame_reader r;
	int fd = dial(path);

	bx_frame_reader_init(&r, fd);
	expect_error(next_frame(&r), BX_CODE_BUSY);
	expect_closed(&r);
	bx_frame_reader_free(&r);
	close(fd);
}

static void
test_connections_past_the_bound_are_busy(void **state)
{
	struct sfix *x = start(900000, 2, 0, 0);
	int a, c;

	(void)state;
	/*
	 * Each held connection sends a byte of a frame: once the server holds
	 * a first buffer for it, it has counted it. Waiting for that, not for
	 * an answer on another connection (whose thread may not have given
	 * its slot back yet), makes the next one the one past the bound.
	 */
	a = dial(x->broker);
	send_text(a, "{");
	assert_int_equal(wait_held(x, at_least, BX_FRAME_INITIAL),
	    BX_FRAME_INITIAL);
	/* Of 2, broker.sock may hold 1: the other is kept for the owner. */
	expect_busy(x->broker);
	c = dial(x->admin);
	send_text(c, "{");
	assert_int_equal(wait_held(x, at_least, 2 * BX_FRAME_INITIAL),
	    2 * BX_FRAME_INITIAL);
	/* admin.sock may use every slot, and past them is busy too. */
	expect_busy(x->admin);
	close(c);
	close(a);
	stop(x);
}

static void
test_a_silent_or_half_frame_client_is_dropped(void **state)
{
	struct sfix *x = start(900000, 0, 0, 200);
	struct bx_frame_reader r1, r2;
	int quiet, half;

	(void)state;
	quiet = dial(x->broker);
	half = dial(x->admin);
	send_text(half, "{\"kind\":\"appro");
	bx_frame_reader_init(&r1, quiet);
	bx_frame_reader_init(&r2, half);
	expect_closed(&r1);
	expect_closed(&r2);
	bx_frame_reader_free(&r1);
	bx_frame_reader_free(&r2);
	close(quiet);
	close(half);
	/* And the server still answers. */
	bx_msg_free(one(x->admin, bx_msg_new(BX_MSG_APPROVALS)));
	stop(x);
}

static void
test_too_large_and_bad_frames(void **state)
{
	struct sfix *x = start(900000, 0, 0, 0);
	struct bx_frame_reader r;
	char *big;
	int fd;

	(void)state;
	fd = dial(x->broker);
	bx_frame_reader_init(&r, fd);
	assert_non_null(big = malloc(BX_FRAME_MAX + 16));
	memset(big, 'x', BX_FRAME_MAX + 16);
	/* Written raw: the frame writer itself refuses frames this long. */
	assert_true(send(fd, big, BX_FRAME_MAX + 16, MSG_NOSIGNAL) > 0 ||
	    errno == EPIPE || errno == ECONNRESET);
	free(big);
	expect_error(next_frame(&r), BX_CODE_FRAME_TOO_LARGE);
	bx_frame_reader_free(&r);
	close(fd);

	fd = dial(x->admin);
	bx_frame_reader_init(&r, fd);
	send_text(fd, "{\"kind\":\"approvals\",\"extra\":1}\n");
	expect_error(next_frame(&r), BX_CODE_BAD_REQUEST);
	expect_closed(&r);
	bx_frame_reader_free(&r);
	close(fd);
	stop(x);
}

#define HOGS		4
#define HOG_BYTES	(100 * 1024)
#define BUDGET		(256 * 1024)

static void
test_first_frame_buffers_are_bounded_in_total(void **state)
{
	struct sfix *x = start_budget(900000, 0, 0, 60000, BUDGET, 0);
	const size_t bound = (HOGS + 1) * BX_FRAME_INITIAL + BUDGET;
	struct bx_frame_reader r;
	struct bx_msg *m;
	char *hog, *args;
	int hogs[HOGS], big, i;
	size_t held;

	(void)state;
	/* Partial frames worth more than the budget, never finished. */
	assert_non_null(hog = malloc(HOG_BYTES));
	memset(hog, 'x', HOG_BYTES);
	for (i = 0; i < HOGS; i++) {
		hogs[i] = dial(x->broker);
		assert_int_equal(send(hogs[i], hog, HOG_BYTES, MSG_NOSIGNAL),
		    HOG_BYTES);
	}
	free(hog);
	held = wait_held(x, at_least, BUDGET);
	if (held < BUDGET || held > bound)
		fail_msg("waiting connections hold %zu bytes; the budget is "
		    "%d, the bound %zu", held, BUDGET, bound);
	/* A complete frame that needs more than its first buffer waits. */
	assert_non_null(args = malloc(3 * BX_FRAME_INITIAL));
	memset(args, 'a', 3 * BX_FRAME_INITIAL - 1);
	args[3 * BX_FRAME_INITIAL - 1] = '\0';
	big = dial(x->broker);
	send_msg(big, bx_msg_tool_request("s1", "c1", "read_file", args));
	free(args);
	/* A small one is still answered at once. */
	bx_msg_free(one(x->admin, bx_msg_new(BX_MSG_APPROVALS)));
	held = serve_waiting_bytes(x->s);
	if (held > bound)
		fail_msg("waiting connections hold %zu bytes, past %zu", held,
		    bound);
	/* The hogs hang up: the budget comes back and the big frame is read. */
	for (i = 0; i < HOGS; i++)
		close(hogs[i]);
	bx_frame_reader_init(&r, big);
	m = next_frame(&r);
	assert_int_equal(m->kind, BX_MSG_TOOL_RESPONSE);
	assert_int_equal(m->tool_response.status, BX_STATUS_DENIED);
	assert_int_equal(m->tool_response.reason, BX_DENY_INVALID_ARGUMENTS);
	bx_msg_free(m);
	expect_closed(&r);
	bx_frame_reader_free(&r);
	close(big);
	assert_int_equal(wait_held(x, nothing, 0), 0);
	stop(x);
}

/* Leaves a socket file at path with nothing listening on it. */
static void
stale_socket(const char *path)
{
	struct bx_unix_file made;
	struct bx_error err;
	int fd;

	assert_int_equal(bx_unix_listen(path, 1, 0, &fd, &made, &err), 0);
	close(fd);
}

static void
test_stale_sockets_are_replaced_and_files_kept(void **state)
{
	struct sfix *x = start(900000, 0, 0, 0);
	struct serve_config sc;
	struct serve *s;
	struct bx_error err;
	char dir[4096], b[4096], a[4096];
	FILE *fp;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/other", x->f->home);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(b, sizeof(b), "%s/b.sock", dir);
	snprintf(a, sizeof(a), "%s/a.sock", dir);
	stale_socket(b);
	stale_socket(a);
	memset(&sc, 0, sizeof(sc));
	sc.broker = x->f->broker;
	sc.stop_fd = -1;
	sc.broker_socket = b;
	sc.admin_socket = a;
	if ((s = serve_new(&sc, &err)) == NULL)
		fail_msg("serve_new over stale sockets: %s", err.msg);
	/* A live listener now: connecting to a stale one is refused. */
	fd = dial(b);
	close(fd);
	serve_free(s);
	assert_int_equal(access(b, F_OK), -1);

	/* Something that is not a socket is never removed. */
	assert_non_null(fp = fopen(a, "w"));
	fclose(fp);
	assert_null(serve_new(&sc, &err));
	assert_non_null(strstr(err.msg, "not a socket"));
	assert_int_equal(access(a, F_OK), 0);
	assert_int_equal(access(b, F_OK), -1);
	stop(x);
}

/* Runs fn in a child process (its limits are its own); 0 if it passed. */
static int
in_child(void (*fn)(void))
{
	pid_t pid;
	int status;

	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#define CHILD_CHECK(cond, code)	do { if (!(cond)) _exit(code); } while (0)

static void
fit_child(void)
{
	struct rlimit rl = { 100, 400 };

	/* The soft limit is raised as far as the hard one allows. */
	CHILD_CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, 1);
	CHILD_CHECK(serve_socket_fit(200) == 200, 2);
	CHILD_CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur == 200 + SERVE_FD_RESERVE, 3);
	CHILD_CHECK(serve_socket_fit(1024) == 400 - SERVE_FD_RESERVE, 4);
	rl.rlim_cur = rl.rlim_max = 50;
	CHILD_CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, 5);
	CHILD_CHECK(serve_socket_fit(1024) == 1, 6);
}

static void
test_connections_stay_below_the_descriptor_limit(void **state)
{
	(void)state;
	assert_int_equal(in_child(fit_child), 0);
}

static void
exhausted_child(void)
{
	struct rlimit rl = { 256, 256 };
	struct sfix *x;
	struct bx_frame_reader r;
	struct bx_msg *m;
	int hog[256], n = 0, fd, i;

	CHILD_CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, 1);
	x = start(900000, 0, 0, 0);
	/* Take every descriptor left but one, for the client's socket. */
	while (n < 256 && (hog[n] = open("/dev/null", O_RDONLY)) != -1)
		n++;
	CHILD_CHECK(n > 1, 2);
	close(hog[--n]);
	fd = dial(x->admin);
	send_msg(fd, bx_msg_new(BX_MSG_APPROVALS));
	/* brokerd cannot accept it now; once it can, it answers. */
	usleep(300 * 1000);
	for (i = 0; i < n; i++)
		close(hog[i]);
	bx_frame_reader_init(&r, fd);
	m = next_frame(&r);
	CHILD_CHECK(m->kind == BX_MSG_APPROVAL_LIST, 3);
	bx_msg_free(m);
	bx_frame_reader_free(&r);
	close(fd);
	stop(x);
}

static void
test_out_of_descriptors_it_waits_and_recovers(void **state)
{
	(void)state;
	assert_int_equal(in_child(exhausted_child), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_admin_kinds_on_broker_sock_are_forbidden),
		cmocka_unit_test(test_tool_request_on_admin_sock_is_forbidden),
		cmocka_unit_test(test_console_kinds_on_admin_sock),
		cmocka_unit_test(test_a_call_and_an_approval_over_the_sockets),
		cmocka_unit_test(test_the_expiry_thread_expires_approvals),
		cmocka_unit_test(test_a_closed_connection_abandons_its_approval),
		cmocka_unit_test(test_calls_past_the_bound_are_busy),
		cmocka_unit_test(test_each_call_in_progress_has_its_own_worker),
		cmocka_unit_test(test_an_idle_worker_ends_and_a_new_one_starts),
		cmocka_unit_test(test_connections_past_the_bound_are_busy),
		cmocka_unit_test(test_a_silent_or_half_frame_client_is_dropped),
		cmocka_unit_test(test_too_large_and_bad_frames),
		cmocka_unit_test(
		    test_first_frame_buffers_are_bounded_in_total),
		cmocka_unit_test(test_stale_sockets_are_replaced_and_files_kept),
		cmocka_unit_test(
		    test_connections_stay_below_the_descriptor_limit),
		cmocka_unit_test(test_out_of_descriptors_it_waits_and_recovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
