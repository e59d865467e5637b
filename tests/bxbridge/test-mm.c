/*
 * test-mm.c: the bridge's Mattermost client (src/bxbridge/mm.h) against
 * the fake Mattermost server: each call's happy path in the API's shapes,
 * and every failure the bridge must tell apart: 429 with its wait, the
 * token refused, the server gone or failing, an answer over 1 MiB, a
 * malformed id, a thread past its bound, the server's error message.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdbool.h>
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

#include "fake_mm.h"
#include "mm.h"
#include "proto/utf8.h"

#define BOT	FAKE_MM_BOT_ID
#define OWNER	FAKE_MM_OWNER_ID
#define OTHER	"other000000000000000000000"

/* A call that must succeed; its error is shown if it does not. */
#define assert_ok(call) do {						\
	int r_ = (call);						\
	if (r_ != MM_OK)						\
		fail_msg("%s: %d: %s", #call, r_, err.msg);		\
} while (0)

struct fixture {
	struct fake_mm		*fm;
	struct mm_client	*mc;
	char			 url[64];
	char			 dm[MM_ID_LEN + 1];
};

static struct mm_client *
client(const char *url, const char *token, const char *unix_socket)
{
	struct mm_http_opts opts = { .url = url, .token = token,
	    .token_len = strlen(token), .unix_socket = unix_socket,
	    .timeout_s = 20 };
	struct mm_client *mc = NULL;
	struct bx_error err;

	if (mm_client_new(&opts, &mc, &err) == -1)
		fail_msg("mm_client_new: %s", err.msg);
	return mc;
}

static int
setup_opts(void **state, const struct fake_mm_opts *opts)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct bx_error err;

	assert_non_null(f);
	if (fake_mm_start(opts, &f->fm, &err) == -1)
		fail_msg("fake_mm_start: %s", err.msg);
	fake_mm_url(f->fm, f->url, sizeof(f->url));
	f->mc = client(f->url, FAKE_MM_TOKEN, NULL);
	*state = f;
	return 0;
}

static int
setup(void **state)
{
	struct fake_mm_opts opts = { 0 };

	return setup_opts(state, &opts);
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	mm_client_free(f->mc);
	fake_mm_stop(f->fm);
	free(f);
	return 0;
}

/* The DM of the bot and the owner, as the bridge makes it at start. */
static void
open_dm(struct fixture *f)
{
	struct bx_error err;

	assert_ok(mm_direct_channel(f->mc, BOT, OWNER, f->dm, &err));
}

/* A request post in the DM; its id into id. */
static void
request_post(struct fixture *f, const char *message, char *id)
{
	struct mm_post post;
	struct bx_error err;

	if (f->dm[0] == '\0')
		open_dm(f);
	if (mm_post_create(f->mc, f->dm, message, NULL, &post, &err) != MM_OK)
		fail_msg("mm_post_create: %s", err.msg);
	memcpy(id, post.id, MM_ID_LEN + 1);
	mm_post_clear(&post);
}

/* The last API request the fake saw, as its log line. */
static json_t *
last_request(struct fixture *f)
{
	size_t n = fake_mm_request_count(f->fm);
	char *line;
	json_t *value;

	assert_true(n > 0);
	line = fake_mm_request(f->fm, n - 1);
	value = json_loads(line, 0, NULL);
	free(line);
	assert_non_null(value);
	return value;
}

