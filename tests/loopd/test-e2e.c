/*
 * test-e2e.c: the end-to-end test of design section 12, in one process:
 * the fake llama-server, loopd's turn loop with its BrokerPort, and
 * brokerd's library serving broker.sock with the recording runtime. The
 * scripted model calls call_tool for read_file with no grant; its next
 * request carries "Denied: no grant allows this call."; the audit log
 * holds one Decision record, denied with no_grant; nothing ran. Then the
 * same with a real runtime (bwrap, so that the test needs no podman
 * start-up per call): an allowed read_file's text, read in a sandbox,
 * reaches the model. Then the owner's stop of an ask call, approved or still
 * pending. brokerd serves from its own thread, as serve_main would run it.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>

#include "brokerd/approvals.h"
#include "brokerd/runner/runner.h"
#include "brokerd/serve.h"
#include "fake_llama.h"
#include "loopd/broker_port.h"
#include "loopd/turn.h"
#include "proto/clock.h"
#include "proto/frame.h"
#include "proto/unixsock.h"
#include "recording.h"
#include "testutil.h"

/*
 * brokerd in-process: the real libbrokerd (audit writer, state store,
 * approvals, broker, serve) over real broker.sock and admin.sock in the
 * test home, with the recording runtime of tests/brokerd.
 */

struct e2e_broker {
	char			 eb_grants[4096];
	char			 eb_broker_sock[108];
	char			 eb_admin_sock[108];
	struct recording	 eb_rec;
	struct runtime		 eb_runtime;
	struct config_runner	 eb_runner_cfg;
	struct runner_sandbox	*eb_sandbox;	/* NULL: the recording one */
	struct audit		*eb_audit;
	struct state_store	*eb_state;
	struct approvals	*eb_approvals;
	struct broker		*eb_broker;
	struct serve		*eb_serve;
	pthread_t		 eb_thread;
};

static void
die(const char *what, const struct bx_error *err)
{
	fprintf(stderr, "e2e_broker: %s: %s\n", what, err->msg);
	abort();
}

static void *
run(void *arg)
{
	struct e2e_broker *b = arg;
	struct bx_error err;

	if (serve_run(b->eb_serve, &err) == -1)
		die("serve_run", &err);
	return NULL;
}

/* The real bwrap runtime, the build's helpers, as serve_main makes it. */
static void
use_sandbox(struct e2e_broker *b, const char *home)
{
	struct runner_sandbox_config rc;
	struct bx_error err;
	char bxtool[4096], bxegress[4096];
	size_t removed;

	config_runner_defaults(&b->eb_runner_cfg);
	b->eb_runner_cfg.cr_kind = RUNNER_BWRAP;
	snprintf(bxtool, sizeof(bxtool), "%s/src/bxtool/bxtool",
	    getenv("BX_BUILD_ROOT"));
	snprintf(bxegress, sizeof(bxegress), "%s/src/bxegress/bxegress",
	    getenv("BX_BUILD_ROOT"));
	if ((b->eb_runner_cfg.cr_bxtool_path = strdup(bxtool)) == NULL ||
	    (b->eb_runner_cfg.cr_bxegress_path = strdup(bxegress)) == NULL)
		abort();
	memset(&rc, 0, sizeof(rc));
	rc.rsc_runner = &b->eb_runner_cfg;
	rc.rsc_home = home;
	rc.rsc_grants = b->eb_grants;
	rc.rsc_broker_socket = b->eb_broker_sock;
	rc.rsc_admin_socket = b->eb_admin_sock;
	if (runner_sandbox_new(&rc, &b->eb_sandbox, &err) == -1 ||
	    runner_sandbox_sweep(b->eb_sandbox, &removed, &err) == -1 ||
	    runner_sandbox_check(b->eb_sandbox, &err) == -1)
		die("the bwrap runtime (is bubblewrap installed?)", &err);
}

