/*
 * test-serve-peer.c: brokerd's peer checks (serve.h, roles.md section 4),
 * served in-process with loopd's jail uid set to JAIL_UID and the
 * sockets' modes opened by hand, so that only SO_PEERCRED stops a client.
 * As root, clients of other uids are forked children (tests/proto/
 * peer-client.h):
 *
 *	admin.sock	root (brokerd's own uid here) served; the jail uid and
 *			any other refused, even with the modes open
 *	broker.sock	the jail uid and root served; any other refused; with
 *			no jail uid known, only brokerd's own
 *	bridge.sock	the bridge's uid and root served; loopd's jail uid and
 *			any other refused; with no bridge uid known, only
 *			brokerd's own; a served bridge still gets forbidden
 *			for any kind but its four
 *
 * A refusal is error forbidden, sent before anything of the client's is
 * read, and printed once for two attempts of the same uid.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../proto/peer-client.h"
#include "broker-fixture.h"
#include "served-fixture.h"
#include "serve-client.h"

#define JAIL_UID	4242
#define OTHER_UID	4343
#define BRIDGE_UID	4444

#define TOOL_REQUEST	"{\"kind\":\"tool_request\",\"session\":\"s1\"," \
			"\"call\":\"c1\",\"tool\":\"read_file\"," \
			"\"arguments\":\"{\\\"path\\\":\\\"/docs/a\\\"}\"}\n"
#define APPROVALS	"{\"kind\":\"approvals\"}\n"
#define CHECK_GRANTS	"{\"kind\":\"check_grants\"}\n"
#define WAIT_NONE	"{\"kind\":\"approvals_wait\",\"known\":[]," \
			"\"timeout_ms\":0}\n"

/*
 * A server whose broker.sock serves JAIL_UID and whose bridge.sock serves
 * BRIDGE_UID when jailed is true, the sockets' modes opened.
 */
static struct served *
start(bool jailed)
{
	struct bfix *f = bfix_new(900000, NULL);
	struct served *x;

	bfix_grant(f, "docs", "read_file", "auto", "secret", "public",
	    false, "paths = [\"/docs\"]");
	x = served_start(f, jailed, JAIL_UID, BRIDGE_UID);
	peer_open_modes(f->home, x->broker);
	peer_open_modes(f->home, x->admin);
	peer_open_modes(f->home, x->bridge);
	return x;
}

static void
stop(struct served *x)
{
	served_stop(x);
}

/* How many times brokerd printed the refusal of uid on socket. */
static size_t
refusals(struct served *x, const char *socket, uid_t uid)
{
	char want[128];

	snprintf(want, sizeof(want), "brokerd: refused a connection on %s "
	    "from uid %u: ", socket, (unsigned)uid);
	return bfix_log_count(x->f, want);
}

static int
need_root(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	return 0;
}

static void
test_admin_sock_refuses_the_jail_uid(void **state)
{
	struct served *x = start(true);
	struct bx_msg *m;

	(void)state;
	/* The modes let it in; the peer check does not. Twice, printed once. */
	peer_expect_forbidden(peer_exchange(JAIL_UID, x->admin, APPROVALS),
	    "admin.sock", JAIL_UID);
	peer_expect_forbidden(peer_exchange(JAIL_UID, x->admin, APPROVALS),
	    "admin.sock", JAIL_UID);
	assert_int_equal(refusals(x, "admin.sock", JAIL_UID), 1);
	assert_true(bfix_logged(x->f, "admin.sock serves only uid 0; "
	    "see docs/runbook.md#socket-forbidden"));
	peer_expect_forbidden(peer_exchange(OTHER_UID, x->admin, APPROVALS),
	    "admin.sock", OTHER_UID);
	assert_int_equal(refusals(x, "admin.sock", OTHER_UID), 1);
	/* brokerd's own uid (root here) is served as before. */
	m = one(x->admin, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->kind, BX_MSG_APPROVAL_LIST);
	bx_msg_free(m);
	stop(x);
}

static void
test_broker_sock_serves_the_jail_uid_only(void **state)
{
	struct served *x = start(true);
	struct bx_msg *m;

	(void)state;
	m = peer_exchange(JAIL_UID, x->broker, TOOL_REQUEST);
	assert_int_equal(m->kind, BX_MSG_TOOL_RESPONSE);
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	bx_msg_free(m);
	assert_int_equal(recording_count(&x->f->rec), 1);
	peer_expect_forbidden(peer_exchange(OTHER_UID, x->broker,
	    TOOL_REQUEST), "broker.sock", OTHER_UID);
	peer_expect_forbidden(peer_exchange(OTHER_UID, x->broker,
	    TOOL_REQUEST), "broker.sock", OTHER_UID);
	assert_int_equal(refusals(x, "broker.sock", OTHER_UID), 1);
	assert_true(bfix_logged(x->f, "broker.sock serves only uids 4242 and "
	    "0; see docs/runbook.md#socket-forbidden"));
	/* Nothing was decided for the refused ones. */
	assert_int_equal(recording_count(&x->f->rec), 1);
	m = one(x->broker, bx_msg_tool_request("s1", "c2", "read_file",
	    "{\"path\":\"/docs/a\"}"));
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	bx_msg_free(m);
	assert_int_equal(refusals(x, "broker.sock", 0), 0);
	stop(x);
}

