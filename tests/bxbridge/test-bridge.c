/*
 * test-bridge.c: the bridge's core (src/bxbridge/bridge.h) between a
 * real brokerd, served in-process on its sockets (tests/brokerd/
 * served-fixture.h), and the fake Mattermost server, bridge_serve() on a
 * thread of its own connecting directly (no relay):
 *
 *	a pending approval becomes one post in the DM: its id, the tool and
 *	the arguments in a fenced block
 *	the owner's reaction approves (Approval record by the owner, post
 *	the request post; the call runs), a reply `refuse too risky`
 *	refuses with that reason; each post is patched to say so
 *	another user's reaction, the bot's own, a webhook's reply carrying
 *	the owner's id and a "yes" leave it pending
 *	the terminal answering first: the post says so, the owner's later
 *	reaction changes nothing
 *	expiry: the post says so
 *	429 once: the post is made after the wait; 401: state.json says
 *	token-refused with its runbook entry, and the terminal still works
 *	an owner the server does not know: not-found, likewise
 *	the server gone and back: the bridge posts once it is back
 *	a restarted bridge does not post again, answers and patches what
 *	the one before posted, and patches a post whose approval ended
 *	while it was down; a post of posts.json whose approval id brokerd
 *	now holds for another call is retired, not answered for it
 *
 * Every wait is for a condition, bounded by WAIT_MS, and fails naming it.
 */
#include <sys/stat.h>

#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>

#include "bxbridge/bridge.h"
#include "bxbridge/bridge_state.h"
#include "brokerd/approvals.h"
#include "fake_mm.h"
#include "mm_types.h"
#include "serve-client.h"
#include "served-fixture.h"

#define BOT		FAKE_MM_BOT_ID
#define OWNER		FAKE_MM_OWNER_ID
#define OTHER		"other000000000000000000000"
#define ARGS		"{\"path\":\"/notes/a\"}"
/* Generous: a round is one poll_s (1 s here). */
#define WAIT_S		30
#define WAIT_MS		(WAIT_S * 1000)
#define STR(x)		STR_(x)
#define STR_(x)		#x

struct tfix {
	struct served		*srv;
	struct fake_mm		*fm;
	struct bridge_config	 cfg;
	char			 url[64];
	char			 dir[64];
	pthread_t		 thread;
	bool			 running;
	int			 stop[2];
	int			 rc;
	struct bx_error		 err;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until cond holds, polling; fails saying what it waited for. */
#define WAIT_FOR(cond, ...) do {					\
	int64_t end_ = now_ms() + WAIT_MS;				\
	while (!(cond)) {						\
		if (now_ms() > end_) {					\
			show_state(t);					\
			fail_msg("waited " STR(WAIT_S) " s for "	\
			    __VA_ARGS__);				\
		}							\
		usleep(20000);						\
	}								\
} while (0)

struct tfix;
static void show_state(struct tfix *);

static void *
bridge_thread(void *arg)
{
	struct tfix *t = arg;

	t->rc = bridge_serve(&t->cfg, FAKE_MM_TOKEN, NULL, t->dir, getpid(),
	    t->stop[0], &t->err);
	return NULL;
}

static void
bridge_start(struct tfix *t)
{
	assert_int_equal(pipe(t->stop), 0);
	assert_int_equal(pthread_create(&t->thread, NULL, bridge_thread, t),
	    0);
	t->running = true;
}

/* Stops the bridge, which must have run without a fatal error. */
static void
bridge_stop(struct tfix *t)
{
	if (!t->running)
		return;
	assert_int_equal(write(t->stop[1], "x", 1), 1);
	pthread_join(t->thread, NULL);
	t->running = false;
	close(t->stop[0]);
	close(t->stop[1]);
	if (t->rc != 0)
		fail_msg("bridge_serve: %s", t->err.msg);
}

