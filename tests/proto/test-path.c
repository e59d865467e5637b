/*
 * test-path.c: the one form check for absolute paths (proto/path.h), which
 * grants, tool arguments and both daemons' configurations share.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/path.h"

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

static void
test_paths(void **state)
{
	static const char *good[] = {
		"/", "/home/kyle/notes", "/home/kyle/notes/a.md", "/a",
		"/.ssh", "/a/..b", "/a/b.", "/a/...", "/a b/c",
	};
	static const struct {
		const char	*path;
		const char	*why;
	} bad[] = {
		{ "", "absolute" },
		{ "notes/a.md", "absolute" },
		{ "/home/kyle/notes/../.ssh/id", ". or .." },
		{ "/home/kyle//notes/./a.md", "empty component" },
		{ "/home/kyle/notes/./a.md", ". or .." },
		{ "/a/.", ". or .." },
		{ "/..", ". or .." },
		{ "/a/", "ends with /" },
		{ "//", "empty component" },
	};
	struct bx_error err;
	char *p;
	size_t i;

	(void)state;
	for (i = 0; i < LEN(good); i++)
		if (bx_path_check(good[i], strlen(good[i]), &err) != 0)
			fail_msg("%s: %s", good[i], err.msg);
	for (i = 0; i < LEN(bad); i++) {
		if (bx_path_check(bad[i].path, strlen(bad[i].path),
		    &err) != -1)
			fail_msg("accepted %s", bad[i].path);
		if (strstr(err.msg, bad[i].why) == NULL)
			fail_msg("%s: %s", bad[i].path, err.msg);
	}
	assert_int_equal(bx_path_check("/a\0b", 4, &err), -1);
	assert_non_null(strstr(err.msg, "NUL"));
	p = malloc(BX_PATH_MAX + 2);
	assert_non_null(p);
	memset(p, 'a', BX_PATH_MAX + 1);
	p[0] = '/';
	assert_int_equal(bx_path_check(p, BX_PATH_MAX, &err), 0);
	assert_int_equal(bx_path_check(p, BX_PATH_MAX + 1, &err), -1);
	assert_non_null(strstr(err.msg, "longer than 4096"));
	free(p);
}

static void
test_socket_paths(void **state)
{
	char p[BX_SOCKET_PATH_MAX + 2];
	struct bx_error err;

	(void)state;
	memset(p, 'a', sizeof(p));
	p[0] = '/';
	assert_int_equal(bx_socket_path_check(p, BX_SOCKET_PATH_MAX, &err), 0);
	assert_int_equal(bx_socket_path_check(p, BX_SOCKET_PATH_MAX + 1, &err),
	    -1);
	assert_string_equal(err.msg, "a socket path is at most 107 bytes");
	assert_int_equal(bx_socket_path_check("/a//b.sock", 10, &err), -1);
	assert_non_null(strstr(err.msg, "empty component"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_socket_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
