/*
 * answer-fuzzer.c: libFuzzer harness for bxbridge's reading of the
 * owner's answers (src/bxbridge/answer.c) from what a Mattermost server
 * sends: a post's reactions and its thread, as JSON the bridge parsed,
 * and a reply's text. The whole input is the text, and also JSON (any
 * value, as jansson reads it) given both as the reactions and as the
 * thread.
 *
 * What must hold, or the harness aborts:
 * - answer_text: an approval is a message that is "approve" in any case
 *   once trimmed, with no reason; a refusal starts, trimmed, with
 *   "refuse" in any case, then whitespace or nothing, and its reason is
 *   at most ANSWER_REASON_MAX bytes, a prefix of what follows, valid
 *   UTF-8 when the message was (the oracle is fuzz.h's, not answer.c's);
 * - a reading that fails leaves the answer as it was, and says why;
 * - nothing counts for an owner whose id is nowhere in the input (an
 *   id the harness knows is absent: STRANGER, unless the fuzzer wrote it);
 * - a counted answer is the owner's: the input holds the owner's id;
 * - the answer does not depend on the order of the items: the reactions
 *   reversed give the same, and so does a thread whose "order" is
 *   reversed (when it is within ANSWER_THREAD_MAX).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bxbridge/answer.h"
#include "fuzz.h"

/* libFuzzer's inputs are smaller; the server's are at most 1 MiB. */
#define FUZZ_INPUT_MAX	(256 * 1024)

#define OWNER	"owner0000000000000000000aa"
#define STRANGER "nobody0000000000000000000z"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const struct answer_context ctx = {
	.ac_owner = OWNER,
	.ac_bot = "bridgebot00000000000000000",
	.ac_post = "request0000000000000000000",
	.ac_channel = "dmchannel00000000000000000",
};

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The oracle of answer_text, written apart. */
static void
check_text(const char *msg)
{
	char reason[ANSWER_REASON_MAX + 1];
	enum answer_verdict v;
	size_t start = 0, end = strlen(msg), i, rest;

	memset(reason, 'x', sizeof(reason));
	v = answer_text(msg, reason);
	while (start < end && is_space(msg[start]))
		start++;
	while (end > start && is_space(msg[end - 1]))
		end--;
	if (v == ANSWER_APPROVE) {
		check(end - start == 7);
		for (i = 0; i < 7; i++)
			check(tolower((unsigned char)msg[start + i]) ==
			    "approve"[i]);
		check(reason[0] == '\0');
		return;
	}
	if (v == ANSWER_NONE)
		return;
	check(v == ANSWER_REFUSE);
	check(end - start >= 6);
	for (i = 0; i < 6; i++)
		check(tolower((unsigned char)msg[start + i]) == "refuse"[i]);
	check(end - start == 6 || is_space(msg[start + 6]));
	rest = strlen(reason);
	check(rest <= ANSWER_REASON_MAX);
	check(strstr(msg + start + 6, reason) != NULL);
	if (rest > 0)
		check(!is_space(reason[0]) && !is_space(reason[rest - 1]));
	if (fuzz_utf8(msg, strlen(msg)))
		check(fuzz_utf8(reason, rest));
}

/* read on v, checked against a failure's promise; the answer. */
static struct answer
read_one(int (*read)(const struct answer_context *, const json_t *,
    struct answer *, struct bx_error *), const struct answer_context *c,
    const json_t *v, bool *ok)
{
	struct answer a, before;
	struct bx_error err = { "" };

	answer_init(&a);
	a.a_at = 12345;		/* a mark a failure must leave */
	before = a;
	*ok = read(c, v, &a, &err) == 0;
	if (!*ok) {
		check(memcmp(&a, &before, sizeof(a)) == 0);
		check(err.msg[0] != '\0');
	}
	return a;
}

static bool
same(const struct answer *x, const struct answer *y)
{
	return x->a_verdict == y->a_verdict && (x->a_verdict == ANSWER_NONE ||
	    (x->a_source == y->a_source && x->a_at == y->a_at &&
	    strcmp(x->a_post, y->a_post) == 0 &&
	    strcmp(x->a_reason, y->a_reason) == 0));
}

/* v's array items in reverse, as a new array. */
static json_t *
reversed(const json_t *v)
{
	json_t *r = json_array();
	size_t i, n = json_array_size(v);

	check(r != NULL);
	for (i = n; i > 0; i--)
		check(json_array_append(r, json_array_get(v, i - 1)) == 0);
	return r;
}

/*
 * v read as reactions and as a thread; owner_in and stranger_in say
 * whether OWNER and STRANGER are in the input (comparisons guide the
 * fuzzer to either).
 */
static void
check_reads(const json_t *v, bool owner_in, bool stranger_in)
{
	struct answer_context nobody = ctx;
	struct answer a, b;
	json_t *r, *t;
	bool ok, ok2;

	nobody.ac_owner = STRANGER;
	a = read_one(answer_reactions, &ctx, v, &ok);
	if (ok && a.a_verdict != ANSWER_NONE)
		check(owner_in && a.a_source == ANSWER_REACTION);
	b = read_one(answer_reactions, &nobody, v, &ok2);
	check(ok == ok2 &&
	    (!ok || stranger_in || b.a_verdict == ANSWER_NONE));
	if (ok && json_is_array(v)) {
		r = reversed(v);
		b = read_one(answer_reactions, &ctx, r, &ok2);
		check(ok2 && same(&a, &b));
		json_decref(r);
	}

	a = read_one(answer_thread, &ctx, v, &ok);
	if (ok && a.a_verdict != ANSWER_NONE)
		check(owner_in && a.a_source == ANSWER_REPLY);
	b = read_one(answer_thread, &nobody, v, &ok2);
	check(ok == ok2 &&
	    (!ok || stranger_in || b.a_verdict == ANSWER_NONE));
	if (ok && json_array_size(json_object_get(v, "order")) <=
	    ANSWER_THREAD_MAX) {
		check((t = json_deep_copy(v)) != NULL);
		check(json_object_set_new(t, "order",
		    reversed(json_object_get(v, "order"))) == 0);
		b = read_one(answer_thread, &ctx, t, &ok2);
		check(ok2 && same(&a, &b));
		json_decref(t);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	char *text;
	json_t *v;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	check((text = malloc(size + 1)) != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	check_text(text);
	v = json_loadb((const char *)data, size, JSON_DECODE_ANY, &jerr);
	if (v != NULL) {
		/* jansson decodes \u escapes: the id may be written so. */
		char *dump = json_dumps(v, JSON_ENCODE_ANY);

		check(dump != NULL);
		check_reads(v, strstr(dump, OWNER) != NULL,
		    strstr(dump, STRANGER) != NULL);
		free(dump);
		json_decref(v);
	}
	free(text);
	return 0;
}