static void
assert_contains(const char *text, const char *part)
{
	if (strstr(text, part) == NULL)
		fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

static void
test_users_me(void **state)
{
	struct fixture *f = *state;
	struct mm_user me;
	struct bx_error err;
	json_t *req;

	assert_ok(mm_users_me(f->mc, &me, &err));
	assert_string_equal(me.id, BOT);
	assert_string_equal(me.username, "boxmaker-bridge");
	assert_true(me.is_bot);
	assert_false(me.deleted);
	req = last_request(f);
	assert_string_equal(json_string_value(json_object_get(req, "method")),
	    "GET");
	assert_string_equal(json_string_value(json_object_get(req, "path")),
	    "/api/v4/users/me");
	/* The token went as "Authorization: Bearer <token>". */
	assert_true(json_is_true(json_object_get(req, "authorized")));
	json_decref(req);
}

static void
test_user_get(void **state)
{
	struct fixture *f = *state;
	struct mm_user u;
	struct bx_error err;
	size_t before;

	assert_ok(mm_user_get(f->mc, OWNER, &u, &err));
	assert_string_equal(u.id, OWNER);
	assert_false(u.is_bot);
	/* An unknown user: the server's error body is what the owner sees. */
	assert_int_equal(mm_user_get(f->mc, OTHER, &u, &err), MM_REFUSED);
	assert_contains(err.msg, "HTTP 404");
	assert_contains(err.msg, "\"Unable to find the user.\"");
	assert_contains(err.msg, "(app.user.missing_account.const)");
	/* A malformed id never reaches the server. */
	before = fake_mm_request_count(f->fm);
	assert_int_equal(mm_user_get(f->mc, "../../posts/x", &u, &err),
	    MM_REFUSED);
	assert_contains(err.msg, "not a Mattermost id");
	assert_int_equal(fake_mm_request_count(f->fm), before);
}

static void
test_direct_channel(void **state)
{
	struct fixture *f = *state;
	char fake_dm[MM_ID_LEN + 1], again[MM_ID_LEN + 1];
	struct bx_error err;
	json_t *req, *body;

	open_dm(f);
	fake_mm_dm(f->fm, fake_dm);
	assert_string_equal(f->dm, fake_dm);
	req = last_request(f);
	assert_string_equal(json_string_value(json_object_get(req, "path")),
	    "/api/v4/channels/direct");
	body = json_object_get(req, "body");
	assert_int_equal(json_array_size(body), 2);
	assert_string_equal(json_string_value(json_array_get(body, 0)), BOT);
	assert_string_equal(json_string_value(json_array_get(body, 1)), OWNER);
	json_decref(req);
	/* The same two users: the same channel. */
	assert_ok(mm_direct_channel(f->mc, OWNER, BOT, again, &err));
	assert_string_equal(again, f->dm);
}

static void
test_post_patch_delete(void **state)
{
	struct fixture *f = *state;
	struct mm_post post, reply, patched;
	struct bx_error err;
	char *message;

	open_dm(f);
	assert_ok(mm_post_create(f->mc, f->dm, "approval a1 pending",
	    NULL, &post, &err));
	assert_true(mm_id_valid(post.id));
	assert_string_equal(post.user_id, BOT);
	assert_string_equal(post.channel_id, f->dm);
	assert_string_equal(post.root_id, "");
	assert_string_equal(post.message, "approval a1 pending");
	assert_true(post.create_at > 0);
	message = fake_mm_post_message(f->fm, post.id);
	assert_string_equal(message, "approval a1 pending");
	free(message);

	assert_ok(mm_post_create(f->mc, f->dm, "a reply", post.id,
	    &reply, &err));
	assert_string_equal(reply.root_id, post.id);

	assert_ok(mm_post_patch(f->mc, post.id, "approved by owner",
	    &patched, &err));
	assert_string_equal(patched.id, post.id);
	assert_string_equal(patched.message, "approved by owner");
	message = fake_mm_post_message(f->fm, post.id);
	assert_string_equal(message, "approved by owner");
	free(message);
	assert_ok(mm_post_patch(f->mc, post.id, "again", NULL, &err));

	assert_ok(mm_post_delete(f->mc, reply.id, &err));
	assert_null(fake_mm_post_message(f->fm, reply.id));
	/* A deleted post is gone: the server says so in its words. */
	assert_int_equal(mm_post_delete(f->mc, reply.id, &err), MM_REFUSED);
	assert_contains(err.msg, "HTTP 404");
	mm_post_clear(&post);
	mm_post_clear(&reply);
	mm_post_clear(&patched);
}

/* A JSON object's string field, for short asserts. */
static const char *
field(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static void
test_reactions(void **state)
{
	struct fixture *f = *state;
	char one[MM_ID_LEN + 1], two[MM_ID_LEN + 1];
	const char *ids[2] = { one, two };
	json_t *map, *list, *req;
	struct bx_error err;

	request_post(f, "first", one);
	request_post(f, "second", two);
	assert_int_equal(fake_mm_react(f->fm, OWNER, one, "white_check_mark"),
	    0);
	assert_int_equal(fake_mm_react(f->fm, OTHER, one, "+1"), 0);

	assert_ok(mm_reactions_bulk(f->mc, ids, 2, &map, &err));
	req = last_request(f);
	assert_string_equal(field(req, "path"), "/api/v4/posts/ids/reactions");
	assert_int_equal(json_array_size(json_object_get(req, "body")), 2);
	json_decref(req);
	/* Each post asked about has its array, the one without any too. */
	assert_int_equal(json_object_size(map), 2);
	list = json_object_get(map, one);
	assert_int_equal(json_array_size(list), 2);
	assert_string_equal(field(json_array_get(list, 0), "user_id"), OWNER);
	assert_string_equal(field(json_array_get(list, 0), "post_id"), one);
	assert_string_equal(field(json_array_get(list, 0), "emoji_name"),
	    "white_check_mark");
	assert_string_equal(field(json_array_get(list, 1), "user_id"), OTHER);
	assert_string_equal(field(json_array_get(list, 1), "emoji_name"),
	    "+1");
	assert_true(json_is_array(json_object_get(map, two)));
	assert_int_equal(json_array_size(json_object_get(map, two)), 0);
	json_decref(map);

	assert_ok(mm_reactions_get(f->mc, one, &list, &err));
	assert_int_equal(json_array_size(list), 2);
	json_decref(list);
	assert_ok(mm_reactions_get(f->mc, two, &list, &err));
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
}

/* The i-th post of a checked thread. */
static const json_t *
thread_post(const json_t *thread, size_t i)
{
	const char *id = json_string_value(json_array_get(json_object_get(
	    thread, "order"), i));

	assert_non_null(id);
	return json_object_get(json_object_get(thread, "posts"), id);
}

static void
test_thread(void **state)
{
	struct fixture *f = *state;
	char root[MM_ID_LEN + 1], id[MM_ID_LEN + 1];
	const json_t *post;
	bool truncated = true;
	struct bx_error err;
	json_t *t, *req;
	size_t i;

	request_post(f, "approval a1 pending", root);
	assert_int_equal(fake_mm_reply(f->fm, OWNER, root, "approve", NULL,
	    NULL, id), 0);
	assert_int_equal(fake_mm_reply(f->fm, OWNER, root, "approve",
	    "{\"from_webhook\": \"true\"}", NULL, NULL), 0);
	assert_int_equal(fake_mm_reply(f->fm, OWNER, root, "approve",
	    "{\"from_bot\": \"true\"}", NULL, NULL), 0);
	assert_int_equal(fake_mm_reply(f->fm, OWNER, root, "approve", NULL,
	    "system_join_channel", NULL), 0);

	assert_ok(mm_thread_get(f->mc, root, &t, &truncated, &err));
	req = last_request(f);
	assert_contains(field(req, "path"), "?perPage=200");
	json_decref(req);
	assert_false(truncated);
	assert_int_equal(json_array_size(json_object_get(t, "order")), 5);
	assert_int_equal(json_object_size(json_object_get(t, "posts")), 5);
	/* Newest first, as the server orders a thread; the root last. All
	 * the API's fields are kept for the answer reading. */
	post = thread_post(t, 4);
	assert_string_equal(field(post, "id"), root);
	assert_string_equal(field(post, "root_id"), "");
	post = thread_post(t, 3);
	assert_string_equal(field(post, "id"), id);
	assert_string_equal(field(post, "message"), "approve");
	assert_string_equal(field(post, "user_id"), OWNER);
	assert_string_equal(field(post, "type"), "");
	assert_int_equal(json_object_size(json_object_get(post, "props")), 0);
	assert_true(json_is_integer(json_object_get(post, "create_at")));
	assert_non_null(json_object_get(json_object_get(thread_post(t, 2),
	    "props"), "from_webhook"));
	assert_non_null(json_object_get(json_object_get(thread_post(t, 1),
	    "props"), "from_bot"));
	assert_string_equal(field(thread_post(t, 0), "type"),
	    "system_join_channel");
	for (i = 0; i < 4; i++) {
		assert_string_equal(field(thread_post(t, i), "root_id"), root);
		assert_string_equal(field(thread_post(t, i), "channel_id"),
		    f->dm);
	}
	json_decref(t);
}

static void
test_thread_bound(void **state)
{
	struct fixture *f = *state;
	char root[MM_ID_LEN + 1];
	bool truncated = false;
	struct bx_error err;
	json_t *t;
	int i;

	request_post(f, "approval a1 pending", root);
	for (i = 0; i < MM_MAX_THREAD + 50; i++)
		assert_int_equal(fake_mm_reply(f->fm, OWNER, root, "no", NULL,
		    NULL, NULL), 0);
	assert_ok(mm_thread_get(f->mc, root, &t, &truncated, &err));
	assert_int_equal(json_array_size(json_object_get(t, "order")),
	    MM_MAX_THREAD);
	assert_int_equal(json_object_size(json_object_get(t, "posts")),
	    MM_MAX_THREAD);
	assert_true(truncated);
	json_decref(t);
}

static void
test_rate_limited(void **state)
{
	struct fixture *f = *state;
	struct mm_user me;
	struct bx_error err;
	int wait;

	fake_mm_fail(f->fm, FAKE_MM_FAIL_RATE, 1, 7);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_RATE_LIMITED);
	assert_int_equal(mm_http_rate_wait_s(mm_client_http(f->mc)), 7);
	assert_contains(err.msg, "HTTP 429");
	assert_contains(err.msg, "waiting 7 s");
	assert_ok(mm_users_me(f->mc, &me, &err));
	/* An epoch time is read as one, and a long wait is cut. */
	fake_mm_fail(f->fm, FAKE_MM_FAIL_RATE, 1, (long)time(NULL) + 5);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_RATE_LIMITED);
	wait = mm_http_rate_wait_s(mm_client_http(f->mc));
	assert_true(wait >= 3 && wait <= 5);
	fake_mm_fail(f->fm, FAKE_MM_FAIL_RATE, 1, 3600);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_RATE_LIMITED);
	assert_int_equal(mm_http_rate_wait_s(mm_client_http(f->mc)),
	    MM_RATE_WAIT_MAX_S);
}

