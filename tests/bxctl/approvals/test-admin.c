/*
 * test-admin.c: bxctl approvals, approve, refuse and grants check, run as
 * the real binary against a fake admin socket: the exact lines printed,
 * the exit status, and the exact frames bxctl sent.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/types.h"
#include "bxctl/common/show.h"
#include "fake.h"
#include "run.h"

struct env {
	char		*dir;
	char		 sock[512];
	char		 config[512];	/* brokerd.toml: no grant, no secret */
	struct fake	*admin;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	char grants[600];
	FILE *f;

	assert_non_null(e);
	e->dir = run_tempdir();
	snprintf(e->sock, sizeof(e->sock), "%s/admin.sock", e->dir);
	snprintf(e->config, sizeof(e->config), "%s/brokerd.toml", e->dir);
	assert_non_null(f = fopen(e->config, "w"));
	fprintf(f, "[paths]\nhome = \"%s\"\ngrants = \"%s/grants\"\n", e->dir,
	    e->dir);
	assert_int_equal(fclose(f), 0);
	snprintf(grants, sizeof(grants), "%s/grants", e->dir);
	assert_int_equal(mkdir(grants, 0700), 0);
	e->admin = fake_admin_start(e->sock);
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	fake_stop(e->admin);
	run_rmdir(e->dir);
	free(e);
	return 0;
}

/* Runs bxctl CMD... --admin-socket <the fake>; up to four words. */
static void
run_admin(struct env *e, struct run_result *res, const char *a,
    const char *b, const char *c, const char *d)
{
	const char *args[8] = { a, b, c, d, NULL, NULL, NULL, NULL };
	size_t n = 0;

	while (args[n] != NULL)
		n++;
	args[n++] = "--admin-socket";
	args[n++] = e->sock;
	run_bxctl(args, e->dir, NULL, res);
}

static void
expect(struct run_result *res, int status, const char *out, const char *err)
{
	assert_string_equal(res->out, out);
	assert_string_equal(res->err, err);
	assert_int_equal(res->status, status);
}

/* A PendingApproval frame item created ago_ms ago, expiring in left_ms. */
static void
item(char *buf, size_t size, uint64_t id, const char *session,
    const char *grant, int64_t ago_ms, int64_t left_ms, const char *tool,
    const char *arguments_json)
{
	char created[BX_TIME_LEN + 1], expires[BX_TIME_LEN + 1];
	int64_t now = show_now();

	bx_time_format(now - ago_ms, created);
	bx_time_format(now + left_ms, expires);
	snprintf(buf, size, "{\"approval\":%llu,\"session\":\"%s\","
	    "\"call\":\"call_1\",\"tool\":\"%s\",\"arguments\":%s,"
	    "\"grant\":\"%s\",\"taint\":\"private\",\"created\":\"%s\","
	    "\"expires\":\"%s\"}", (unsigned long long)id, session, tool,
	    arguments_json, grant, created, expires);
}

static void
test_approvals_lists_two_lines_each(void **state)
{
	struct env *e = *state;
	struct run_result res;
	char a[2048], b[2048], list[4500];

	/*
	 * Whole units, rounded down. Each value sits half a second into its
	 * unit, so the lines stay the same for a minute however slowly bxctl
	 * starts (seconds are covered at a fixed "now" in test-show.c).
	 */
	item(a, sizeof(a), 41, "chat-1758200000000", "shell-scratch",
	    120500, 839500, "shell", "\"{\\\"command\\\": \\\"rm -rf "
	    "/home/kyle/scratch/build\\\", \\\"cwd\\\": "
	    "\\\"/home/kyle/scratch\\\"}\"");
	item(b, sizeof(b), 42, "short", "notes-read", 180500,
	    3 * 3600000 + 1800000,
	    "read_file", "\"{\\\"path\\\":\\\"/home/kyle/notes/a.md\\\"}\"");
	snprintf(list, sizeof(list), "{\"kind\":\"approval_list\","
	    "\"items\":[%s,%s]}", a, b);
	fake_admin_reply(e->admin, "approvals", list);
	run_admin(e, &res, "approvals", NULL, NULL, NULL);
	expect(&res, 0,
	    "41  2 min ago  expires in 13 min  session chat-1758\xe2\x80\xa6  "
	    "grant shell-scratch  taint private\n"
	    "    shell {\"command\": \"rm -rf /home/kyle/scratch/build\", "
	    "\"cwd\": \"/home/kyle/scratch\"}\n"
	    "42  3 min ago  expires in 3 h  session short  grant notes-read  "
	    "taint private\n"
	    "    read_file {\"path\":\"/home/kyle/notes/a.md\"}\n", "");
	assert_int_equal(fake_count(e->admin), 1);
	assert_string_equal(fake_received(e->admin, 0), "{\"kind\":\"approvals\"}");
	run_result_free(&res);
}