static int
setup(void **state)
{
	struct tfix *t = calloc(1, sizeof(*t));
	struct fake_mm_opts opts = { 0 };
	struct bfix *f;
	struct bx_error err;

	assert_non_null(t);
	f = bfix_new(900000, NULL);
	bfix_grant(f, "notes", "read_file", "ask", "private", "private",
	    false, "paths = [\"/notes\"]");
	/* Not jailed: bridge.sock serves brokerd's own uid, this test's. */
	t->srv = served_start(f, false, 0, 0);
	if (fake_mm_start(&opts, &t->fm, &err) == -1)
		fail_msg("fake_mm_start: %s", err.msg);
	fake_mm_url(t->fm, t->url, sizeof(t->url));
	snprintf(t->dir, sizeof(t->dir), "%s", "/tmp/test-bridge.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->cfg.bc_url = t->url;
	t->cfg.bc_token_file = "/nonexistent/token";
	t->cfg.bc_owner = OWNER;
	t->cfg.bc_poll_s = 1;
	t->cfg.bc_broker_socket = t->srv->bridge;
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	struct tfix *t = *state;
	char path[PATH_MAX];

	bridge_stop(t);
	fake_mm_stop(t->fm);
	served_stop(t->srv);
	snprintf(path, sizeof(path), "%s/state.json", t->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/posts.json", t->dir);
	unlink(path);
	rmdir(t->dir);
	free(t);
	return 0;
}

static struct bfix *
broker(struct tfix *t)
{
	return t->srv->f;
}

static void
ask(struct tfix *t, struct asked *a, const char *call)
{
	asked_start(broker(t), a, call, "read_file", ARGS);
}

/*
 * How many of the bot's request posts are there for approval id; the
 * first one's id into post (27 bytes) and message into *message (NULL
 * allowed; the caller frees it).
 */
static size_t
request_posts(struct tfix *t, uint64_t id, char *post, char **message)
{
	json_t *posts = fake_mm_posts(t->fm), *p;
	const char *pid, *text;
	char needle[64];
	size_t n = 0;

	snprintf(needle, sizeof(needle), "`bxctl approve %llu`",
	    (unsigned long long)id);
	json_object_foreach(posts, pid, p) {
		text = json_string_value(json_object_get(p, "message"));
		if (strcmp(json_string_value(json_object_get(p, "user_id")),
		    BOT) != 0 || text == NULL || strstr(text, needle) == NULL)
			continue;
		if (n++ == 0) {
			snprintf(post, 27, "%s", pid);
			if (message != NULL)
				*message = strdup(text);
		}
	}
	json_decref(posts);
	return n;
}

/* Waits for the one request post of approval id: its id into post. */
static void
wait_posted(struct tfix *t, uint64_t id, char *post)
{
	WAIT_FOR(request_posts(t, id, post, NULL) > 0,
	    "the request post of approval %llu", (unsigned long long)id);
	assert_int_equal(request_posts(t, id, post, NULL), 1);
}

/* Whether the post's message contains text. */
static bool
post_says(struct tfix *t, const char *post, const char *text)
{
	char *m = fake_mm_post_message(t->fm, post);
	bool yes = m != NULL && strstr(m, text) != NULL;

	free(m);
	return yes;
}

/* state.json's field key as text ("" if absent; null is "null"). */
static bool
state_is(struct tfix *t, const char *key, const char *want)
{
	char path[PATH_MAX], *text;
	json_t *o;
	bool yes;

	snprintf(path, sizeof(path), "%s/state.json", t->dir);
	if ((o = json_load_file(path, 0, NULL)) == NULL)
		return false;
	text = json_dumps(json_object_get(o, key), JSON_ENCODE_ANY);
	yes = text != NULL && strcmp(text, want) == 0;
	free(text);
	json_decref(o);
	return yes;
}

/* state.json as it is, for a failure's message. */
static void
show_state(struct tfix *t)
{
	char path[PATH_MAX];
	json_t *o;
	char *text;

	snprintf(path, sizeof(path), "%s/state.json", t->dir);
	o = json_load_file(path, 0, NULL);
	text = o != NULL ? json_dumps(o, 0) : NULL;
	print_error("state.json: %s\n", text != NULL ? text : "(none)");
	free(text);
	json_decref(o);
}

/* The number of API requests to path (exactly) received so far. */
static size_t
requests_to(struct tfix *t, const char *method, const char *path)
{
	size_t i, n = 0, count = fake_mm_request_count(t->fm);
	json_t *line;
	char *text;

	for (i = 0; i < count; i++) {
		if ((text = fake_mm_request(t->fm, i)) == NULL)
			continue;
		line = json_loads(text, 0, NULL);
		free(text);
		if (strcmp(json_string_value(json_object_get(line, "method")),
		    method) == 0 && strcmp(json_string_value(
		    json_object_get(line, "path")), path) == 0)
			n++;
		json_decref(line);
	}
	return n;
}

static size_t
thread_reads(struct tfix *t, const char *post)
{
	char path[128];

	snprintf(path, sizeof(path), "/api/v4/posts/%s/thread?perPage=%d", post,
	    MM_MAX_THREAD);
	return requests_to(t, "GET", path);
}

static size_t
records(struct tfix *t, uint64_t id)
{
	char by[64], post[64], reason[64];
	enum bx_answer answer;

	return approvals_of(broker(t), id, &answer, by, post, reason);
}

/* The terminal answers, as bxctl does, on admin.sock. */
static void
terminal(struct tfix *t, struct bx_msg *req, enum bx_msg_kind want)
{
	struct bx_msg *m = one(t->srv->admin, req);

	if (m->kind != want)
		fail_msg("admin.sock answered %s, want %s",
		    bx_msg_kind_name(m->kind), bx_msg_kind_name(want));
	bx_msg_free(m);
}

static void
wait_connected(struct tfix *t)
{
	WAIT_FOR(state_is(t, "mattermost", "\"connected\"") &&
	    state_is(t, "broker", "\"connected\""),
	    "state.json to say both sides are connected");
}

static void
test_pending_approval_becomes_one_post(void **state)
{
	struct tfix *t = *state;
	struct asked a;
	char post[27], dm[27], *message = NULL;
	char want[64];
	json_t *posts;

	bridge_start(t);
	wait_connected(t);
	assert_true(state_is(t, "runbook", "null"));
	ask(t, &a, "call_1");
	wait_posted(t, a.id, post);
	assert_int_equal(request_posts(t, a.id, post, &message), 1);
	print_message("the request post as the server received it:\n%s\n",
	    message);
	snprintf(want, sizeof(want), "approval %llu", (unsigned long long)a.id);
	assert_non_null(strstr(message, want));
	/* The tool and the arguments inside the fenced block. */
	assert_non_null(strstr(message, "```"));
	assert_true(strstr(message, "read_file") > strstr(message, "```"));
	assert_true(strstr(message, "/notes/a") > strstr(message, "```"));
	assert_true(strrchr(message, '`') > strstr(message, "/notes/a"));
	free(message);
	/* In the DM, as the bot, not a reply. */
	fake_mm_dm(t->fm, dm);
	posts = fake_mm_posts(t->fm);
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(posts, post), "channel_id")), dm);
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(posts, post), "root_id")), "");
	json_decref(posts);
	WAIT_FOR(state_is(t, "pending_posts", "1"),
	    "state.json to count one pending post");
	terminal(t, bx_msg_refuse(a.id, NULL), BX_MSG_OK);
	asked_done(&a, BX_STATUS_DENIED);
	WAIT_FOR(post_says(t, post, "**Refused** at the terminal (bxctl)"),
	    "the post patched: refused at the terminal");
	WAIT_FOR(state_is(t, "pending_posts", "0"),
	    "state.json to count no pending post");
}