static void
test_rate_wait_s(void **state)
{
	time_t now = 1767225600;

	(void)state;
	assert_int_equal(mm_rate_wait_s(NULL, now), MM_RATE_WAIT_DEFAULT_S);
	assert_int_equal(mm_rate_wait_s("soon", now), MM_RATE_WAIT_DEFAULT_S);
	assert_int_equal(mm_rate_wait_s("5s", now), MM_RATE_WAIT_DEFAULT_S);
	assert_int_equal(mm_rate_wait_s("-5", now), MM_RATE_WAIT_DEFAULT_S);
	assert_int_equal(mm_rate_wait_s("0", now), 1);
	assert_int_equal(mm_rate_wait_s("1", now), 1);
	assert_int_equal(mm_rate_wait_s("42", now), 42);
	assert_int_equal(mm_rate_wait_s("61", now), MM_RATE_WAIT_MAX_S);
	assert_int_equal(mm_rate_wait_s("1767225630", now), 30);
	assert_int_equal(mm_rate_wait_s("1767225000", now), 1);
	assert_int_equal(mm_rate_wait_s("1767329999", now), MM_RATE_WAIT_MAX_S);
	assert_int_equal(mm_rate_wait_s("99999999999999999999999", now),
	    MM_RATE_WAIT_DEFAULT_S);
}

