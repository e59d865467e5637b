/*
 * test-frame.c: the NDJSON frame reader and writer of src/proto/frame.h
 * over socketpairs.
 */
#include <sys/socket.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/frame.h"

static void
pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
}

static void
test_two_frames_then_eof(void **state)
{
	struct bx_frame_reader r;
	struct bx_error err;
	const char *line;
	size_t len;
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(bx_frame_write(sv[0], "{\"a\":1}\n{}\n", 11, -1,
	    &err), BX_FRAME_OK);
	close(sv[0]);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_int_equal(len, 7);
	assert_string_equal(line, "{\"a\":1}");
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{}");
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_EOF);
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_EOF);
	bx_frame_reader_free(&r);
	close(sv[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_frames_then_eof),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