static void
test_approvals_empty(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "approvals",
	    "{\"kind\":\"approval_list\",\"items\":[]}");
	run_admin(e, &res, "approvals", NULL, NULL, NULL);
	expect(&res, 0, "approvals: none\n", "");
	run_result_free(&res);
}

static void
test_default_socket_under_home(void **state)
{
	struct env *e = *state;
	const char *args[] = { "approvals", NULL };
	struct run_result res;
	char path[600];
	struct fake *f;

	snprintf(path, sizeof(path), "%s/run", e->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/run/owner-broker", e->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/run/owner-broker/admin.sock", e->dir);
	f = fake_admin_start(path);
	fake_admin_reply(f, "approvals",
	    "{\"kind\":\"approval_list\",\"items\":[]}");
	run_bxctl(args, e->dir, NULL, &res);
	expect(&res, 0, "approvals: none\n", "");
	assert_int_equal(fake_count(f), 1);
	assert_int_equal(fake_count(e->admin), 0);
	run_result_free(&res);
	fake_stop(f);
}

static void
test_approve_runs(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "approve",
	    "{\"kind\":\"approve_result\",\"outcome\":{\"outcome\":\"ask\"}}");
	run_admin(e, &res, "approve", "41", NULL, NULL);
	expect(&res, 0, "approved 41: runs\n", "");
	assert_string_equal(fake_received(e->admin, 0),
	    "{\"kind\":\"approve\",\"approval\":41,\"by\":null,"
	    "\"post\":null}");
	run_result_free(&res);

	fake_admin_reply(e->admin, "approve", "{\"kind\":\"approve_result\","
	    "\"outcome\":{\"outcome\":\"allowed\"}}");
	run_admin(e, &res, "approve", "9223372036854775807", NULL, NULL);
	expect(&res, 0, "approved 9223372036854775807: runs\n", "");
	assert_string_equal(fake_received(e->admin, 1),
	    "{\"kind\":\"approve\",\"approval\":9223372036854775807,"
	    "\"by\":null,\"post\":null}");
	run_result_free(&res);
}

static void
test_approve_denied(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "approve", "{\"kind\":\"approve_result\","
	    "\"outcome\":{\"outcome\":\"denied\",\"reason\":\"taint_too_high\"}}");
	run_admin(e, &res, "approve", "41", NULL, NULL);
	expect(&res, 0, "approved 41: denied (taint_too_high)\n", "");
	run_result_free(&res);
}

static void
test_no_such_approval(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "approve", "{\"kind\":\"error\","
	    "\"code\":\"no_such_approval\",\"message\":\"no pending approval 7\"}");
	run_admin(e, &res, "approve", "7", NULL, NULL);
	expect(&res, 1, "", "bxctl: brokerd answered error no_such_approval: "
	    "no pending approval 7\n");
	run_result_free(&res);

	fake_admin_reply(e->admin, "refuse", "{\"kind\":\"error\","
	    "\"code\":\"no_such_approval\",\"message\":\"no pending approval 7\"}");
	run_admin(e, &res, "refuse", "7", NULL, NULL);
	expect(&res, 1, "", "bxctl: brokerd answered error no_such_approval: "
	    "no pending approval 7\n");
	run_result_free(&res);
}

static void
test_refuse(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "refuse", "{\"kind\":\"ok\"}");
	run_admin(e, &res, "refuse", "41", "--reason", "not now");
	expect(&res, 0, "refused 41\n", "");
	run_result_free(&res);
	run_admin(e, &res, "refuse", "41", NULL, NULL);
	expect(&res, 0, "refused 41\n", "");
	assert_int_equal(fake_count(e->admin), 2);
	assert_string_equal(fake_received(e->admin, 0),
	    "{\"kind\":\"refuse\",\"approval\":41,\"reason\":\"not now\","
	    "\"by\":null,\"post\":null}");
	assert_string_equal(fake_received(e->admin, 1),
	    "{\"kind\":\"refuse\",\"approval\":41,\"reason\":null,"
	    "\"by\":null,\"post\":null}");
	run_result_free(&res);
}