static void
test_backoff(void **state)
{
	(void)state;
	assert_int_equal(mm_backoff_s(0), 0);
	assert_int_equal(mm_backoff_s(1), 1);
	assert_int_equal(mm_backoff_s(2), 2);
	assert_int_equal(mm_backoff_s(3), 4);
	assert_int_equal(mm_backoff_s(6), 32);
	assert_int_equal(mm_backoff_s(7), MM_BACKOFF_MAX_S);
	assert_int_equal(mm_backoff_s(4000000000u), MM_BACKOFF_MAX_S);
}

static void
test_token_refused(void **state)
{
	struct fixture *f = *state;
	struct mm_client *wrong;
	struct mm_user me;
	struct bx_error err;

	fake_mm_fail(f->fm, FAKE_MM_FAIL_401, 1, 0);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_TOKEN_REFUSED);
	assert_contains(err.msg, "HTTP 401");
	assert_contains(err.msg, "Invalid or expired session");
	fake_mm_fail(f->fm, FAKE_MM_FAIL_403, 1, 0);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_TOKEN_REFUSED);
	assert_contains(err.msg, "HTTP 403");
	/* A token the server does not know, and never in a message. */
	wrong = client(f->url, "wrongtoken0000000000000000", NULL);
	assert_int_equal(mm_users_me(wrong, &me, &err), MM_TOKEN_REFUSED);
	assert_null(strstr(err.msg, "wrongtoken"));
	mm_client_free(wrong);
}

