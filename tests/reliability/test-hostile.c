/*
 * test-hostile.c: hostile clients against the real brokerd, one kind after
 * another on the same daemon: 1,000 idle connections, half frames, a frame
 * of 1 MiB + 1, invalid UTF-8, JSON nested 10,000 deep (as the frame and as
 * a call's arguments), clients that never read their answer, clients that
 * disconnect while their call waits for approval, and many clients holding
 * almost a whole frame each (past serve's budget for buffered first frames,
 * brokerd stops reading them). During each, a well-behaved client must still
 * be answered on broker.sock and the owner on admin.sock: within
 * HOSTILE_ANSWER_MS (generous, since the test must not depend on the
 * machine's speed; the real latencies are printed). brokerd's peak
 * resident memory (VmHWM) is printed after each and must stay under
 * HOSTILE_RSS_MAX_KIB. At the end every hostile connection must have been
 * closed by brokerd itself within its first-frame deadline, its
 * descriptors must be back where they started, and its threads no more
 * than at the start (workers idle since the warm-up may have ended).
 *
 *	HOSTILE_HOLDERS		clients holding 1 MiB - 1 each (default 64)
 */
#include <sys/resource.h>
#include <sys/socket.h>
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
#include <unistd.h>
#include <cmocka.h>

#include "brokerd/serve.h"
#include "harness.h"

#define HOSTILE_IDLE		1000
#define HOSTILE_HALF		50
#define HOSTILE_NONREADERS	50
#define HOSTILE_ABANDONERS	20
#define HOSTILE_HOLDERS_DEFAULT	64
#define HOSTILE_NEST		10000
/* A well-behaved client's answer, generously (measured: milliseconds). */
#define HOSTILE_ANSWER_MS	5000
/* Samples of the well-behaved client per scenario. */
#define HOSTILE_SAMPLES		5
/*
 * brokerd's peak RSS must stay under the bound serve promises: each waiting
 * connection's first buffer, the shared budget for larger ones, a frame per
 * thread (calls and admin requests), and 64 MiB for the program itself.
 */
#define HOSTILE_RSS_MAX_KIB	(HOSTILE_RSS_FACTOR * \
	((long)(SERVE_MAX_CONNECTIONS * BX_FRAME_INITIAL + SERVE_WAIT_BUDGET + \
	(SERVE_MAX_CALLS + SERVE_MAX_ADMIN_CALLS) * (long)BX_FRAME_MAX) / \
	1024 + 64 * 1024))
/*
 * A sanitized build (make check-sanitize) keeps shadow memory and state
 * for every live thread besides the program's own: TSan's documentation
 * says 5 to 10 times. The bound is the plain build's, checked by make
 * check; under a sanitizer it is only kept from growing without limit.
 */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define HOSTILE_RSS_FACTOR	4
#else
#define HOSTILE_RSS_FACTOR	1
#endif
/* brokerd closes a connection without a whole first frame within 10 s. */
#define HOSTILE_CLOSE_MS	20000

struct hostile {
	struct rh_home	 h_home;
	int		*h_fds;		/* hostile connections left open */
	size_t		 h_nfds;
	size_t		 h_capfds;
	long		 h_base_fds;	/* brokerd's descriptors when idle */
	long		 h_base_threads;
	int64_t		 h_worst_ms;
	unsigned	 h_calls;
};

static struct hostile *H;

static void
keep(struct hostile *h, int fd)
{
	if (h->h_nfds == h->h_capfds) {
		h->h_capfds = h->h_capfds == 0 ? 2048 : h->h_capfds * 2;
		assert_non_null(h->h_fds = realloc(h->h_fds,
		    h->h_capfds * sizeof(*h->h_fds)));
	}
	h->h_fds[h->h_nfds++] = fd;
}

