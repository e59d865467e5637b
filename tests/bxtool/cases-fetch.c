/*
 * cases-fetch.c: bxtool fetch and the sandbox's curl, which each case
 * replaces in a mount namespace of the test's own (root, as the sandbox
 * tests are). Hidden behind /dev/null, its failure is told in words:
 * "cannot run /usr/bin/curl: ... install curl", not an exit status. A
 * script in its place shows how a secret's header reaches it: as a config
 * on its stdin (`--config -`), never in its argv.
 */
#include <sys/mount.h>

#include <sched.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cases.h"

#define SECRET_VALUE	"ghp_s3cretVALUEx9"

/* Puts path in /usr/bin/curl's place, in a mount namespace of our own. */
static void
replace_curl(const char *path)
{
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount(path, "/usr/bin/curl", NULL, MS_BIND, NULL) == -1)
		fail_msg("this case replaces curl in a mount namespace, which "
		    "needs root: %m");
}

void
test_fetch_without_curl(void **state)
{
	const char *args[] = { "fetch", "--max", "100", "--proxy",
	    "/nonexistent/socks.sock", "--cacert", "/nonexistent/ca.pem",
	    "https://good.test/", NULL };
	struct spawn s;

	(void)state;
	replace_curl("/dev/null");
	spawn_run(&s, args, NULL, 0, 0);
	assert_int_equal(umount("/usr/bin/curl"), 0);
	expect_bytes(&s, 0, "", 0, "failed cannot run /usr/bin/curl: "
	    "Permission denied (http_fetch runs the curl of the sandbox's "
	    "/usr: install curl)");
	spawn_free(&s);
}

/*
 * A secret's header line, given on bxtool's stdin (--secret-fd 0, as
 * brokerd runs it), reaches curl as `header = "..."` on curl's stdin, read
 * with --config -; no argument of curl's holds it, and curl is not told to
 * follow redirects (bxtool does, to the same host only).
 */
void
test_fetch_secret_to_curl(void **state)
{
	const char *args[] = { "fetch", "--max", "100", "--proxy",
	    "/nonexistent/socks.sock", "--cacert", "/nonexistent/ca.pem",
	    "--secret", "github", "--secret-fd", "0", "https://good.test/",
	    NULL };
	const char *line = "Authorization: Bearer " SECRET_VALUE "\n";
	char script[CASE_PATH_MAX], argv_path[CASE_PATH_MAX],
	    stdin_path[CASE_PATH_MAX], text[4 * CASE_PATH_MAX];
	char *got_argv, *got_stdin, *arg, *next, *last = NULL;
	struct spawn s;
	size_t len;
	int config = 0;

	(void)state;
	at(argv_path, "argv");
	at(stdin_path, "stdin");
	snprintf(text, sizeof(text), "#!/bin/sh\n"
	    "for a; do printf '%%s\\n' \"$a\"; done > '%s'\n"
	    "cat > '%s'\nexit 7\n", argv_path, stdin_path);
	make_file(at(script, "curl"), text, strlen(text), 0755);
	replace_curl(script);
	spawn_run(&s, args, line, strlen(line), 0);
	assert_int_equal(umount("/usr/bin/curl"), 0);
	spawn_free(&s);

	got_stdin = read_back(stdin_path, &len);
	assert_string_equal(got_stdin,
	    "header = \"Authorization: Bearer " SECRET_VALUE "\"\n");
	got_argv = read_back(argv_path, &len);
	for (arg = got_argv; *arg != '\0'; arg = next) {
		next = strchr(arg, '\n');
		assert_non_null(next);
		*next++ = '\0';
		if (strstr(arg, SECRET_VALUE) != NULL ||
		    strstr(arg, "Authorization") != NULL)
			fail_msg("curl's argument holds the secret: %s", arg);
		assert_string_not_equal(arg, "--location");
		/* "--config" and then "-", the one config curl reads. */
		if (strcmp(arg, "--config") == 0) {
			assert_memory_equal(next, "-\n", 2);
			config++;
		}
		last = arg;
	}
	assert_string_equal(last, "https://good.test/");
	assert_int_equal(config, 1);
	free(got_argv);
	free(got_stdin);
}
