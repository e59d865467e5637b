/*
 * test-broker-run.c: an allowed call handed to the runner with its grant's
 * secret (brokerd/broker_run.h), driven with a fake runtime that keeps what
 * the spec carried and answers as the sandbox runtime does with a secret:
 * the server's echo of it through redact_result (runner_redact.h).
 *
 * Without a secret the runtime gets none, with or without a configuration
 * directory. With one it gets the name, the header line and the redactor,
 * and the occurrences removed reach the result, the model's text and the
 * owner's log. A secret that cannot be used (no file, a bad mode, a bad
 * form, a host not among its hosts, no configuration directory) ends the
 * call failed with the secret's message before the runtime is called. A
 * runner that cannot run the decision at all leaves the call unavailable
 * with the runner's words.
 *
 * Not reached: a secret's http_fetch whose parsed arguments hold no host
 * (the arguments' parser refuses such a URL, so the decision is a deny and
 * never runs), and out of memory.
 */
#include <sys/stat.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/broker_run.h"
#include "brokerd/runner/runner_redact.h"
#include "grants-fixture.h"
#include "secret-fixture.h"

#define LATER		"2027-01-01T00:00:00.000Z"
#define VALUE		"ghp_s3cretVALUEx9"
#define SECRET		"kind = \"bearer\"\nhosts = [\"api.github.com\"]\n" \
			"value = \"" VALUE "\"\n"
#define URL		"{\"url\":\"https://api.github.com/user\"}"
#define RUNBOOK		"; see docs/runbook.md#secret-unavailable"
#define MAX_LINES	8

/* What the fake runtime saw of its one call, and what it answers. */
struct fake {
	int		 calls;
	char		 secret[128];	/* "" when the spec had none */
	char		 header[256];
	bool		 header_null;
	bool		 redactor;
	uint64_t	 seq;
	int		 hangup_fd;
	const char	*answer;	/* the server's words, echoes and all */
	size_t		 claim_removed;	/* a runtime that says it removed */
};

struct fixture {
	char		*grants;
	char		*config;
	struct fake	 fake;
	struct runtime	 rt;
	int		 nlines;
	char		*lines[MAX_LINES];
	struct broker_log log;
	struct broker_run br;
	int64_t		 now;
};

static int
fake_run(void *ctx, const struct run_spec *spec, struct run_result *ret,
    struct bx_error *err)
{
	struct fake *fk = ctx;
	const char *s = run_spec_secret(spec);
	const struct bx_redactor *rd = run_spec_redactor(spec);

	fk->calls++;
	snprintf(fk->secret, sizeof(fk->secret), "%s", s != NULL ? s : "");
	fk->header_null = run_spec_secret_header(spec) == NULL;
	snprintf(fk->header, sizeof(fk->header), "%s",
	    fk->header_null ? "" : run_spec_secret_header(spec));
	fk->redactor = rd != NULL;
	fk->seq = run_spec_seq(spec);
	fk->hangup_fd = run_spec_hangup_fd(spec);
	ret->rr_status = RUN_OK;
	if ((ret->rr_text = strdup(fk->answer)) == NULL)
		return bx_fail(err, "fake: out of memory");
	ret->rr_removed = fk->claim_removed;
	/* As runner_sandbox.c's shape() does once the result is made. */
	if (rd != NULL && redact_result(rd, s, 0, ret, err) == -1)
		fail_msg("redact_result: %s", err->msg);
	return 0;
}

