/*
 * test-answer.c: the owner's answers read from reactions and threads
 * (src/bxbridge/answer.h): each answer that counts, each of the issue's
 * look-alikes that must not (another user, a second bot, the bridge's own
 * reaction and reply, a webhook or from_bot post carrying the owner's id,
 * a reply in another thread or channel, a system post, "yes"), the words
 * themselves, the order when several answers exist, and the shapes a
 * strange server could send.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "bxbridge/answer.h"

#define OWNER	"owner0000000000000000000aa"
#define BOT	"bridgebot00000000000000000"
#define BOT2	"otherbot000000000000000000"
#define OTHER	"someoneelse000000000000000"
#define POST	"request0000000000000000000"
#define POST2	"elsewhere00000000000000000"
#define DM	"dmchannel00000000000000000"
#define CHAN2	"townsquare0000000000000000"

static const struct answer_context ctx = {
	.ac_owner = OWNER, .ac_bot = BOT, .ac_post = POST, .ac_channel = DM,
};

static json_t *
reaction(const char *user, const char *emoji, int64_t at)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:I}", "user_id", user,
	    "post_id", POST, "emoji_name", emoji, "create_at", (json_int_t)at,
	    "delete_at", (json_int_t)0);
}

/* A reply from the owner in the request's thread, as Mattermost sends it. */
static json_t *
reply(const char *id, const char *message, int64_t at)
{
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:s, "
	    "s:{}, s:s}", "id", id, "create_at", (json_int_t)at, "update_at",
	    (json_int_t)at, "edit_at", (json_int_t)0, "delete_at",
	    (json_int_t)0, "user_id", OWNER, "channel_id", DM, "root_id",
	    POST, "original_id", "", "message", message, "props", "type", "");
}

/* The request post itself, the bot's, as the thread's root. */
static json_t *
root_post(void)
{
	return json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:s, s:{}, s:s}",
	    "id", POST, "create_at", (json_int_t)1000, "delete_at",
	    (json_int_t)0, "user_id", BOT, "channel_id", DM, "root_id", "",
	    "message", "approve", "props", "type", "");
}

/* A PostList of the root and the given posts (references stolen). */
static json_t *
thread(json_t *const *posts, size_t n)
{
	json_t *order, *map, *t;
	size_t i;

	order = json_array();
	map = json_object();
	assert_non_null(order);
	assert_non_null(map);
	assert_int_equal(json_array_append_new(order, json_string(POST)), 0);
	assert_int_equal(json_object_set_new(map, POST, root_post()), 0);
	for (i = 0; i < n; i++) {
		const char *id = json_string_value(json_object_get(posts[i],
		    "id"));

		assert_non_null(id);
		assert_int_equal(json_array_append_new(order,
		    json_string(id)), 0);
		assert_int_equal(json_object_set_new(map, id, posts[i]), 0);
	}
	t = json_pack("{s:o, s:o, s:s, s:s}", "order", order, "posts", map,
	    "next_post_id", "", "prev_post_id", "");
	assert_non_null(t);
	return t;
}

static struct answer
from_reactions(json_t *reactions)
{
	struct bx_error err;
	struct answer a;

	answer_init(&a);
	if (answer_reactions(&ctx, reactions, &a, &err) == -1)
		fail_msg("%s", err.msg);
	json_decref(reactions);
	return a;
}

/* The answer in a thread of one post p. */
static struct answer
from_post(json_t *p)
{
	struct bx_error err;
	struct answer a;
	json_t *t = thread(&p, 1);

	answer_init(&a);
	if (answer_thread(&ctx, t, &a, &err) == -1)
		fail_msg("%s", err.msg);
	json_decref(t);
	return a;
}

/* The same reply with one field set to v (stolen); NULL v removes it. */
static json_t *
reply_with(const char *key, json_t *v)
{
	json_t *p = reply("reply00000000000000000000a", "approve", 2000);

	if (v == NULL)
		assert_int_equal(json_object_del(p, key), 0);
	else
		assert_int_equal(json_object_set_new(p, key, v), 0);
	return p;
}