static void
test_owner_reaction_approves(void **state)
{
	struct tfix *t = *state;
	struct asked a;
	char post[27];

	bridge_start(t);
	ask(t, &a, "call_1");
	wait_posted(t, a.id, post);
	assert_int_equal(fake_mm_react(t->fm, OWNER, post,
	    "white_check_mark"), 0);
	WAIT_FOR(records(t, a.id) == 1, "approval %llu's record",
	    (unsigned long long)a.id);
	asked_done(&a, BX_STATUS_RESULT);
	expect_record(broker(t), a.id, BX_ANSWER_APPROVED, OWNER, post,
	    "(null)");
	/* The call ran. */
	assert_int_equal(recording_count(&broker(t)->rec), 1);
	WAIT_FOR(post_says(t, post, "**Approved** here in Mattermost"),
	    "the post patched: approved in Mattermost");
	assert_int_equal(request_posts(t, a.id, post, NULL), 0);
}

static void
test_owner_reply_refuses_with_reason(void **state)
{
	struct tfix *t = *state;
	struct asked a;
	char post[27];

	bridge_start(t);
	ask(t, &a, "call_1");
	wait_posted(t, a.id, post);
	assert_int_equal(fake_mm_reply(t->fm, OWNER, post, "refuse too risky",
	    NULL, NULL, NULL), 0);
	WAIT_FOR(records(t, a.id) == 1, "approval %llu's record",
	    (unsigned long long)a.id);
	asked_done(&a, BX_STATUS_DENIED);
	expect_record(broker(t), a.id, BX_ANSWER_REFUSED, OWNER, post,
	    "too risky");
	assert_int_equal(recording_count(&broker(t)->rec), 0);
	WAIT_FOR(post_says(t, post, "**Refused** here in Mattermost") &&
	    post_says(t, post, "too risky"),
	    "the post patched: refused in Mattermost, with the reason");
}

