/*
 * cases-fetch.c: bxtool fetch where the sandbox's curl cannot run. The
 * case hides /usr/bin/curl behind /dev/null in a mount namespace of the
 * test's own (root, as the sandbox tests are), so that the failure is
 * told in words: "cannot run /usr/bin/curl: ... install curl", not an
 * exit status.
 */
#include <sys/mount.h>

#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cases.h"

void
test_fetch_without_curl(void **state)
{
	const char *args[] = { "fetch", "--max", "100", "--proxy",
	    "/nonexistent/socks.sock", "--cacert", "/nonexistent/ca.pem",
	    "https://good.test/", NULL };
	struct spawn s;

	(void)state;
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("/dev/null", "/usr/bin/curl", NULL, MS_BIND, NULL) == -1)
		fail_msg("this case hides curl in a mount namespace, which "
		    "needs root: %m");
	spawn_run(&s, args, NULL, 0, 0);
	assert_int_equal(umount("/usr/bin/curl"), 0);
	expect_bytes(&s, 0, "", 0, "failed cannot run /usr/bin/curl: "
	    "Permission denied (http_fetch runs the curl of the sandbox's "
	    "/usr: install curl)");
	spawn_free(&s);
}