static void
test_server_gone(void **state)
{
	struct fixture *f = *state;
	char before[MM_ID_LEN + 1];
	struct mm_user me;
	struct bx_error err;

	open_dm(f);
	memcpy(before, f->dm, sizeof(before));
	fake_mm_suspend(f->fm);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_UNREACHABLE);
	assert_contains(err.msg, "could not be reached");
	assert_int_equal(fake_mm_resume(f->fm, &err), 0);
	assert_ok(mm_users_me(f->mc, &me, &err));
	open_dm(f);
	assert_string_equal(f->dm, before);

	fake_mm_fail(f->fm, FAKE_MM_FAIL_HANGUP, 1, 0);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_UNREACHABLE);
	fake_mm_fail(f->fm, FAKE_MM_FAIL_500, 1, 0);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_UNREACHABLE);
	assert_contains(err.msg, "HTTP 500");
	assert_contains(err.msg, "The fake server failed on purpose.");
	assert_ok(mm_users_me(f->mc, &me, &err));
}

/* Whether text is all UTF-8 without control characters. */
static bool
clean_text(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t len = strlen(text), i, step;

	for (i = 0; i < len; i += step)
		if ((step = bx_utf8_len(p + i, len - i)) == 0 ||
		    (step == 1 && (p[i] < ' ' || p[i] == 0x7f)))
			return false;
	return true;
}

/* A server's words reach the message cut short, whole characters only,
 * with nothing that could reach a terminal as a control. */
static void
test_garbled_words(void **state)
{
	struct fixture *f = *state;
	struct mm_user me;
	struct bx_error err;
	const char *quoted;

	fake_mm_fail(f->fm, FAKE_MM_FAIL_400_GARBLED, 1, 0);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_REFUSED);
	assert_contains(err.msg, "HTTP 400");
	assert_contains(err.msg, "\"Bad ?[31mrequest?? \xc3\xa9");
	assert_true(clean_text(err.msg));
	quoted = strstr(err.msg, "\"Bad ");
	assert_true(strlen(quoted) - 2 <= MM_ERROR_QUOTE);
	assert_true(strlen(quoted) - 2 >= MM_ERROR_QUOTE - 1);
}

static void
test_body_too_large(void **state)
{
	struct fixture *f = *state;
	struct mm_user me;
	struct bx_error err;

	fake_mm_fail(f->fm, FAKE_MM_FAIL_HUGE, 1, 0);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_REFUSED);
	assert_contains(err.msg, "more than 1048576 bytes");
	/* Without a Content-Length, the bound holds as the bytes come. */
	fake_mm_fail(f->fm, FAKE_MM_FAIL_HUGE_UNSIZED, 1, 0);
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_REFUSED);
	assert_contains(err.msg, "more than 1048576 bytes");
	assert_ok(mm_users_me(f->mc, &me, &err));
}