static void
test_reactions_count(void **state)
{
	struct answer a;

	(void)state;
	a = from_reactions(json_pack("[o]", reaction(OWNER,
	    "white_check_mark", 2000)));
	assert_int_equal(a.a_verdict, ANSWER_APPROVE);
	assert_int_equal(a.a_source, ANSWER_REACTION);
	assert_int_equal(a.a_at, 2000);
	assert_string_equal(a.a_post, "");
	assert_string_equal(a.a_reason, "");
	a = from_reactions(json_pack("[o]", reaction(OWNER, "+1", 2000)));
	assert_int_equal(a.a_verdict, ANSWER_APPROVE);
	a = from_reactions(json_pack("[o]", reaction(OWNER, "x", 2000)));
	assert_int_equal(a.a_verdict, ANSWER_REFUSE);
	a = from_reactions(json_pack("[o]", reaction(OWNER, "-1", 2000)));
	assert_int_equal(a.a_verdict, ANSWER_REFUSE);
	/* No reactions: [] or, from some servers, null. */
	a = from_reactions(json_array());
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_reactions(json_null());
	assert_int_equal(a.a_verdict, ANSWER_NONE);
}

static void
test_reactions_ignored(void **state)
{
	static const char *const emoji[] = { "heart", "heavy_check_mark",
	    "white_check_mark_2", "+2", "X", "thumbsup", "", "white check mark",
	};
	struct answer a;
	json_t *r;
	size_t i;

	(void)state;
	/* Another user, a second bot, the bridge's own reaction. */
	a = from_reactions(json_pack("[o, o, o, o, o, o]",
	    reaction(OTHER, "white_check_mark", 2000),
	    reaction(OTHER, "+1", 2001),
	    reaction(BOT2, "white_check_mark", 2002),
	    reaction(BOT2, "+1", 2003),
	    reaction(BOT, "white_check_mark", 2004),
	    reaction(BOT, "+1", 2005)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	for (i = 0; i < sizeof(emoji) / sizeof(emoji[0]); i++) {
		a = from_reactions(json_pack("[o]", reaction(OWNER, emoji[i],
		    2000)));
		assert_int_equal(a.a_verdict, ANSWER_NONE);
	}
	/* On another post (the ids form lists several posts). */
	r = reaction(OWNER, "+1", 2000);
	json_object_set_new(r, "post_id", json_string(POST2));
	a = from_reactions(json_pack("[o]", r));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	/* Taken back. */
	r = reaction(OWNER, "+1", 2000);
	json_object_set_new(r, "delete_at", json_integer(2500));
	a = from_reactions(json_pack("[o]", r));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	/* Fields of the wrong type or missing. */
	r = reaction(OWNER, "+1", 2000);
	json_object_set_new(r, "create_at", json_string("2000"));
	a = from_reactions(json_pack("[o]", r));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	r = reaction(OWNER, "+1", 2000);
	json_object_del(r, "create_at");
	a = from_reactions(json_pack("[o]", r));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	r = reaction(OWNER, "+1", 2000);
	json_object_set_new(r, "emoji_name", json_integer(1));
	a = from_reactions(json_pack("[o]", r));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	r = reaction(OWNER, "+1", 2000);
	json_object_set_new(r, "user_id", json_pack("[s]", OWNER));
	a = from_reactions(json_pack("[o]", r));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_reactions(json_pack("[s, i, [s], n]", OWNER, 1, "+1"));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
}

/* An owner who is the bot account: nothing the bot does counts. */
static void
test_owner_is_bot(void **state)
{
	static const struct answer_context same = {
		.ac_owner = BOT, .ac_bot = BOT, .ac_post = POST,
		.ac_channel = DM,
	};
	struct bx_error err;
	struct answer a;
	json_t *r, *p, *t;

	(void)state;
	answer_init(&a);
	r = json_pack("[o]", reaction(BOT, "+1", 2000));
	assert_int_equal(answer_reactions(&same, r, &a, &err), 0);
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	json_decref(r);
	p = reply_with("user_id", json_string(BOT));
	t = thread(&p, 1);
	assert_int_equal(answer_thread(&same, t, &a, &err), 0);
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	json_decref(t);
}

static void
test_reply_counts(void **state)
{
	struct answer a;

	(void)state;
	a = from_post(reply("reply00000000000000000000a", "approve", 2000));
	assert_int_equal(a.a_verdict, ANSWER_APPROVE);
	assert_int_equal(a.a_source, ANSWER_REPLY);
	assert_int_equal(a.a_at, 2000);
	assert_string_equal(a.a_post, "reply00000000000000000000a");
	a = from_post(reply("reply00000000000000000000a",
	    "  Refuse   not on a Sunday \n", 2000));
	assert_int_equal(a.a_verdict, ANSWER_REFUSE);
	assert_string_equal(a.a_reason, "not on a Sunday");
	/* A post with no props at all is a plain post too. */
	a = from_post(reply_with("props", NULL));
	assert_int_equal(a.a_verdict, ANSWER_APPROVE);
	a = from_post(reply_with("props", json_pack("{s:b}", "disable_group_"
	    "highlight", 1)));
	assert_int_equal(a.a_verdict, ANSWER_APPROVE);
}

static void
test_reply_ignored(void **state)
{
	struct bx_error err;
	struct answer a;
	json_t *t;

	(void)state;
	/* Another user, a second bot, the bridge's own post. */
	a = from_post(reply_with("user_id", json_string(OTHER)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("user_id", json_string(BOT2)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("user_id", json_string(BOT)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	/* A webhook's post carries its creator's (the owner's) id. */
	a = from_post(reply_with("props", json_pack("{s:s, s:s}",
	    "from_webhook", "true", "override_username", "owner")));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("props", json_pack("{s:s}", "from_bot",
	    "true")));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("props", json_pack("{s:b}", "from_bot", 0)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("props", json_pack("{s:s}", "from_plugin",
	    "true")));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("props", json_string("from_nothing")));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	/* A reply in another thread; a top-level post; another channel. */
	a = from_post(reply_with("root_id", json_string(POST2)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("root_id", json_string("")));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("channel_id", json_string(CHAN2)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	/* A system post, and a post that does not say its type. */
	a = from_post(reply_with("type", json_string("system_join_channel")));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("type", NULL));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	/* Deleted; a time that is not a number; no message. */
	a = from_post(reply_with("delete_at", json_integer(3000)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("create_at", json_real(2000.0)));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply_with("message", NULL));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	/* A post whose id is not the key it is listed under. */
	t = thread(NULL, 0);
	json_array_append_new(json_object_get(t, "order"),
	    json_string("reply00000000000000000000b"));
	json_object_set_new(json_object_get(t, "posts"),
	    "reply00000000000000000000b", reply_with("user_id",
	    json_string(OWNER)));
	answer_init(&a);
	assert_int_equal(answer_thread(&ctx, t, &a, &err), 0);
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	json_decref(t);
	/* The words: "yes" and anything more or less than the answer. */
	a = from_post(reply("reply00000000000000000000a", "yes", 2000));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	a = from_post(reply("reply00000000000000000000a", "approve please",
	    2000));
	assert_int_equal(a.a_verdict, ANSWER_NONE);
}

static void
test_words(void **state)
{
	static const char *const none[] = { "yes", "approve please",
	    "please approve", "approve.", "approved", "refused", "refuses x",
	    "", "   ", "ok", ":white_check_mark:", "+1", "approve\xc2\xa0",
	    "@approve", "`approve`", "appr ove", "refuse:no",
	};
	char reason[ANSWER_REASON_MAX + 1], longer[ANSWER_REASON_MAX + 64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (answer_text(none[i], reason) != ANSWER_NONE)
			fail_msg("\"%s\" counted as an answer", none[i]);
	assert_int_equal(answer_text("approve", reason), ANSWER_APPROVE);
	assert_int_equal(answer_text("APPROVE", reason), ANSWER_APPROVE);
	assert_int_equal(answer_text("\n\tApProVe \r\n", reason),
	    ANSWER_APPROVE);
	assert_string_equal(reason, "");
	assert_int_equal(answer_text("refuse", reason), ANSWER_REFUSE);
	assert_string_equal(reason, "");
	assert_int_equal(answer_text(" REFUSE \n", reason), ANSWER_REFUSE);
	assert_string_equal(reason, "");
	assert_int_equal(answer_text("refuse\ttoo risky\nsee log ", reason),
	    ANSWER_REFUSE);
	assert_string_equal(reason, "too risky\nsee log");

	/* A long reason is cut at a character's start: "é" is 2 bytes. */
	memset(longer, 'a', sizeof(longer));
	memcpy(longer, "refuse ", 7);
	longer[7 + ANSWER_REASON_MAX - 1] = '\xc3';
	longer[7 + ANSWER_REASON_MAX] = '\xa9';
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(answer_text(longer, reason), ANSWER_REFUSE);
	assert_int_equal(strlen(reason), ANSWER_REASON_MAX - 1);
	assert_int_equal(reason[ANSWER_REASON_MAX - 2], 'a');
	/* A cut that ends in spaces is trimmed like any reason. */
	memset(longer + 7 + ANSWER_REASON_MAX - 10, ' ', 20);
	assert_int_equal(answer_text(longer, reason), ANSWER_REFUSE);
	assert_int_equal(strlen(reason), ANSWER_REASON_MAX - 10);
}

/* Several answers: the earliest counts, then refusal, reply, post id. */
static void
test_order(void **state)
{
	json_t *posts[3], *t, *r;
	struct bx_error err;
	struct answer a;

	(void)state;
	posts[0] = reply("reply000000000000000000003", "approve", 5000);
	posts[1] = reply("reply000000000000000000002", "refuse late", 4000);
	posts[2] = reply("reply000000000000000000001", "yes", 1000);
	t = thread(posts, 3);
	r = json_pack("[o, o, o]", reaction(OWNER, "+1", 4500),
	    reaction(OTHER, "x", 100), reaction(OWNER, "heart", 200));
	answer_init(&a);
	assert_int_equal(answer_reactions(&ctx, r, &a, &err), 0);
	assert_int_equal(answer_thread(&ctx, t, &a, &err), 0);
	assert_int_equal(a.a_verdict, ANSWER_REFUSE);
	assert_int_equal(a.a_at, 4000);
	assert_string_equal(a.a_reason, "late");
	/* The same whichever is read first. */
	answer_init(&a);
	assert_int_equal(answer_thread(&ctx, t, &a, &err), 0);
	assert_int_equal(answer_reactions(&ctx, r, &a, &err), 0);
	assert_int_equal(a.a_at, 4000);
	assert_int_equal(a.a_verdict, ANSWER_REFUSE);
	json_decref(t);
	json_decref(r);

	/* The same millisecond: a refusal before an approval. */
	a = from_reactions(json_pack("[o, o]", reaction(OWNER, "+1", 3000),
	    reaction(OWNER, "-1", 3000)));
	assert_int_equal(a.a_verdict, ANSWER_REFUSE);
	a = from_reactions(json_pack("[o, o]", reaction(OWNER, "-1", 3000),
	    reaction(OWNER, "+1", 3000)));
	assert_int_equal(a.a_verdict, ANSWER_REFUSE);
	/* Then a reply (with its reason) before a reaction. */
	posts[0] = reply("reply000000000000000000009", "refuse why", 3000);
	t = thread(posts, 1);
	r = json_pack("[o]", reaction(OWNER, "x", 3000));
	answer_init(&a);
	assert_int_equal(answer_reactions(&ctx, r, &a, &err), 0);
	assert_int_equal(answer_thread(&ctx, t, &a, &err), 0);
	assert_int_equal(a.a_source, ANSWER_REPLY);
	assert_string_equal(a.a_reason, "why");
	json_decref(t);
	json_decref(r);
	/* Then the lower post id, whatever the order listed. */
	posts[0] = reply("reply000000000000000000009", "refuse nine", 3000);
	posts[1] = reply("reply000000000000000000008", "refuse eight", 3000);
	a = from_reactions(json_array());
	t = thread(posts, 2);
	assert_int_equal(answer_thread(&ctx, t, &a, &err), 0);
	assert_string_equal(a.a_reason, "eight");
	assert_string_equal(a.a_post, "reply000000000000000000008");
	json_decref(t);
}

static void
test_thread_bound(void **state)
{
	json_t *posts[ANSWER_THREAD_MAX], *t;
	struct bx_error err;
	struct answer a;
	char id[BRIDGE_ID_LEN + 1];
	size_t i;

	(void)state;
	/* The root is the first of order: the 200th post is its 199th reply. */
	for (i = 0; i < ANSWER_THREAD_MAX; i++) {
		snprintf(id, sizeof(id), "reply%021zu", i);
		posts[i] = reply(id, i + 1 < ANSWER_THREAD_MAX - 1 ? "chat" :
		    "approve", 2000 + (int64_t)i);
	}
	t = thread(posts, ANSWER_THREAD_MAX);
	answer_init(&a);
	assert_int_equal(answer_thread(&ctx, t, &a, &err), 0);
	assert_int_equal(a.a_verdict, ANSWER_APPROVE);
	assert_int_equal(a.a_at, 2000 + ANSWER_THREAD_MAX - 2);
	/* One post later is past the bound. */
	json_object_set_new(json_object_get(json_object_get(t, "posts"),
	    "reply000000000000000000198"), "message", json_string("chat"));
	answer_init(&a);
	assert_int_equal(answer_thread(&ctx, t, &a, &err), 0);
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	json_decref(t);
}

static void
test_shapes(void **state)
{
	struct bx_error err;
	struct answer a;
	json_t *v;

	(void)state;
	answer_init(&a);
	a.a_verdict = ANSWER_APPROVE;
	a.a_at = 7;
	v = json_pack("{s:[]}", "reactions");
	assert_int_equal(answer_reactions(&ctx, v, &a, &err), -1);
	assert_non_null(strstr(err.msg, "reactions are not a JSON array"));
	assert_int_equal(answer_thread(&ctx, v, &a, &err), -1);
	assert_non_null(strstr(err.msg, "not a post list"));
	json_decref(v);
	assert_int_equal(answer_thread(&ctx, NULL, &a, &err), -1);
	v = json_pack("{s:[s], s:[]}", "order", POST, "posts");
	assert_int_equal(answer_thread(&ctx, v, &a, &err), -1);
	json_decref(v);
	/* Failing leaves the answer as it was. */
	assert_int_equal(a.a_verdict, ANSWER_APPROVE);
	assert_int_equal(a.a_at, 7);
	/* Ids in order that are not strings, or not in posts: skipped. */
	v = json_pack("{s:[i, n, s], s:{}}", "order", 1,
	    "reply00000000000000000000a", "posts");
	answer_init(&a);
	assert_int_equal(answer_thread(&ctx, v, &a, &err), 0);
	assert_int_equal(a.a_verdict, ANSWER_NONE);
	json_decref(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reactions_count),
		cmocka_unit_test(test_reactions_ignored),
		cmocka_unit_test(test_owner_is_bot),
		cmocka_unit_test(test_reply_counts),
		cmocka_unit_test(test_reply_ignored),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_thread_bound),
		cmocka_unit_test(test_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