static void
keep_line(void *ctx, const char *line)
{
	struct fixture *f = ctx;

	if (f->nlines == MAX_LINES)
		fail_msg("more than %d log lines", MAX_LINES);
	f->lines[f->nlines++] = strdup(line);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct bx_error err;

	f->grants = fixture_dir();
	f->config = fixture_config_dir();
	f->fake.answer = "{\"login\": \"kyle\"}";
	f->rt.run = fake_run;
	f->rt.ctx = &f->fake;
	f->log.line = keep_line;
	f->log.ctx = f;
	f->br.br_call = "c1";
	f->br.br_seq = 41;
	f->br.br_hangup_fd = 9;
	f->br.br_config_dir = f->config;
	f->br.br_runtime = &f->rt;
	f->br.br_log = &f->log;
	if (bx_time_parse("2026-09-18T12:00:00.000Z", &f->now, &err) == -1)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	int i;

	for (i = 0; i < f->nlines; i++)
		free(f->lines[i]);
	fixture_remove(f->grants);
	fixture_remove(f->config);
	free(f->grants);
	free(f->config);
	free(f);
	return 0;
}

/* An http_fetch grant of mode, for hosts (TOML), naming secret or none. */
static void
grant(struct fixture *f, const char *mode, const char *hosts,
    const char *secret)
{
	char text[1024];

	snprintf(text, sizeof(text), "tool = \"http_fetch\"\nmode = \"%s\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"" LATER "\"\n%s%s%s\n[constraints]\nhosts = %s\n",
	    mode, secret != NULL ? "secret = \"" : "",
	    secret != NULL ? secret : "", secret != NULL ? "\"\n" : "", hosts);
	fixture_text(f->grants, "g.toml", text);
}

/* Decides args and hands the decision to broker_run; *rr its result. */
static void
run(struct fixture *f, const char *args, bool approved,
    struct run_result *rr)
{
	struct policy_request r = { "http_fetch", args, strlen(args),
	    BX_CLASS_PRIVATE, false, f->now };
	struct decision *d = NULL;
	struct bx_error err;

	if (policy_decide(f->grants, &r, &d, NULL, &err) != 0)
		fail_msg("policy_decide: %s", err.msg);
	broker_run(&f->br, d, approved, rr);
	decision_free(d);
	assert_non_null(rr->rr_text);
}

/* No log line, and none of the result, holds the value. */
static void
assert_hidden(const struct fixture *f, const struct run_result *rr)
{
	int i;

	assert_null(strstr(rr->rr_text, VALUE));
	for (i = 0; i < f->nlines; i++)
		assert_null(strstr(f->lines[i], VALUE));
}

/* A grant without a secret: the runtime gets none, whatever the config. */
static void
test_without_secret(void **state)
{
	struct fixture *f = *state;
	struct run_result rr;

	fixture_secret(f->config, "github", SECRET);
	grant(f, "auto", "[\"api.github.com\"]", NULL);
	run(f, URL, false, &rr);
	assert_int_equal(f->fake.calls, 1);
	assert_string_equal(f->fake.secret, "");
	assert_true(f->fake.header_null);
	assert_false(f->fake.redactor);
	assert_int_equal(f->fake.seq, 41);
	assert_int_equal(f->fake.hangup_fd, 9);
	assert_int_equal(rr.rr_status, RUN_OK);
	assert_string_equal(rr.rr_text, "{\"login\": \"kyle\"}");
	assert_int_equal(rr.rr_removed, 0);
	assert_int_equal(f->nlines, 0);
	run_result_clear(&rr);

	/* brokerd without a configuration directory runs it the same. */
	f->br.br_config_dir = NULL;
	run(f, URL, false, &rr);
	assert_int_equal(f->fake.calls, 2);
	assert_string_equal(f->fake.secret, "");
	assert_int_equal(rr.rr_status, RUN_OK);
	assert_int_equal(f->nlines, 0);
	run_result_clear(&rr);
}

/*
 * A runtime that says it removed occurrences of a secret the call did not
 * have: there is no secret to name, and nothing is logged.
 */
static void
test_removed_without_secret(void **state)
{
	struct fixture *f = *state;
	struct run_result rr;

	grant(f, "auto", "[\"api.github.com\"]", NULL);
	f->fake.claim_removed = 3;
	run(f, URL, false, &rr);
	assert_int_equal(rr.rr_status, RUN_OK);
	assert_int_equal(f->nlines, 0);
	run_result_clear(&rr);
}