static void
test_answers_that_do_not_count(void **state)
{
	struct tfix *t = *state;
	struct asked a;
	char post[27];
	size_t reads;

	bridge_start(t);
	assert_int_equal(fake_mm_add_user(t->fm, OTHER, "mallory", false), 0);
	ask(t, &a, "call_1");
	wait_posted(t, a.id, post);
	assert_int_equal(fake_mm_react(t->fm, OTHER, post, "white_check_mark"),
	    0);
	assert_int_equal(fake_mm_react(t->fm, BOT, post, "+1"), 0);
	assert_int_equal(fake_mm_reply(t->fm, OWNER, post, "approve",
	    "{\"from_webhook\": \"true\"}", NULL, NULL), 0);
	assert_int_equal(fake_mm_reply(t->fm, OWNER, post, "yes", NULL, NULL,
	    NULL), 0);
	/* Two more reads of the thread: the bridge saw them all. */
	reads = thread_reads(t, post);
	WAIT_FOR(thread_reads(t, post) >= reads + 2,
	    "two more reads of the post's thread");
	assert_int_equal(records(t, a.id), 0);
	assert_true(post_says(t, post, "`bxctl approve"));
	terminal(t, bx_msg_refuse(a.id, "no"), BX_MSG_OK);
	asked_done(&a, BX_STATUS_DENIED);
	expect_record(broker(t), a.id, BX_ANSWER_REFUSED, "bxctl", "(null)",
	    "no");
	WAIT_FOR(post_says(t, post, "**Refused** at the terminal (bxctl)"),
	    "the post patched: refused at the terminal");
}

static void
test_terminal_first(void **state)
{
	struct tfix *t = *state;
	struct asked a, b;
	char post[27], post_b[27];

	bridge_start(t);
	ask(t, &a, "call_1");
	wait_posted(t, a.id, post);
	terminal(t, bx_msg_approve(a.id), BX_MSG_APPROVE_RESULT);
	asked_done(&a, BX_STATUS_RESULT);
	WAIT_FOR(post_says(t, post, "**Approved** at the terminal (bxctl)"),
	    "the post patched: approved at the terminal");
	/* The owner's answer after it changes nothing. */
	assert_int_equal(fake_mm_react(t->fm, OWNER, post, "x"), 0);
	ask(t, &b, "call_2");
	wait_posted(t, b.id, post_b);
	assert_int_equal(fake_mm_react(t->fm, OWNER, post_b, "+1"), 0);
	WAIT_FOR(records(t, b.id) == 1, "approval %llu's record",
	    (unsigned long long)b.id);
	asked_done(&b, BX_STATUS_RESULT);
	expect_record(broker(t), a.id, BX_ANSWER_APPROVED, "bxctl", "(null)",
	    "(null)");
	assert_true(post_says(t, post, "**Approved** at the terminal (bxctl)"));
}

/*
 * The owner's answer read, the terminal answers before the bridge does:
 * the bridge's answer is no_such_approval, which harms nothing.
 */
static void
test_terminal_wins_the_race(void **state)
{
	struct tfix *t = *state;
	struct asked a, b;
	char post[27], post_b[27], path[128];

	bridge_start(t);
	ask(t, &a, "call_1");
	wait_posted(t, a.id, post);
	/*
	 * The bridge is held reading the thread, which holds the owner's
	 * approval once it is answered.
	 */
	snprintf(path, sizeof(path), "/api/v4/posts/%s/thread", post);
	fake_mm_hold(t->fm, path);
	assert_int_equal(fake_mm_reply(t->fm, OWNER, post, "approve", NULL,
	    NULL, NULL), 0);
	WAIT_FOR(fake_mm_holding(t->fm),
	    "the bridge to read approval %llu's thread",
	    (unsigned long long)a.id);
	terminal(t, bx_msg_refuse(a.id, "first"), BX_MSG_OK);
	asked_done(&a, BX_STATUS_DENIED);
	fake_mm_hold(t->fm, NULL);
	WAIT_FOR(post_says(t, post, "**Refused** at the terminal (bxctl)"),
	    "the post patched: refused at the terminal");
	expect_record(broker(t), a.id, BX_ANSWER_REFUSED, "bxctl", "(null)",
	    "first");
	/* Nothing went wrong, and the bridge goes on. */
	assert_true(state_is(t, "last_error", "null"));
	ask(t, &b, "call_2");
	wait_posted(t, b.id, post_b);
	assert_int_equal(fake_mm_react(t->fm, OWNER, post_b, "-1"), 0);
	WAIT_FOR(records(t, b.id) == 1, "approval %llu's record",
	    (unsigned long long)b.id);
	asked_done(&b, BX_STATUS_DENIED);
	expect_record(broker(t), b.id, BX_ANSWER_REFUSED, OWNER, post_b,
	    "(null)");
}