static void
test_malformed_ids(void **state)
{
	struct fixture *f = *state;
	char root[MM_ID_LEN + 1];
	const char *ids[1] = { root };
	json_t *t = NULL, *map = NULL;
	bool truncated;
	struct bx_error err;

	request_post(f, "approval a1 pending", root);
	/* Upper case: 26 characters, but not of [a-z0-9]. */
	assert_int_equal(fake_mm_reply(f->fm, "OWNER000000000000000000000",
	    root, "approve", NULL, NULL, NULL), 0);
	assert_int_equal(mm_thread_get(f->mc, root, &t, &truncated, &err),
	    MM_REFUSED);
	assert_contains(err.msg, "user_id: not a Mattermost id");
	assert_null(t);
	/* 25 characters. */
	assert_int_equal(fake_mm_react(f->fm, "owner00000000000000000000",
	    root, "+1"), 0);
	assert_int_equal(mm_reactions_bulk(f->mc, ids, 1, &map, &err),
	    MM_REFUSED);
	assert_contains(err.msg, "user_id: not a Mattermost id");
	assert_null(map);
	assert_int_equal(mm_reactions_get(f->mc, root, &map, &err),
	    MM_REFUSED);
	assert_null(map);
}

static void
test_malformed_bot_id(void **state)
{
	struct fake_mm_opts opts = { .bot_id = "bot-0000000000000000000000" };
	struct fixture *f;
	struct mm_user me;
	struct bx_error err;

	setup_opts(state, &opts);
	f = *state;
	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_REFUSED);
	assert_contains(err.msg, "malformed body");
	assert_contains(err.msg, "id: not a Mattermost id");
	teardown(state);
}

static void
test_options_refused(void **state)
{
	static const char *const bad_urls[] = { "http://example.org",
	    "http://localhost:8065", "ftp://127.0.0.1",
	    "https://u:p@chat.example.org",
	    "https://chat.example.org/?x=1", "https://chat.example.org/#top",
	    "chat.example.org", "", NULL };
	struct mm_http_opts opts = { .url = "https://chat.example.org",
	    .token = "secret token\n", .token_len = 13 };
	struct mm_client *mc;
	struct bx_error err;
	size_t i;

	(void)state;
	assert_int_equal(mm_client_new(&opts, &mc, &err), -1);
	assert_contains(err.msg, "cannot go in an HTTP header");
	assert_null(strstr(err.msg, "secret"));
	opts.token = "token00000000000000000000a";
	opts.token_len = 26;
	for (i = 0; bad_urls[i] != NULL; i++) {
		opts.url = bad_urls[i];
		if (mm_client_new(&opts, &mc, &err) != -1)
			fail_msg("the url \"%s\" was taken", bad_urls[i]);
	}
	opts.url = "https://chat.example.org/mattermost/";
	assert_int_equal(mm_client_new(&opts, &mc, &err), 0);
	assert_string_equal(mm_http_url(mm_client_http(mc)),
	    "https://chat.example.org/mattermost");
	mm_client_free(mc);
	mm_client_free(NULL);
}

/* https with a private CA: a CA file that is not there, and a server
 * that does not speak TLS, both fail the connection, saying why. */
static void
test_https_ca_file(void **state)
{
	struct fixture *f = *state;
	struct mm_http_opts opts = { .token = FAKE_MM_TOKEN,
	    .token_len = strlen(FAKE_MM_TOKEN), .timeout_s = 20 };
	struct mm_client *mc;
	struct mm_user me;
	struct bx_error err;
	char url[64];

	snprintf(url, sizeof(url), "https://127.0.0.1:%d",
	    fake_mm_port(f->fm));
	opts.url = url;
	opts.ca_file = "/nonexistent/boxmaker-ca.pem";
	assert_int_equal(mm_client_new(&opts, &mc, &err), 0);
	assert_int_equal(mm_users_me(mc, &me, &err), MM_UNREACHABLE);
	assert_contains(err.msg, "could not be reached");
	mm_client_free(mc);
	opts.ca_file = NULL;
	assert_int_equal(mm_client_new(&opts, &mc, &err), 0);
	assert_int_equal(mm_users_me(mc, &me, &err), MM_UNREACHABLE);
	mm_client_free(mc);
	assert_int_equal(fake_mm_request_count(f->fm), 0);
}