static long
count_dir(const char *fmt, pid_t pid)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), fmt, (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int64_t	good_client(struct hostile *, const char *);

static int
setup(void **state)
{
	struct rlimit rl;
	struct hostile *h;

	/* 1,000 idle connections and more need the descriptors. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 4096) {
		rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    rh_home_make(&h->h_home, 60000) == -1 ||
	    rh_start(&h->h_home, NULL) == -1)
		return -1;
	/* One call first: OpenSSL opens /dev/urandom once, on first use. */
	good_client(h, "warm-up");
	rh_sleep_ms(200);
	h->h_base_fds = count_dir("/proc/%ld/fd", h->h_home.brokerd);
	h->h_base_threads = count_dir("/proc/%ld/task", h->h_home.brokerd);
	*state = H = h;
	return 0;
}

static int
teardown(void **state)
{
	struct hostile *h = *state;
	size_t i;

	for (i = 0; i < h->h_nfds; i++)
		close(h->h_fds[i]);
	free(h->h_fds);
	rh_home_remove(&h->h_home);
	free(h);
	return 0;
}

/* A well-behaved loopd call and owner request; the slower, in ms. */
static int64_t
good_client(struct hostile *h, const char *scenario)
{
	struct rh_answer a;
	struct rh_call c;
	struct bx_msg *ans;
	char call[32];
	int64_t start, worst = 0, took;
	int i;

	for (i = 0; i < HOSTILE_SAMPLES; i++) {
		snprintf(call, sizeof(call), "good-%u", h->h_calls++);
		start = rh_now_ms();
		if (rh_call_start(&c, h->h_home.broker, "good", call,
		    RH_ARGS_DENY) == -1)
			fail_msg("%s: the good client cannot connect", scenario);
		if (rh_call_next(&c, HOSTILE_ANSWER_MS, &a) != RH_FINAL ||
		    a.a_reason != BX_DENY_DENIED_BY_GRANT)
			fail_msg("%s: the good client was not answered "
			    "(%s)", scenario, a.a_got == RH_ERROR ?
			    a.a_message : "no answer in time");
		rh_call_close(&c);
		took = rh_now_ms() - start;
		worst = took > worst ? took : worst;
		start = rh_now_ms();
		if (rh_admin(h->h_home.admin, bx_msg_new(BX_MSG_APPROVALS),
		    &ans, HOSTILE_ANSWER_MS) == -1 ||
		    ans->kind != BX_MSG_APPROVAL_LIST)
			fail_msg("%s: the owner was not answered", scenario);
		bx_msg_free(ans);
		took = rh_now_ms() - start;
		worst = took > worst ? took : worst;
	}
	assert_true(worst < HOSTILE_ANSWER_MS);
	return worst;
}

static void
report(struct hostile *h, const char *scenario, int64_t worst)
{
	long hwm = rh_vm_kib(h->h_home.brokerd, "VmHWM");
	long rss = rh_vm_kib(h->h_home.brokerd, "VmRSS");

	h->h_worst_ms = worst > h->h_worst_ms ? worst : h->h_worst_ms;
	printf("hostile: %-42s good client answered in <= %3lld ms; brokerd "
	    "VmRSS %ld KiB, VmHWM %ld KiB\n", scenario, (long long)worst, rss,
	    hwm);
	assert_true(hwm > 0 && hwm < HOSTILE_RSS_MAX_KIB);
}

static int
dial(struct hostile *h, const char *path)
{
	int fd = rh_dial(path);

	if (fd == -1)
		fail_msg("connect %s: %s", path, strerror(errno));
	(void)h;
	return fd;
}

/* Sends len bytes, or as many as the kernel takes without waiting. */
static size_t
send_some(int fd, const char *buf, size_t len)
{
	size_t sent = 0;
	ssize_t n;

	while (sent < len) {
		n = send(fd, buf + sent, len - sent, MSG_NOSIGNAL |
		    MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	return sent;
}

static void
send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* brokerd closed it: that is its right */
		buf += n;
		len -= (size_t)n;
	}
}

/* The first frame brokerd answers on fd, decoded; NULL if none came. */
static struct bx_msg *
answer_of(int fd)
{
	struct bx_frame_reader r;
	struct bx_msg *m = NULL;
	const char *line;
	size_t len;

	bx_frame_reader_init(&r, fd);
	if (bx_frame_read(&r, RH_WAIT_MS, &line, &len, NULL) == BX_FRAME_OK)
		bx_msg_decode(line, len, &m, NULL);
	bx_frame_reader_free(&r);
	return m;
}

static void
expect_error(int fd, enum bx_code code, const char *what)
{
	struct bx_msg *m = answer_of(fd);

	if (m == NULL || m->kind != BX_MSG_ERROR || m->error.code != code)
		fail_msg("%s: not answered error %s", what, bx_code_name(code));
	bx_msg_free(m);
}

/*
 * Reads what comes on each of n connections (answers, errors) until brokerd
 * closes it, for at most ms in all; how many were still open then.
 */
static size_t
still_open(const int *fds, size_t n, int ms)
{
	int64_t until = rh_now_ms() + ms;
	struct pollfd pfd;
	char buf[4096];
	size_t i, open = 0;
	int left;

	for (i = 0; i < n; i++) {
		pfd.fd = fds[i];
		pfd.events = POLLIN;
		for (;;) {
			left = (int)(until - rh_now_ms());
			if (left <= 0 || poll(&pfd, 1, left) <= 0) {
				open++;
				break;
			}
			if (recv(fds[i], buf, sizeof(buf), 0) <= 0)
				break;
		}
	}
	return open;
}

/* 1,000 connections that send nothing, until brokerd drops them. */
static void
test_idle(void **state)
{
	struct hostile *h = *state;
	int64_t start = rh_now_ms();
	int fds[HOSTILE_IDLE];
	size_t i, open;

	for (i = 0; i < HOSTILE_IDLE; i++)
		fds[i] = dial(h, i % 10 == 0 ? h->h_home.admin :
		    h->h_home.broker);
	report(h, "1,000 idle connections", good_client(h, "idle"));
	open = still_open(fds, HOSTILE_IDLE, HOSTILE_CLOSE_MS);
	for (i = 0; i < HOSTILE_IDLE; i++)
		close(fds[i]);
	if (open > 0)
		fail_msg("%zu idle connections still open after %d ms", open,
		    HOSTILE_CLOSE_MS);
	printf("hostile: brokerd closed all 1,000 idle connections within "
	    "%lld ms of their opening\n", (long long)(rh_now_ms() - start));
	report(h, "after the idle ones were dropped", good_client(h,
	    "after idle"));
}

static void
test_half_frames(void **state)
{
	static const char half[] = "{\"kind\":\"tool_request\",\"session\":\"h\","
	    "\"call\":\"x\",\"tool\":\"read_fi";
	struct hostile *h = *state;
	size_t i;
	int fd;

	for (i = 0; i < HOSTILE_HALF; i++) {
		fd = dial(h, i % 2 == 0 ? h->h_home.broker : h->h_home.admin);
		send_all(fd, half, sizeof(half) - 1);
		keep(h, fd);
	}
	report(h, "50 half frames", good_client(h, "half frames"));
}

static void
test_frame_too_large(void **state)
{
	struct hostile *h = *state;
	size_t len = BX_FRAME_MAX + 1;
	char *big;
	int fd;

	assert_non_null(big = malloc(len + 1));
	memset(big, 'a', len);
	big[len] = '\n';
	fd = dial(h, h->h_home.broker);
	send_all(fd, big, len + 1);
	expect_error(fd, BX_CODE_FRAME_TOO_LARGE, "a frame of 1 MiB + 1");
	close(fd);
	free(big);
	report(h, "a frame of 1 MiB + 1", good_client(h, "1 MiB + 1"));
}

static void
test_invalid_utf8(void **state)
{
	static const char bad[] = "{\"kind\":\"tool_request\",\"session\":\"u\","
	    "\"call\":\"\xff\xfe\",\"tool\":\"read_file\",\"arguments\":\"{}\"}\n";
	static const char bad_args[] = "{\"kind\":\"tool_request\","
	    "\"session\":\"u\",\"call\":\"u1\",\"tool\":\"read_file\","
	    "\"arguments\":\"{\\\"path\\\":\\\"/docs/\xc3\x28\\\"}\"}\n";
	struct hostile *h = *state;
	int fd;

	fd = dial(h, h->h_home.broker);
	send_all(fd, bad, sizeof(bad) - 1);
	expect_error(fd, BX_CODE_BAD_REQUEST, "invalid UTF-8 in a frame");
	close(fd);
	fd = dial(h, h->h_home.broker);
	send_all(fd, bad_args, sizeof(bad_args) - 1);
	expect_error(fd, BX_CODE_BAD_REQUEST, "invalid UTF-8 in arguments");
	close(fd);
	report(h, "invalid UTF-8", good_client(h, "invalid UTF-8"));
}

/* 10,000 brackets deep, as the frame itself and inside a call's arguments. */
static void
test_nested(void **state)
{
	struct hostile *h = *state;
	struct rh_answer a;
	struct rh_call c;
	size_t i, n = 0;
	char *buf;
	int fd;

	assert_non_null(buf = malloc(2 * HOSTILE_NEST + 2));
	for (i = 0; i < HOSTILE_NEST; i++)
		buf[n++] = '[';
	for (i = 0; i < HOSTILE_NEST; i++)
		buf[n++] = ']';
	buf[n++] = '\n';
	fd = dial(h, h->h_home.broker);
	send_all(fd, buf, n);
	expect_error(fd, BX_CODE_BAD_REQUEST, "JSON nested 10,000 deep");
	close(fd);
	/* As arguments: a valid frame whose arguments text is that deep. */
	buf[n - 1] = '\0';
	assert_int_equal(rh_call_start(&c, h->h_home.broker, "nest", "n1",
	    buf), 0);
	if (rh_call_next(&c, RH_WAIT_MS, &a) != RH_FINAL ||
	    a.a_status != BX_STATUS_DENIED ||
	    a.a_reason != BX_DENY_INVALID_ARGUMENTS)
		fail_msg("arguments nested 10,000 deep: not denied "
		    "invalid_arguments");
	rh_call_close(&c);
	free(buf);
	report(h, "JSON nested 10,000 deep", good_client(h, "nested"));
}

/*
 * The allowed calls of the never-readers share one session, so brokerd runs
 * them one at a time and, on a loaded machine, some are still in progress
 * when the next case starts; counted with that case's calls they would pass
 * the bound of 64 calls and be answered busy. Their Result records on disk
 * say they are done.
 */
static void
wait_never_read_results(struct hostile *h)
{
	struct rh_log log;
	char call[32];
	int64_t until = rh_now_ms() + RH_WAIT_MS;
	size_t i, done;

	do {
		assert_int_equal(rh_log_read(h->h_home.dir, &log), 0);
		for (i = 0, done = 0; i < HOSTILE_NONREADERS; i += 2) {
			snprintf(call, sizeof(call), "nr-%zu", i);
			done += rh_log_find(&log, BX_AUDIT_RESULT, "never",
			    call) != NULL;
		}
		rh_log_free(&log);
		if (done == (HOSTILE_NONREADERS + 1) / 2)
			return;
		rh_sleep_ms(20);
	} while (rh_now_ms() < until);
	fail_msg("only %zu of the never-readers' allowed calls have a Result "
	    "record", done);
}

/* Clients that send a call and never read a byte of the answer. */
static void
test_never_read(void **state)
{
	struct hostile *h = *state;
	struct bx_msg *req;
	char call[32];
	int fd, rcv = 1;
	size_t i;

	for (i = 0; i < HOSTILE_NONREADERS; i++) {
		fd = dial(h, h->h_home.broker);
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
		snprintf(call, sizeof(call), "nr-%zu", i);
		assert_non_null(req = bx_msg_tool_request("never", call,
		    "read_file", i % 2 == 0 ? RH_ARGS_ALLOW : RH_ARGS_ASK));
		assert_int_equal(bx_msg_send(fd, req, RH_WAIT_MS, NULL), 0);
		bx_msg_free(req);
		keep(h, fd);
	}
	report(h, "50 clients never reading their answer",
	    good_client(h, "never read"));
	wait_never_read_results(h);
}

/* The pending approvals of session, from admin.sock. */
static size_t
pending_of(struct hostile *h, const char *session)
{
	struct bx_msg *ans;
	size_t i, n = 0;

	assert_int_equal(rh_admin(h->h_home.admin,
	    bx_msg_new(BX_MSG_APPROVALS), &ans, RH_WAIT_MS), 0);
	assert_int_equal(ans->kind, BX_MSG_APPROVAL_LIST);
	for (i = 0; i < ans->approval_list.nitems; i++)
		n += strcmp(ans->approval_list.items[i].session, session) == 0;
	bx_msg_free(ans);
	return n;
}

/* Clients that hang up while their call waits for approval. */
static void
test_abandon(void **state)
{
	struct hostile *h = *state;
	struct rh_answer a;
	struct rh_call c[HOSTILE_ABANDONERS];
	struct rh_log log;
	char call[32];
	int64_t until;
	size_t i;

	for (i = 0; i < HOSTILE_ABANDONERS; i++) {
		snprintf(call, sizeof(call), "ab-%zu", i);
		assert_int_equal(rh_call_start(&c[i], h->h_home.broker, "gone",
		    call, RH_ARGS_ASK), 0);
		assert_int_equal(rh_call_next(&c[i], RH_WAIT_MS, &a),
		    RH_PENDING);
	}
	assert_int_equal(pending_of(h, "gone"), HOSTILE_ABANDONERS);
	for (i = 0; i < HOSTILE_ABANDONERS; i++)
		rh_call_close(&c[i]);
	until = rh_now_ms() + RH_WAIT_MS;
	while (pending_of(h, "gone") > 0 && rh_now_ms() < until)
		rh_sleep_ms(20);
	assert_int_equal(pending_of(h, "gone"), 0);
	/* Removed, and nothing written for them: no Approval record. */
	assert_int_equal(rh_log_read(h->h_home.dir, &log), 0);
	for (i = 0; i < HOSTILE_ABANDONERS; i++) {
		snprintf(call, sizeof(call), "ab-%zu", i);
		assert_non_null(rh_log_find(&log, BX_AUDIT_DECISION, "gone",
		    call));
		assert_null(rh_log_find(&log, BX_AUDIT_APPROVAL, "gone", call));
	}
	rh_log_free(&log);
	report(h, "20 clients gone mid-approval", good_client(h, "abandon"));
}

/*
 * Many clients each sending 1 MiB - 1 of a first frame: memory's bound.
 * Past serve's budget brokerd stops reading them, so each sends what the
 * kernel takes now and the test goes on; the bytes brokerd took are
 * printed.
 */
static void
test_holders(void **state)
{
	struct hostile *h = *state;
	const char *env = getenv("HOSTILE_HOLDERS");
	size_t holders, i, len = BX_FRAME_MAX - 1, sent = 0;
	char *big, label[96];
	int fd;

	holders = env != NULL ? strtoul(env, NULL, 10) :
	    HOSTILE_HOLDERS_DEFAULT;
	assert_non_null(big = malloc(len));
	memset(big, 'a', len);
	for (i = 0; i < holders; i++) {
		fd = dial(h, h->h_home.broker);
		sent += send_some(fd, big, len);
		keep(h, fd);
	}
	/* Time for brokerd to read what it will. */
	rh_sleep_ms(500);
	free(big);
	snprintf(label, sizeof(label), "%zu clients sending 1 MiB - 1 (%zu MiB "
	    "sent)", holders, sent >> 20);
	report(h, label, good_client(h, "holders"));
}

/* The owner refuses every approval of session, as bxctl refuse would. */
static void
refuse_all(struct hostile *h, const char *session)
{
	struct bx_msg *ans, *ok;
	size_t i;

	assert_int_equal(rh_admin(h->h_home.admin,
	    bx_msg_new(BX_MSG_APPROVALS), &ans, RH_WAIT_MS), 0);
	for (i = 0; i < ans->approval_list.nitems; i++) {
		if (strcmp(ans->approval_list.items[i].session, session) != 0)
			continue;
		assert_int_equal(rh_admin(h->h_home.admin, bx_msg_refuse(
		    ans->approval_list.items[i].approval, "hostile"), &ok,
		    RH_WAIT_MS), 0);
		bx_msg_free(ok);
	}
	bx_msg_free(ans);
}

/* Every hostile connection is closed by brokerd; nothing is left behind. */
static void
test_cleaned_up(void **state)
{
	struct hostile *h = *state;
	int64_t until;
	size_t i, n = h->h_nfds, open;
	long fds, threads;

	/* The never-readers' asks wait for the owner: the owner says no. */
	refuse_all(h, "never");
	open = still_open(h->h_fds, h->h_nfds, HOSTILE_CLOSE_MS);
	if (open > 0)
		fail_msg("%zu hostile connections still open after %d ms",
		    open, HOSTILE_CLOSE_MS);
	for (i = 0; i < h->h_nfds; i++)
		close(h->h_fds[i]);
	h->h_nfds = 0;
	until = rh_now_ms() + RH_WAIT_MS;
	do {
		rh_sleep_ms(50);
		fds = count_dir("/proc/%ld/fd", h->h_home.brokerd);
		threads = count_dir("/proc/%ld/task", h->h_home.brokerd);
	} while ((fds != h->h_base_fds || threads > h->h_base_threads) &&
	    rh_now_ms() < until);
	printf("hostile: the other %zu hostile connections closed by brokerd; "
	    "descriptors %ld (at start %ld), threads %ld (at start %ld); "
	    "slowest good answer %lld ms\n", n, fds, h->h_base_fds, threads,
	    h->h_base_threads, (long long)h->h_worst_ms);
	assert_int_equal(fds, h->h_base_fds);
	assert_true(threads <= h->h_base_threads);
	report(h, "after", good_client(h, "after"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_half_frames),
		cmocka_unit_test(test_frame_too_large),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_never_read),
		cmocka_unit_test(test_abandon),
		cmocka_unit_test(test_holders),
		cmocka_unit_test(test_cleaned_up),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