static struct e2e_broker *
e2e_broker_start(const char *home, bool sandbox)
{
	struct audit_config ac = { .home = home };
	struct broker_config bc;
	struct serve_config sc;
	struct e2e_broker *b;
	struct bx_error err;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		abort();
	snprintf(b->eb_grants, sizeof(b->eb_grants), "%s/grants", home);
	mkdir(b->eb_grants, 0700);
	snprintf(b->eb_broker_sock, sizeof(b->eb_broker_sock),
	    "%s/run/loop-broker/broker.sock", home);
	snprintf(b->eb_admin_sock, sizeof(b->eb_admin_sock),
	    "%s/run/owner-broker/admin.sock", home);
	recording_init(&b->eb_rec);
	b->eb_runtime = recording_runtime(&b->eb_rec);
	if (audit_open(&ac, &b->eb_audit, &err) != 0)
		die("audit_open", &err);
	if ((b->eb_state = state_open(home, &err)) == NULL)
		die("state_open", &err);
	if (sandbox)
		use_sandbox(b, home);
	if ((b->eb_approvals = approvals_new()) == NULL)
		abort();
	memset(&bc, 0, sizeof(bc));
	bc.grants_dir = b->eb_grants;
	bc.ttl_ms = 60000;
	bc.audit = b->eb_audit;
	bc.state = b->eb_state;
	bc.approvals = b->eb_approvals;
	bc.runtime = b->eb_sandbox != NULL ?
	    runner_sandbox_runtime(b->eb_sandbox) : &b->eb_runtime;
	if ((b->eb_broker = broker_new(&bc, &err)) == NULL)
		die("broker_new", &err);
	memset(&sc, 0, sizeof(sc));
	sc.broker_socket = b->eb_broker_sock;
	sc.admin_socket = b->eb_admin_sock;
	sc.broker = b->eb_broker;
	sc.stop_fd = -1;
	if ((b->eb_serve = serve_new(&sc, &err)) == NULL)
		die("serve_new", &err);
	if (pthread_create(&b->eb_thread, NULL, run, b) != 0)
		abort();
	return b;
}

static void
e2e_broker_stop(struct e2e_broker *b)
{
	if (b == NULL)
		return;
	serve_stop(b->eb_serve);
	pthread_join(b->eb_thread, NULL);
	serve_free(b->eb_serve);
	broker_free(b->eb_broker);
	approvals_free(b->eb_approvals);
	state_close(b->eb_state);
	audit_close(b->eb_audit);
	recording_free(&b->eb_rec);
	runner_sandbox_free(b->eb_sandbox);
	config_runner_clear(&b->eb_runner_cfg);
	free(b);
}

static const char *
e2e_broker_socket(const struct e2e_broker *b)
{
	return b->eb_broker_sock;
}

static size_t
e2e_broker_runs(struct e2e_broker *b)
{
	return recording_count(&b->eb_rec);
}

/* The single audit file's lines; fails unless there is exactly one file. */
static char *
audit_log(const char *home)
{
	char dir[4096], name[300];
	struct dirent *de;
	int files = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/audit", home);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".jsonl") != NULL) {
			snprintf(name, sizeof(name), "audit/%s", de->d_name);
			files++;
		}
	closedir(d);
	assert_int_equal(files, 1);
	return tu_read(home, name);
}

/* One turn's worth of parts: the fake model, loopd's client and port, brokerd. */
struct e2e {
	struct fake_llama	*e_fl;
	struct model_client	*e_mc;
	struct e2e_broker	*e_broker;
	struct bport		*e_bp;
	struct tool_port	 e_port;
	struct turn_env		 e_env;
};

static void
e2e_up(struct e2e *e, const char *home, const char *script, bool sandbox)
{
	struct fake_llama_opts opts = { .script = script };
	struct bx_error err;
	char url[64];

	memset(e, 0, sizeof(*e));
	if (fake_llama_start(&opts, &e->e_fl, &err) == -1)
		fail_msg("%s", err.msg);
	fake_llama_url(e->e_fl, url, sizeof(url));
	assert_int_equal(model_client_new(url, "m", NULL, 30, 4096, NULL,
	    &e->e_mc, &err), 0);
	e->e_broker = e2e_broker_start(home, sandbox);
	assert_int_equal(bport_new(e2e_broker_socket(e->e_broker), NULL,
	    &e->e_bp, &err), 0);
	bport_tool_port(e->e_bp, &e->e_port);
	e->e_env.te_home = home;
	e->e_env.te_model = e->e_mc;
	e->e_env.te_port = &e->e_port;
	e->e_env.te_max_steps = 16;
}

/* Everything but brokerd, which the test stops first to read its log. */
static void
e2e_down(struct e2e *e)
{
	bport_free(e->e_bp);
	model_client_free(e->e_mc);
	fake_llama_stop(e->e_fl);
}