/*
 * With a secret: its name, header line and redactor reach the runtime, and
 * the echoes the redaction took out are counted in the result, told to the
 * model on the result's last line and to the owner in the log.
 */
static void
test_with_secret(void **state)
{
	struct fixture *f = *state;
	struct run_result rr;

	fixture_secret(f->config, "github", SECRET);
	grant(f, "auto", "[\"api.github.com\"]", "github");
	f->fake.answer = "{\"echo\": \"Bearer " VALUE "\", \"token\": \""
	    VALUE "\"}";
	run(f, URL, false, &rr);
	assert_int_equal(f->fake.calls, 1);
	assert_string_equal(f->fake.secret, "github");
	assert_string_equal(f->fake.header,
	    "Authorization: Bearer " VALUE "\n");
	assert_true(f->fake.redactor);
	assert_int_equal(rr.rr_status, RUN_OK);
	assert_int_equal(rr.rr_removed, 2);
	assert_non_null(strstr(rr.rr_text, "\"token\": \"[secret github]\""));
	assert_non_null(strstr(rr.rr_text,
	    "[2 occurrences of the secret github were removed]"));
	assert_int_equal(f->nlines, 1);
	assert_string_equal(f->lines[0], "call c1: 2 occurrences of the "
	    "secret github removed from the result");
	assert_hidden(f, &rr);
	run_result_clear(&rr);
}

static void
test_one_occurrence(void **state)
{
	struct fixture *f = *state;
	struct run_result rr;

	fixture_secret(f->config, "github", SECRET);
	grant(f, "auto", "[\"api.github.com\"]", "github");
	f->fake.answer = "token=" VALUE;
	run(f, URL, false, &rr);
	assert_int_equal(rr.rr_removed, 1);
	assert_int_equal(f->nlines, 1);
	assert_string_equal(f->lines[0], "call c1: 1 occurrence of the "
	    "secret github removed from the result");
	assert_hidden(f, &rr);
	run_result_clear(&rr);
}

/* A server that echoes nothing: the result as it came, nothing logged. */
static void
test_no_echo(void **state)
{
	struct fixture *f = *state;
	struct run_result rr;

	fixture_secret(f->config, "github", SECRET);
	grant(f, "auto", "[\"api.github.com\"]", "github");
	run(f, URL, false, &rr);
	assert_string_equal(f->fake.secret, "github");
	assert_int_equal(rr.rr_status, RUN_OK);
	assert_string_equal(rr.rr_text, "{\"login\": \"kyle\"}");
	assert_int_equal(rr.rr_removed, 0);
	assert_int_equal(f->nlines, 0);
	run_result_clear(&rr);
}

/* An ask the owner approved runs with its secret too. */
static void
test_approved_ask(void **state)
{
	struct fixture *f = *state;
	struct run_result rr;

	fixture_secret(f->config, "github", SECRET);
	grant(f, "ask", "[\"api.github.com\"]", "github");
	run(f, URL, true, &rr);
	assert_int_equal(f->fake.calls, 1);
	assert_string_equal(f->fake.secret, "github");
	assert_int_equal(rr.rr_status, RUN_OK);
	run_result_clear(&rr);
}

/*
 * The call ends failed with the secret's message, which the owner's log
 * has too; the runtime never saw it.
 */