static void
test_expiry_patches_the_post(void **state)
{
	struct tfix *t = *state;
	struct asked a;
	char post[27];

	bridge_start(t);
	ask(t, &a, "call_1");
	wait_posted(t, a.id, post);
	assert_int_equal(approvals_expire(broker(t)->approvals, INT64_MAX), 1);
	asked_done(&a, BX_STATUS_DENIED);
	WAIT_FOR(post_says(t, post, "**Expired** unanswered"),
	    "the post patched: expired");
}

static void
test_rate_limited_then_posts(void **state)
{
	struct tfix *t = *state;
	struct asked a;
	char post[27];

	bridge_start(t);
	wait_connected(t);
	fake_mm_fail(t->fm, FAKE_MM_FAIL_RATE, 1, 1);
	ask(t, &a, "call_1");
	wait_posted(t, a.id, post);
	/* Two tries at the post: the 429, then the one made. */
	assert_int_equal(requests_to(t, "POST", "/api/v4/posts"), 2);
	WAIT_FOR(state_is(t, "mattermost", "\"connected\""),
	    "state.json to say connected again");
	assert_true(state_is(t, "runbook", "null"));
	terminal(t, bx_msg_refuse(a.id, NULL), BX_MSG_OK);
	asked_done(&a, BX_STATUS_DENIED);
	WAIT_FOR(post_says(t, post, "**Refused**"), "the post patched");
}

static void
test_token_refused(void **state)
{
	struct tfix *t = *state;
	struct asked a;

	fake_mm_fail(t->fm, FAKE_MM_FAIL_401, 1000, 0);
	bridge_start(t);
	WAIT_FOR(state_is(t, "mattermost", "\"token-refused\"") &&
	    state_is(t, "runbook", "\"" BRIDGE_RUNBOOK_TOKEN "\""),
	    "state.json to say token-refused with its runbook entry");
	assert_false(state_is(t, "last_error", "null"));
	assert_false(state_is(t, "last_error_at", "null"));
	/* The terminal works on. */
	ask(t, &a, "call_1");
	terminal(t, bx_msg_approve(a.id), BX_MSG_APPROVE_RESULT);
	asked_done(&a, BX_STATUS_RESULT);
	expect_record(broker(t), a.id, BX_ANSWER_APPROVED, "bxctl", "(null)",
	    "(null)");
	/* Only the first try: the next is a minute away. */
	assert_int_equal(requests_to(t, "GET", "/api/v4/users/me"), 1);
}

/* An owner the server does not know: not-found, the terminal works on. */
static void
test_owner_not_found(void **state)
{
	struct tfix *t = *state;
	struct asked a;

	t->cfg.bc_owner = "nobody00000000000000000000";
	bridge_start(t);
	WAIT_FOR(state_is(t, "mattermost", "\"not-found\"") &&
	    state_is(t, "runbook", "\"" BRIDGE_RUNBOOK_OWNER "\"") &&
	    state_is(t, "broker", "\"connected\""),
	    "state.json to say not-found with its runbook entry");
	ask(t, &a, "call_1");
	terminal(t, bx_msg_approve(a.id), BX_MSG_APPROVE_RESULT);
	asked_done(&a, BX_STATUS_RESULT);
	assert_int_equal(requests_to(t, "POST", "/api/v4/posts"), 0);
}

static void
test_server_gone_and_back(void **state)
{
	struct tfix *t = *state;
	struct asked a;
	struct bx_error err;
	char post[27];

	bridge_start(t);
	wait_connected(t);
	fake_mm_suspend(t->fm);
	ask(t, &a, "call_1");
	WAIT_FOR(state_is(t, "mattermost", "\"unreachable\"") &&
	    state_is(t, "runbook", "\"" BRIDGE_RUNBOOK_MM "\""),
	    "state.json to say unreachable with its runbook entry");
	if (fake_mm_resume(t->fm, &err) == -1)
		fail_msg("fake_mm_resume: %s", err.msg);
	wait_posted(t, a.id, post);
	WAIT_FOR(state_is(t, "mattermost", "\"connected\""),
	    "state.json to say connected again");
	assert_int_equal(fake_mm_react(t->fm, OWNER, post, "+1"), 0);
	WAIT_FOR(records(t, a.id) == 1, "approval %llu's record",
	    (unsigned long long)a.id);
	asked_done(&a, BX_STATUS_RESULT);
	expect_record(broker(t), a.id, BX_ANSWER_APPROVED, OWNER, post,
	    "(null)");
}