static void
test_grants_check_problems(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "check_grants", "{\"kind\":\"grants_report\","
	    "\"problems\":[{\"file\":\"grants/notes-read.toml\",\"line\":7,"
	    "\"problem\":\"unknown key \\\"mod\\\"\"},{\"file\":"
	    "\"grants/Bad.toml\",\"line\":null,\"problem\":\"\\\"Bad\\\" is "
	    "not a valid grant id\"}]}");
	run_admin(e, &res, "grants", "check", "--config", e->config);
	expect(&res, 1, "grants/notes-read.toml:7: unknown key \"mod\"\n"
	    "grants/Bad.toml: \"Bad\" is not a valid grant id\n", "");
	assert_string_equal(fake_received(e->admin, 0),
	    "{\"kind\":\"check_grants\"}");
	run_result_free(&res);
}

static void
test_grants_check_ok(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "check_grants",
	    "{\"kind\":\"grants_report\",\"problems\":[]}");
	run_admin(e, &res, "grants", "check", "--config", e->config);
	expect(&res, 0, "grants: ok\n", "");
	run_result_free(&res);
}

static void
test_not_running(void **state)
{
	struct env *e = *state;
	struct sockaddr_un sun;
	struct run_result res;
	char want[700];
	int fd;

	/* No socket file at all. */
	fake_stop(e->admin);
	e->admin = NULL;
	unlink(e->sock);
	snprintf(want, sizeof(want), "bxctl: brokerd is not running at %s\n",
	    e->sock);
	run_admin(e, &res, "approvals", NULL, NULL, NULL);
	expect(&res, 1, "", want);
	run_result_free(&res);
	run_admin(e, &res, "grants", "check", "--config", e->config);
	expect(&res, 1, "", want);
	run_result_free(&res);

	/* A stale socket file with nobody listening. */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, e->sock);
	assert_int_not_equal(fd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	run_admin(e, &res, "approve", "41", NULL, NULL);
	expect(&res, 1, "", want);
	run_result_free(&res);
}

static void
test_default_path_not_running(void **state)
{
	struct env *e = *state;
	const char *args[] = { "approvals", NULL };
	struct run_result res;
	char want[700];

	snprintf(want, sizeof(want), "bxctl: brokerd is not running at "
	    "%s/run/owner-broker/admin.sock\n", e->dir);
	run_bxctl(args, e->dir, NULL, &res);
	expect(&res, 1, "", want);
	run_result_free(&res);
	run_bxctl(args, NULL, NULL, &res);
	expect(&res, 1, "", "bxctl: brokerd is not running at "
	    "/var/lib/boxmaker/run/owner-broker/admin.sock\n");
	run_result_free(&res);
}

static void
test_bad_answers(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "approve", NULL);
	run_admin(e, &res, "approve", "41", NULL, NULL);
	expect(&res, 1, "", "bxctl: brokerd closed the connection before it "
	    "answered\n");
	run_result_free(&res);

	fake_admin_reply(e->admin, "approve", "{\"kind\":\"ok\"}");
	run_admin(e, &res, "approve", "41", NULL, NULL);
	expect(&res, 1, "", "bxctl: brokerd answered ok to approve\n");
	run_result_free(&res);

	fake_admin_reply(e->admin, "approvals", "{\"kind\":\"approval_list\"}");
	run_admin(e, &res, "approvals", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_string_equal(res.out, "");
	assert_non_null(strstr(res.err, "bxctl: brokerd sent a frame bxctl "
	    "cannot read: "));
	assert_non_null(strstr(res.err, "\"items\""));
	run_result_free(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_approvals_lists_two_lines_each, setup, teardown),
		cmocka_unit_test_setup_teardown(test_approvals_empty, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_default_socket_under_home,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_approve_runs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_approve_denied, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_no_such_approval, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_refuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grants_check_problems,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_grants_check_ok, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_not_running, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_default_path_not_running,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_answers, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