static void
test_denied_call_reaches_the_model(void **state)
{
	static const char script[] =
	    "[{\"tool_calls\":[{\"name\":\"call_tool\",\"id\":\"call1\","
	    "\"arguments\":{\"name\":\"read_file\",\"arguments\":"
	    "{\"path\":\"/etc/hosts\"}}}]},"
	    "{\"text\":\"No grant lets me read /etc/hosts.\"}]";
	char *home = tu_tmpdir(), *log, *body;
	const struct bx_turn_event *e;
	struct tu_events ev = { 0 };
	struct e2e t;
	json_t *req, *msgs, *last, *rec, *event;

	(void)state;
	e2e_up(&t, home, script, false);
	assert_int_equal(turn_run(&t.e_env, "chat-1758200000000", "read my "
	    "hosts file", NULL, tu_record, &ev), 0);
	e = tu_find(&ev, BX_EVENT_TOOL_RESULT, 0);
	assert_non_null(e);
	assert_int_equal(e->status, BX_STATUS_DENIED);
	assert_string_equal(e->content, "Denied: no grant allows this call.");
	assert_int_equal(e->class, BX_CLASS_PUBLIC);
	assert_false(e->untrusted);
	assert_string_equal(tu_find(&ev, BX_EVENT_DONE, 0)->text,
	    "No grant lets me read /etc/hosts.");
	tu_events_free(&ev);

	/* The model's next request carries the denial as the tool result. */
	assert_int_equal(fake_llama_request_count(t.e_fl), 2);
	body = fake_llama_request(t.e_fl, 1);
	assert_non_null(strstr(body, "Denied: no grant allows this call."));
	req = json_loads(body, 0, NULL);
	free(body);
	msgs = json_object_get(req, "messages");
	last = json_array_get(msgs, json_array_size(msgs) - 1);
	assert_string_equal(json_string_value(json_object_get(last, "role")),
	    "tool");
	assert_string_equal(json_string_value(json_object_get(last,
	    "tool_call_id")), "call1");
	assert_string_equal(json_string_value(json_object_get(last,
	    "content")), "Denied: no grant allows this call.");
	json_decref(req);

	assert_int_equal(e2e_broker_runs(t.e_broker), 0);
	e2e_broker_stop(t.e_broker);
	/* One record: the Decision, denied with no_grant; nothing ran. */
	log = audit_log(home);
	assert_non_null(log);
	assert_non_null(strchr(log, '\n'));
	assert_string_equal(strchr(log, '\n') + 1, "");
	rec = json_loads(log, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(rec);
	assert_int_equal(json_integer_value(json_object_get(rec, "seq")), 0);
	event = json_object_get(rec, "event");
	assert_string_equal(json_string_value(json_object_get(event, "type")),
	    "decision");
	assert_string_equal(json_string_value(json_object_get(event,
	    "session")), "chat-1758200000000");
	assert_string_equal(json_string_value(json_object_get(event, "call")),
	    "call1");
	assert_string_equal(json_string_value(json_object_get(event, "tool")),
	    "read_file");
	assert_string_equal(json_string_value(json_object_get(event,
	    "arguments")), "{\"path\":\"/etc/hosts\"}");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    event, "outcome"), "outcome")), "denied");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    event, "outcome"), "reason")), "no_grant");
	assert_true(json_is_null(json_object_get(event, "grant")));
	json_decref(rec);
	free(log);
	e2e_down(&t);
	tu_rmtree(home);
}

/* An allowed read_file runs in a bwrap sandbox; its text reaches the model. */
static void
test_allowed_call_runs_in_a_sandbox(void **state)
{
	char *home = tu_tmpdir(), *files = tu_tmpdir(), *body;
	char script[8192], grant[8192], grants[4096];
	const struct bx_turn_event *e;
	struct tu_events ev = { 0 };
	struct e2e t;

	(void)state;
	tu_write(files, "list.txt", "oat milk\nplumber\n", 17);
	snprintf(grants, sizeof(grants), "%s/grants", home);
	mkdir(grants, 0700);
	snprintf(grant, sizeof(grant), "tool = \"read_file\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n\n[constraints]\n"
	    "paths = [\"%s\"]\n", files);
	tu_write(grants, "list.toml", grant, strlen(grant));
	snprintf(script, sizeof(script), "[{\"tool_calls\":[{\"name\":"
	    "\"call_tool\",\"id\":\"call1\",\"arguments\":{\"name\":"
	    "\"read_file\",\"arguments\":{\"path\":\"%s/list.txt\"}}}]},"
	    "{\"text\":\"Oat milk and the plumber.\"}]", files);
	e2e_up(&t, home, script, true);
	assert_int_equal(turn_run(&t.e_env, "chat-1758200000001", "what is on "
	    "my list?", NULL, tu_record, &ev), 0);
	e = tu_find(&ev, BX_EVENT_TOOL_RESULT, 0);
	assert_non_null(e);
	assert_int_equal(e->status, BX_STATUS_RESULT);
	assert_string_equal(e->content, "oat milk\nplumber\n");
	assert_int_equal(e->class, BX_CLASS_PRIVATE);
	tu_events_free(&ev);
	body = fake_llama_request(t.e_fl, 1);
	assert_non_null(strstr(body, "oat milk\\nplumber\\n"));
	free(body);
	e2e_broker_stop(t.e_broker);
	e2e_down(&t);
	tu_rmtree(home);
	tu_rmtree(files);
}

/* What the owner does at each event of an ask call. */
struct owner {
	struct tu_events	 o_ev;
	struct e2e		*o_e;
	bool			 o_approve;	/* approve, stop once it runs */
	atomic_int		 o_cancel;
};

