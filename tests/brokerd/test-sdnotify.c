/*
 * test-sdnotify.c: brokerd's readiness message (brokerd/sdnotify.h): the
 * variable is taken out of the environment, the datagram reaches a path
 * or an abstract socket, nothing is sent without it, and a value that is
 * no socket address is refused.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "brokerd/sdnotify.h"
#include "grants-fixture.h"

/* Binds a datagram socket at name ('@' first: abstract); returns it. */
static int
listener(const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(name) + (name[0] == '/'));
	int fd;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", name);
	if (name[0] == '@')
		sun.sun_path[0] = '\0';
	assert_true((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, len), 0);
	return fd;
}

static void
expect_ready(const char *name)
{
	struct sdnotify n;
	struct bx_error err;
	char buf[32];
	ssize_t got;
	int fd = listener(name);

	assert_int_equal(setenv("NOTIFY_SOCKET", name, 1), 0);
	assert_int_equal(sdnotify_take(&n, &err), 0);
	assert_true(n.sn_set);
	/* Gone before any runtime could inherit it. */
	assert_null(getenv("NOTIFY_SOCKET"));
	if (sdnotify_send(&n, "READY=1", &err) == -1)
		fail_msg("%s", err.msg);
	got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	assert_int_equal(got, 7);
	assert_memory_equal(buf, "READY=1", 7);
	close(fd);
}

static void
test_path_and_abstract(void **state)
{
	char *dir = fixture_dir(), path[4096], abstract[64];

	(void)state;
	snprintf(path, sizeof(path), "%s/notify", dir);
	expect_ready(path);
	snprintf(abstract, sizeof(abstract), "@bx-sdnotify-%d", (int)getpid());
	expect_ready(abstract);
	fixture_remove(dir);
	free(dir);
}

static void
test_unset_sends_nothing(void **state)
{
	struct sdnotify n;
	struct bx_error err;

	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(sdnotify_take(&n, &err), 0);
	assert_false(n.sn_set);
	assert_int_equal(sdnotify_send(&n, "READY=1", &err), 0);
}

static void
test_bad_values(void **state)
{
	struct sdnotify n;
	struct bx_error err;
	char long_path[200];

	(void)state;
	assert_int_equal(setenv("NOTIFY_SOCKET", "run/notify", 1), 0);
	assert_int_equal(sdnotify_take(&n, &err), -1);
	assert_string_equal(err.msg, "NOTIFY_SOCKET is not a socket address: "
	    "run/notify");
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	assert_int_equal(setenv("NOTIFY_SOCKET", long_path, 1), 0);
	assert_int_equal(sdnotify_take(&n, &err), -1);
	unsetenv("NOTIFY_SOCKET");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_and_abstract),
		cmocka_unit_test(test_unset_sends_nothing),
		cmocka_unit_test(test_bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
