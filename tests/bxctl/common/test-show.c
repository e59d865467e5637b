/*
 * test-show.c: src/bxctl/common/show.h, the two-line form of a pending approval:
 * how durations are rounded, how session ids are cut, and the block
 * itself at a fixed "now".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bxctl/common/show.h"

static const char *
duration(int64_t ms)
{
	static char buf[SHOW_DURATION_MAX];

	show_duration(ms, buf);
	return buf;
}

static void
test_durations_round_down(void **state)
{
	(void)state;
	assert_string_equal(duration(-5000), "0 s");
	assert_string_equal(duration(0), "0 s");
	assert_string_equal(duration(999), "0 s");
	assert_string_equal(duration(59999), "59 s");
	assert_string_equal(duration(60000), "1 min");
	assert_string_equal(duration(13 * 60000 + 59999), "13 min");
	assert_string_equal(duration(3600000 - 1), "59 min");
	assert_string_equal(duration(3600000), "1 h");
	assert_string_equal(duration(47 * 3600000LL + 3599999), "47 h");
	assert_string_equal(duration(48 * 3600000LL), "2 d");
	assert_string_equal(duration(400 * 86400000LL), "400 d");
}

static void
test_sessions_cut_after_nine(void **state)
{
	char buf[64];

	(void)state;
	show_session("chat-1758200000000", buf, sizeof(buf));
	assert_string_equal(buf, "chat-1758\xe2\x80\xa6");
	show_session("0123456789", buf, sizeof(buf));
	assert_string_equal(buf, "0123456789");
	show_session("0123456789a", buf, sizeof(buf));
	assert_string_equal(buf, "012345678\xe2\x80\xa6");
	show_session("s", buf, sizeof(buf));
	assert_string_equal(buf, "s");
}

static void
test_block(void **state)
{
	struct bx_pending_approval pa = {
		.approval = 41,
		.session = "chat-1758200000000",
		.call = "call_1",
		.tool = "shell",
		.arguments = "{\"command\": \"rm -rf /home/kyle/scratch/build\", "
		    "\"cwd\": \"/home/kyle/scratch\"}",
		.grant = "shell-scratch",
		.taint = BX_CLASS_PRIVATE,
		.created = 1000000,
		.expires = 1000000 + 900000,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&buf, &len));
	assert_int_equal(show_approval(fp, &pa, 1000000 + 120000), 0);
	pa.arguments = "{}";
	pa.taint = BX_CLASS_SECRET;
	assert_int_equal(show_approval(fp, &pa, pa.expires), 0);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(buf,
	    "41  2 min ago  expires in 13 min  session chat-1758\xe2\x80\xa6  "
	    "grant shell-scratch  taint private\n"
	    "    shell {\"command\": \"rm -rf /home/kyle/scratch/build\", "
	    "\"cwd\": \"/home/kyle/scratch\"}\n"
	    "41  15 min ago  expired  session chat-1758\xe2\x80\xa6  "
	    "grant shell-scratch  taint secret\n"
	    "    shell {}\n");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations_round_down),
		cmocka_unit_test(test_sessions_cut_after_nine),
		cmocka_unit_test(test_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