static void
test_restart_does_not_post_twice(void **state)
{
	struct tfix *t = *state;
	struct asked a, b;
	char post_a[27], post_b[27];
	size_t me;

	bridge_start(t);
	ask(t, &a, "call_1");
	ask(t, &b, "call_2");
	wait_posted(t, a.id, post_a);
	wait_posted(t, b.id, post_b);
	bridge_stop(t);
	/* b ends while the bridge is down. */
	terminal(t, bx_msg_refuse(b.id, NULL), BX_MSG_OK);
	asked_done(&b, BX_STATUS_DENIED);
	me = requests_to(t, "GET", "/api/v4/users/me");
	bridge_start(t);
	WAIT_FOR(requests_to(t, "GET", "/api/v4/users/me") > me,
	    "the restarted bridge to start");
	WAIT_FOR(post_says(t, post_b, "**Refused** at the terminal (bxctl)"),
	    "the restarted bridge to patch the post of approval %llu",
	    (unsigned long long)b.id);
	/* a is read again, not posted again. */
	WAIT_FOR(thread_reads(t, post_a) >= 2,
	    "the restarted bridge to read approval %llu's thread",
	    (unsigned long long)a.id);
	assert_int_equal(request_posts(t, a.id, post_a, NULL), 1);
	assert_int_equal(fake_mm_reply(t->fm, OWNER, post_a, "Approve",
	    NULL, NULL, NULL), 0);
	WAIT_FOR(records(t, a.id) == 1, "approval %llu's record",
	    (unsigned long long)a.id);
	asked_done(&a, BX_STATUS_RESULT);
	expect_record(broker(t), a.id, BX_ANSWER_APPROVED, OWNER, post_a,
	    "(null)");
	WAIT_FOR(post_says(t, post_a, "**Approved** here in Mattermost"),
	    "the post patched: approved in Mattermost");
	assert_int_equal(requests_to(t, "POST", "/api/v4/posts"), 2);
}

/*
 * posts.json names a post for an approval id that brokerd now holds for
 * another call: that post is retired (patched), never answered for the
 * new call, which gets a post of its own.
 */
static void
test_a_reused_id_is_not_the_old_post(void **state)
{
	struct tfix *t = *state;
	struct asked a;
	char path[PATH_MAX], text[1024], post[27];
	const char *old = "old00000000000000000000000";
	FILE *fp;

	ask(t, &a, "call_1");
	snprintf(path, sizeof(path), "%s/posts.json", t->dir);
	assert_non_null(fp = fopen(path, "w"));
	snprintf(text, sizeof(text), "{\"approvals\":[{\"approval\":%llu,"
	    "\"session\":\"chat-1\",\"call\":\"call_old\","
	    "\"tool\":\"read_file\",\"arguments\":\"{}\","
	    "\"grant\":\"notes\",\"taint\":\"private\","
	    "\"created\":\"2026-09-18T12:00:00.000Z\","
	    "\"expires\":\"2026-09-18T12:15:00.000Z\"}],"
	    "\"posts\":[\"%s\"]}\n", (unsigned long long)a.id, old);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	bridge_start(t);
	wait_posted(t, a.id, post);
	assert_string_not_equal(post, old);
	snprintf(path, sizeof(path), "/api/v4/posts/%s/patch", old);
	assert_int_equal(requests_to(t, "PUT", path), 1);
	assert_int_equal(fake_mm_react(t->fm, OWNER, post, "+1"), 0);
	WAIT_FOR(records(t, a.id) == 1, "approval %llu's record",
	    (unsigned long long)a.id);
	asked_done(&a, BX_STATUS_RESULT);
	expect_record(broker(t), a.id, BX_ANSWER_APPROVED, OWNER, post,
	    "(null)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_pending_approval_becomes_one_post, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_reaction_approves,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_owner_reply_refuses_with_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answers_that_do_not_count,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_terminal_first, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_terminal_wins_the_race,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_expiry_patches_the_post,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_limited_then_posts,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_token_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_owner_not_found, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_server_gone_and_back,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_restart_does_not_post_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_reused_id_is_not_the_old_post, setup, teardown),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