/* Without loopd's jail uid, broker.sock serves brokerd's own uid only. */
static void
test_broker_sock_without_the_jail_uid(void **state)
{
	struct served *x = start(false);
	struct bx_msg *m;

	(void)state;
	peer_expect_forbidden(peer_exchange(JAIL_UID, x->broker, TOOL_REQUEST),
	    "broker.sock", JAIL_UID);
	assert_int_equal(refusals(x, "broker.sock", JAIL_UID), 1);
	assert_int_equal(recording_count(&x->f->rec), 0);
	m = one(x->broker, bx_msg_tool_request("s1", "c1", "read_file",
	    "{\"path\":\"/docs/a\"}"));
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	bx_msg_free(m);
	stop(x);
}

/*
 * bridge.sock serves the bridge's uid and brokerd's own; loopd's jail uid
 * and any other are refused before a byte is read; the bridge reaches
 * neither admin.sock nor broker.sock. Served, it is still forbidden every
 * kind but its four.
 */
static void
test_bridge_sock_serves_the_bridge_uid_only(void **state)
{
	struct served *x = start(true);
	struct bx_msg *m;

	(void)state;
	m = peer_exchange(BRIDGE_UID, x->bridge, APPROVALS);
	assert_int_equal(m->kind, BX_MSG_APPROVAL_LIST);
	bx_msg_free(m);
	m = peer_exchange(BRIDGE_UID, x->bridge, WAIT_NONE);
	assert_int_equal(m->kind, BX_MSG_APPROVAL_CHANGES);
	bx_msg_free(m);
	peer_expect_forbidden(peer_exchange(JAIL_UID, x->bridge, APPROVALS),
	    "bridge.sock", JAIL_UID);
	peer_expect_forbidden(peer_exchange(OTHER_UID, x->bridge, NULL),
	    "bridge.sock", OTHER_UID);
	assert_true(bfix_logged(x->f, "bridge.sock serves only uids 4444 and "
	    "0; see docs/runbook.md#socket-forbidden"));
	peer_expect_forbidden(peer_exchange(BRIDGE_UID, x->admin, APPROVALS),
	    "admin.sock", BRIDGE_UID);
	peer_expect_forbidden(peer_exchange(BRIDGE_UID, x->broker,
	    TOOL_REQUEST), "broker.sock", BRIDGE_UID);
	/* Served, but not for these: forbidden, logged, nothing decided. */
	m = peer_exchange(BRIDGE_UID, x->bridge, TOOL_REQUEST);
	assert_int_equal(m->kind, BX_MSG_ERROR);
	assert_int_equal(m->error.code, BX_CODE_FORBIDDEN);
	bx_msg_free(m);
	m = peer_exchange(BRIDGE_UID, x->bridge, CHECK_GRANTS);
	assert_int_equal(m->error.code, BX_CODE_FORBIDDEN);
	bx_msg_free(m);
	assert_true(bfix_logged(x->f, "serve: a tool_request message on "
	    "bridge.sock"));
	assert_true(bfix_logged(x->f, "serve: a check_grants message on "
	    "bridge.sock"));
	assert_int_equal(recording_count(&x->f->rec), 0);
	/* brokerd's own uid (root here) is served too. */
	m = one(x->bridge, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->kind, BX_MSG_APPROVAL_LIST);
	bx_msg_free(m);
	assert_int_equal(refusals(x, "bridge.sock", BRIDGE_UID), 0);
	stop(x);
}

/* Without the bridge's uid, bridge.sock fails closed: brokerd's own only. */
static void
test_bridge_sock_without_the_bridge_uid(void **state)
{
	struct served *x = start(false);
	struct bx_msg *m;

	(void)state;
	peer_expect_forbidden(peer_exchange(BRIDGE_UID, x->bridge, APPROVALS),
	    "bridge.sock", BRIDGE_UID);
	assert_int_equal(refusals(x, "bridge.sock", BRIDGE_UID), 1);
	m = one(x->bridge, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->kind, BX_MSG_APPROVAL_LIST);
	bx_msg_free(m);
	/* The other sockets are served as ever. */
	m = one(x->admin, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->kind, BX_MSG_APPROVAL_LIST);
	bx_msg_free(m);
	stop(x);
}

/*
 * The refusal comes before any read: a client that sends nothing gets it
 * at once, not after the first-frame deadline (a minute here).
 */
static void
test_refused_before_the_first_frame(void **state)
{
	struct served *x = start(true);

	(void)state;
	peer_expect_forbidden(peer_exchange(OTHER_UID, x->admin, NULL),
	    "admin.sock", OTHER_UID);
	peer_expect_forbidden(peer_exchange(JAIL_UID, x->admin, NULL),
	    "admin.sock", JAIL_UID);
	peer_expect_forbidden(peer_exchange(OTHER_UID, x->broker, NULL),
	    "broker.sock", OTHER_UID);
	/* Each socket prints its own refusals. */
	assert_int_equal(refusals(x, "admin.sock", OTHER_UID), 1);
	assert_int_equal(refusals(x, "broker.sock", OTHER_UID), 1);
	stop(x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_admin_sock_refuses_the_jail_uid,
		    need_root),
		cmocka_unit_test_setup(test_broker_sock_serves_the_jail_uid_only,
		    need_root),
		cmocka_unit_test_setup(test_broker_sock_without_the_jail_uid,
		    need_root),
		cmocka_unit_test_setup(test_refused_before_the_first_frame,
		    need_root),
		cmocka_unit_test_setup(
		    test_bridge_sock_serves_the_bridge_uid_only, need_root),
		cmocka_unit_test_setup(test_bridge_sock_without_the_bridge_uid,
		    need_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