static void
expect_failed(struct fixture *f, const char *args, const char *why)
{
	struct run_result rr;
	const char *prefix = "the secret github cannot be used: ";
	char line[4096];
	size_t len;

	run(f, args, false, &rr);
	assert_int_equal(f->fake.calls, 0);
	assert_int_equal(rr.rr_status, RUN_FAILED);
	assert_false(rr.rr_truncated);
	assert_int_equal(rr.rr_removed, 0);
	if (strncmp(rr.rr_text, prefix, strlen(prefix)) != 0 ||
	    strstr(rr.rr_text, why) == NULL)
		fail_msg("\"%s\" is not \"%s...%s...\"", rr.rr_text, prefix,
		    why);
	len = strlen(rr.rr_text);
	assert_true(len > strlen(RUNBOOK));
	assert_string_equal(rr.rr_text + len - strlen(RUNBOOK), RUNBOOK);
	assert_int_equal(f->nlines, 1);
	snprintf(line, sizeof(line), "call c1: %s", rr.rr_text);
	assert_string_equal(f->lines[0], line);
	assert_hidden(f, &rr);
	run_result_clear(&rr);
	free(f->lines[0]);
	f->nlines = 0;
}

static void
test_secret_missing(void **state)
{
	struct fixture *f = *state;

	grant(f, "auto", "[\"api.github.com\"]", "github");
	expect_failed(f, URL, "there is no such secret file");
}

static void
test_secret_bad_mode(void **state)
{
	struct fixture *f = *state;
	char path[4096];

	fixture_secret(f->config, "github", SECRET);
	snprintf(path, sizeof(path), "%s/secrets/github.toml", f->config);
	if (chmod(path, 0640) == -1)
		fail_msg("chmod %s: %s", path, strerror(errno));
	grant(f, "auto", "[\"api.github.com\"]", "github");
	expect_failed(f, URL, "has mode 0640, not 0600");
}

static void
test_secret_bad_form(void **state)
{
	struct fixture *f = *state;

	fixture_secret(f->config, "github", "kind = \"bearer\"\n"
	    "hosts = [\"api.github.com\"]\nvalue = \"" VALUE "\"\n"
	    "user = \"kyle\"\n");
	grant(f, "auto", "[\"api.github.com\"]", "github");
	expect_failed(f, URL, "field \"user\" is only for kind = \"basic\"");
}

/* The grant allows a host that the secret is not for. */
static void
test_host_not_the_secrets(void **state)
{
	struct fixture *f = *state;

	fixture_secret(f->config, "github", SECRET);
	grant(f, "auto", "[\"api.github.com\", \"gist.github.com\"]",
	    "github");
	expect_failed(f, "{\"url\":\"https://gist.github.com/x\"}",
	    "gist.github.com is not among its hosts");
}

static void
test_no_config_dir(void **state)
{
	struct fixture *f = *state;

	fixture_secret(f->config, "github", SECRET);
	grant(f, "auto", "[\"api.github.com\"]", "github");
	f->br.br_config_dir = NULL;
	expect_failed(f, URL, "without a configuration directory");
}

/*
 * A decision the runner will not run (an ask nobody approved; broker.c
 * never hands one over): unavailable, in the runner's words, logged.
 */
static void
test_runner_refuses(void **state)
{
	struct fixture *f = *state;
	struct run_result rr;

	fixture_secret(f->config, "github", SECRET);
	grant(f, "ask", "[\"api.github.com\"]", "github");
	run(f, URL, false, &rr);
	assert_int_equal(f->fake.calls, 0);
	assert_int_equal(rr.rr_status, RUN_UNAVAILABLE);
	assert_false(rr.rr_truncated);
	assert_non_null(strstr(rr.rr_text, "runner: only an allowed or "
	    "approved decision"));
	assert_int_equal(f->nlines, 1);
	assert_non_null(strstr(f->lines[0], "runner: only an allowed"));
	assert_hidden(f, &rr);
	run_result_clear(&rr);
}

int
main(void)
{
#define T(name)	cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_without_secret),
		T(test_removed_without_secret),
		T(test_with_secret),
		T(test_one_occurrence),
		T(test_no_echo),
		T(test_approved_ask),
		T(test_secret_missing),
		T(test_secret_bad_mode),
		T(test_secret_bad_form),
		T(test_host_not_the_secrets),
		T(test_no_config_dir),
		T(test_runner_refuses),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