/* Through a Unix socket, as from the jail through its relay; the fake's
 * log file has the request. */
static void
test_unix_socket(void **state)
{
	char dir[] = "/tmp/test-mm-XXXXXX", path[64], log[64], line[512];
	struct fake_mm_opts opts = { 0 };
	struct fixture *f;
	struct mm_client *mc;
	struct mm_user me;
	struct bx_error err;
	FILE *in;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/mm.sock", dir);
	snprintf(log, sizeof(log), "%s/requests.log", dir);
	opts.unix_path = path;
	opts.log_path = log;
	setup_opts(state, &opts);
	f = *state;
	/* Its URL's port is not the way in: the socket is. */
	assert_non_null(f->fm);
	mc = client("http://127.0.0.1", FAKE_MM_TOKEN, path);
	assert_ok(mm_users_me(mc, &me, &err));
	assert_string_equal(me.id, BOT);
	mm_client_free(mc);
	teardown(state);
	assert_non_null(in = fopen(log, "r"));
	assert_non_null(fgets(line, sizeof(line), in));
	assert_string_equal(line, "{\"method\":\"GET\",\"path\":"
	    "\"/api/v4/users/me\",\"body\":null,\"authorized\":true}\n");
	assert_null(fgets(line, sizeof(line), in));
	fclose(in);
	assert_int_equal(unlink(log), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* The fake's /fake/ scripting, as a test running it as a program uses. */
static void
test_fake_control(void **state)
{
	struct fixture *f = *state;
	char root[MM_ID_LEN + 1], url[128], body[256];
	bool truncated;
	struct mm_user me;
	json_t *t;
	struct bx_error err;
	long status = 0;
	FILE *sink;
	CURL *c;

	request_post(f, "approval a1 pending", root);
	snprintf(url, sizeof(url), "%s/fake/reply", f->url);
	snprintf(body, sizeof(body), "{\"user_id\": \"%s\", \"root_id\": "
	    "\"%s\", \"message\": \"refuse too risky\"}", OWNER, root);
	assert_non_null(sink = fopen("/dev/null", "w"));
	assert_non_null(c = curl_easy_init());
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	assert_int_equal(status, 201);
	snprintf(url, sizeof(url), "%s/fake/fail", f->url);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, "{\"kind\": \"rate\", "
	    "\"count\": 1, \"reset\": 2}");
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	curl_easy_cleanup(c);
	fclose(sink);

	assert_int_equal(mm_users_me(f->mc, &me, &err), MM_RATE_LIMITED);
	assert_int_equal(mm_http_rate_wait_s(mm_client_http(f->mc)), 2);
	assert_ok(mm_thread_get(f->mc, root, &t, &truncated, &err));
	assert_int_equal(json_array_size(json_object_get(t, "order")), 2);
	assert_string_equal(field(thread_post(t, 0), "message"),
	    "refuse too risky");
	json_decref(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_users_me, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_get, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_channel, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_post_patch_delete, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reactions, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_bound, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rate_limited, setup,
		    teardown),
		cmocka_unit_test(test_rate_wait_s),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test_setup_teardown(test_token_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_server_gone, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_garbled_words, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_body_too_large, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_malformed_ids, setup,
		    teardown),
		cmocka_unit_test(test_malformed_bot_id),
		cmocka_unit_test(test_options_refused),
		cmocka_unit_test_setup_teardown(test_https_ca_file, setup,
		    teardown),
		cmocka_unit_test(test_unix_socket),
		cmocka_unit_test_setup_teardown(test_fake_control, setup,
		    teardown),
	};
	int r;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return r;
}