/* The owner's approve on admin.sock, answered before it returns. */
static void
approve_now(struct e2e *e, uint64_t id)
{
	struct bx_frame_reader rd;
	struct bx_msg *m = bx_msg_approve(id), *ans;
	struct bx_error err;
	const char *line;
	size_t len;
	int fd;

	if (bx_unix_connect(e->e_broker->eb_admin_sock, 0, &fd, &err) == -1 ||
	    bx_msg_send(fd, m, 10000, &err) == -1)
		fail_msg("approve: %s", err.msg);
	bx_frame_reader_init(&rd, fd);
	if (bx_frame_read(&rd, 10000, &line, &len, &err) != BX_FRAME_OK ||
	    bx_msg_decode(line, len, &ans, &err) == -1)
		fail_msg("approve: %s", err.msg);
	assert_int_equal(ans->kind, BX_MSG_APPROVE_RESULT);
	bx_msg_free(ans);
	bx_msg_free(m);
	bx_frame_reader_free(&rd);
	close(fd);
}

static void
owner_acts(void *arg, struct bx_msg *ev)
{
	struct owner *o = arg;
	const struct bx_turn_event *e = &ev->turn_event;

	if (e->type == BX_EVENT_APPROVAL_PENDING && o->o_approve)
		approve_now(o->o_e, e->approval);
	else if (e->type == BX_EVENT_APPROVAL_PENDING ||
	    e->type == BX_EVENT_TOOL_RUNNING)
		atomic_store(&o->o_cancel, 1);
	tu_record(&o->o_ev, ev);
}

/*
 * Ctrl-C at an approved call's tool_running (kept and recorded) or at a
 * pending one's approval_pending (given up, dropped unrecorded).
 */
static void
stop_ask_call(bool approve, const char *want_result, const char *want_log)
{
	static const char script[] = "[{\"tool_calls\":[{\"name\":\"call_tool\","
	    "\"id\":\"call1\",\"arguments\":{\"name\":\"read_file\","
	    "\"arguments\":{\"path\":\"/notes/a\"}}}]},{\"text\":\"never\"}]";
	static const char grant[] = "tool = \"read_file\"\nmode = \"ask\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n\n[constraints]\n"
	    "paths = [\"/notes\"]\n";
	char *home = tu_tmpdir(), grants[4096], *log;
	struct owner *o = calloc(1, sizeof(*o));
	struct e2e t;
	struct timespec nap = { 0, 10 * 1000000L };
	int64_t until;

	assert_non_null(o);
	snprintf(grants, sizeof(grants), "%s/grants", home);
	mkdir(grants, 0700);
	tu_write(grants, "notes.toml", grant, strlen(grant));
	e2e_up(&t, home, script, false);
	o->o_e = &t;
	o->o_approve = approve;
	assert_int_equal(turn_run(&t.e_env, "chat-1758200000002", "read a",
	    &o->o_cancel, owner_acts, o), -1);
	assert_string_equal(tu_find(&o->o_ev, BX_EVENT_TOOL_RESULT, 0)->content,
	    want_result);
	assert_int_equal(tu_count(&o->o_ev, BX_EVENT_TOOL_RUNNING), approve);
	/* brokerd sees the hang-up of a given-up call at once. */
	until = bx_clock_mono_ms() + 20000;
	while (approvals_pending(t.e_broker->eb_approvals) != 0) {
		if (bx_clock_mono_ms() > until)
			fail_msg("brokerd still holds the approval");
		nanosleep(&nap, NULL);
	}
	assert_int_equal(e2e_broker_runs(t.e_broker), approve);
	e2e_broker_stop(t.e_broker);
	log = audit_log(home);
	assert_int_equal(strstr(log, "\"type\":\"approval\"") != NULL, approve);
	assert_int_equal(strstr(log, "\"type\":\"result\"") != NULL, approve);
	free(log);
	log = tu_read(home, "sessions/chat-1758200000002.jsonl");
	assert_non_null(strstr(log, want_log));
	free(log);
	tu_events_free(&o->o_ev);
	free(o);
	e2e_down(&t);
	tu_rmtree(home);
}

/* The state says which: approved (kept) or pending (given up). */
static void
test_stop_an_ask_call(void **state)
{
	if (*(const bool *)*state)
		stop_ask_call(true, "content", "\"content\":\"content\"");
	else
		stop_ask_call(false, TOOL_GIVEN_UP, TOOL_GIVEN_UP);
}

int
main(void)
{
	static bool approved = true, pending = false;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_denied_call_reaches_the_model),
		cmocka_unit_test(test_allowed_call_runs_in_a_sandbox),
		cmocka_unit_test_prestate(test_stop_an_ask_call, &approved),
		cmocka_unit_test_prestate(test_stop_an_ask_call, &pending),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
