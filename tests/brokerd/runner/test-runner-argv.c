/*
 * test-runner-argv.c: the golden argument lists. For each tool and grant
 * shape, the exact podman and bwrap argv a run_spec becomes (M3b section
 * 1, last row), with a fixed host so nothing depends on this machine and
 * no runtime runs: the view (sandbox.c) rendered by runner_podman.c and
 * runner_bwrap.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/runner/runner.h"
#include "brokerd/runner/runner_impl.h"
#include "proto/redact.h"
#include "grants-fixture.h"

#define LATER	"2027-01-01T00:00:00.000Z"
#define SEQ	41
#define SECRET_VALUE	"ghp_s3cretVALUEx9"
#define SECRET_LINE	"Authorization: Bearer " SECRET_VALUE "\n"

/* What the fake runtime rendered for the one call it saw. */
struct golden {
	const struct sandbox_host	*g_host;
	char				 g_podman[16384];
	char				 g_bwrap[16384];
	char				 g_bwrap_args[16384];
	/* What the helper reads on its stdin; "" for none. */
	char				 g_stdin[1024];
	/* Every element of the three lists, for the search for a value. */
	char				*g_elements[1024];
	size_t				 g_nelements;
};

/* Symlinks resolved as this fake host has them: /srv/link -> /h/audit. */
static char *
identity(const char *path)
{
	if (strcmp(path, "/srv/link") == 0)
		return strdup("/h/audit");
	return strdup(path);
}

/* a joined by single spaces into out; each element kept in g too. */
static void
join(struct golden *g, const struct argv *a, char *out, size_t size)
{
	size_t i, at = 0;

	out[0] = '\0';
	for (i = 0; i < a->a_n; i++) {
		at += (size_t)snprintf(out + at, size - at, "%s%s",
		    i == 0 ? "" : " ", a->a_v[i]);
		assert_true(g->g_nelements < sizeof(g->g_elements) /
		    sizeof(g->g_elements[0]));
		g->g_elements[g->g_nelements++] = strdup(a->a_v[i]);
	}
	assert_true(at < size);
}

static void
golden_clear(struct golden *g)
{
	size_t i;

	for (i = 0; i < g->g_nelements; i++)
		free(g->g_elements[i]);
	g->g_nelements = 0;
}

static int
render(void *ctx, const struct run_spec *spec, struct run_result *ret,
    struct bx_error *err)
{
	struct golden *g = ctx;
	struct podman_opts po = { "/usr/bin/podman", "runc", "0123456789abcdef",
	    "/boxmaker-0123456789abcdef/call-41", 128, 30000, NULL,
	    "/h/broker/seccomp.bpf", "4096:8192" };
	struct bwrap_opts bo = { "/usr/bin/bwrap", 5, 6, 7, NULL,
	    { 10, 11, 12, 13, 14, 15 } };
	struct sandbox_view *v = NULL;
	struct argv a, opts, b;
	int fds[SANDBOX_MAX_OPS];
	size_t i;

	memset(&a, 0, sizeof(a));
	memset(&opts, 0, sizeof(opts));
	memset(&b, 0, sizeof(b));
	if (sandbox_view_build(g->g_host, spec, run_spec_seq(spec), &v,
	    err) == -1 || podman_argv(&po, v, &a, err) == -1)
		fail_msg("render: %s", err->msg);
	/* bwrap binds open sources: here, descriptor 100 + the op's index. */
	for (i = 0; i < v->v_nops; i++)
		fds[i] = v->v_ops[i].o_kind == SB_BIND ? 100 + (int)i : -1;
	bo.bo_bind_fds = fds;
	if (bwrap_argv(&bo, v, &opts, &b, err) == -1)
		fail_msg("render: %s", err->msg);
	golden_clear(g);
	join(g, &a, g->g_podman, sizeof(g->g_podman));
	join(g, &opts, g->g_bwrap_args, sizeof(g->g_bwrap_args));
	join(g, &b, g->g_bwrap, sizeof(g->g_bwrap));
	assert_true(v->v_stdin == NULL || v->v_stdin_len < sizeof(g->g_stdin));
	snprintf(g->g_stdin, sizeof(g->g_stdin), "%.*s",
	    v->v_stdin != NULL ? (int)v->v_stdin_len : 0,
	    v->v_stdin != NULL ? v->v_stdin : "");
	argv_clear(&a);
	argv_clear(&opts);
	argv_clear(&b);
	sandbox_view_free(v);
	ret->rr_status = RUN_OK;
	ret->rr_text = strdup("");
	return 0;
}

struct fixture {
	char			*dir;
	struct sandbox_host	 host;
	struct golden		 g;
	int64_t			 now;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct bx_error err;
	struct sandbox_host *h = &f->host;

	f->dir = fixture_dir();
	h->sh_runner_dir = "/h/broker/runner";
	h->sh_usr = "/usr";
	h->sh_bxtool = "/opt/bx/bxtool";
	h->sh_protected[0] = "/h";
	h->sh_protected[1] = "/etc/boxmaker";
	h->sh_nprotected = 2;
	h->sh_root_entries[0] = "etc";
	h->sh_root_entries[1] = "h";
	h->sh_root_entries[2] = "home";
	h->sh_root_entries[3] = "usr";
	h->sh_root_entries[4] = "var";
	h->sh_nroot_entries = 5;
	h->sh_resolve = identity;
	h->sh_tmp_bytes = 64 << 20;
	h->sh_output_bytes = 262144;
	h->sh_links[0] = "bin";
	h->sh_links[1] = "lib";
	h->sh_links[2] = "lib64";
	h->sh_links[3] = "sbin";
	h->sh_nlinks = 4;
	h->sh_uid = 1000;
	h->sh_gid = 1000;
	f->g.g_host = h;
	if (bx_time_parse("2026-09-18T12:00:00.000Z", &f->now, &err) == -1)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	golden_clear(&f->g);
	fixture_remove(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* Decides args against the grants of f->dir and renders the call. */
static void
render_call(struct fixture *f, const char *tool, const char *args,
    const struct run_call *call)
{
	struct policy_request r = { tool, args, strlen(args), BX_CLASS_PRIVATE,
	    false, f->now };
	struct runtime rt = { render, &f->g };
	struct decision *d = NULL;
	struct run_result rr;
	struct bx_error err;

	if (policy_decide(f->dir, &r, &d, NULL, &err) != 0)
		fail_msg("policy_decide: %s", err.msg);
	if (runner_run(d, false, call, &rt, &rr, &err) == -1)
		fail_msg("runner_run: %s", err.msg);
	run_result_clear(&rr);
	decision_free(d);
}

static void
run_call(struct fixture *f, const char *tool, const char *constraints,
    const char *args)
{
	struct run_call call = { .rc_seq = SEQ, .rc_hangup_fd = -1 };

	fixture_grant(f->dir, "g", tool, "auto", "secret", LATER, constraints);
	render_call(f, tool, args, &call);
}

/*
 * The rendered lists against tests/fixtures/runner-argv/<name>.txt: the
 * podman argv, the options bwrap reads through --args, and bwrap's argv,
 * one line each, words joined by one space.
 */
static void
expect_golden(const struct fixture *f, const char *name)
{
	char path[4096], want[3][16384];
	const char *got[3] = { f->g.g_podman, f->g.g_bwrap_args, f->g.g_bwrap };
	FILE *fp;
	size_t i, len;

	snprintf(path, sizeof(path), "%s/tests/fixtures/runner-argv/%s.txt",
	    getenv("BX_SOURCE_ROOT"), name);
	if ((fp = fopen(path, "r")) == NULL)
		fail_msg("%s: cannot open", path);
	for (i = 0; i < 3; i++) {
		if (fgets(want[i], sizeof(want[i]), fp) == NULL)
			fail_msg("%s: line %zu is missing", path, i + 1);
		len = strlen(want[i]);
		if (len > 0 && want[i][len - 1] == '\n')
			want[i][len - 1] = '\0';
	}
	fclose(fp);
	for (i = 0; i < 3; i++)
		if (strcmp(got[i], want[i]) != 0)
			fail_msg("%s line %zu:\n got %s\nwant %s", path, i + 1,
			    got[i], want[i]);
}

static void
test_read_file(void **state)
{
	struct fixture *f = *state;

	run_call(f, "read_file", "paths = [\"/home/kyle/notes\"]",
	    "{\"path\":\"/home/kyle/notes/a.md\"}");
	expect_golden(f, "read-file");
}

/* Writable, and the content goes on stdin (podman --interactive). */
static void
test_write_file(void **state)
{
	struct fixture *f = *state;

	run_call(f, "write_file", "paths = [\"/srv/out\"]",
	    "{\"path\":\"/srv/out/b.txt\",\"content\":\"hi\"}");
	expect_golden(f, "write-file");
}

/* Every path of the grant, writable, the deeper one mounted later. */
static void
test_shell_with_paths_and_cwd(void **state)
{
	struct fixture *f = *state;

	run_call(f, "shell", "paths = [\"/srv/a\", \"/srv/a/b/c\"]",
	    "{\"command\":\"ls -l\",\"cwd\":\"/srv/a/b/c\"}");
	expect_golden(f, "shell-paths-cwd");
}

static void
test_shell_without_paths_runs_in_tmp(void **state)
{
	struct fixture *f = *state;

	run_call(f, "shell", "", "{\"command\":\"true\"}");
	expect_golden(f, "shell-no-paths");
}

/*
 * A grant of "/": the host's top-level entries but the sandbox's own
 * (etc, usr), and Boxmaker's home /h covered, not bound.
 */
static void
test_shell_grant_of_root_covers_the_home(void **state)
{
	struct fixture *f = *state;

	run_call(f, "shell", "paths = [\"/\"]",
	    "{\"command\":\"ls /h\",\"cwd\":\"/\"}");
	expect_golden(f, "shell-grant-of-root");
	assert_null(strstr(f->g.g_podman, "-v /h:/h"));
	assert_null(strstr(f->g.g_podman, "-v /etc:/etc"));
}

/*
 * http_fetch: no grant path, still no network, and the proxy's directory
 * mounted read-only after everything, the helper included.
 */
static void
test_http_fetch(void **state)
{
	struct fixture *f = *state;

	run_call(f, "http_fetch", "hosts = [\"example.com\"]",
	    "{\"url\":\"https://example.com/a?b\"}");
	expect_golden(f, "http-fetch");
}

/*
 * http_fetch under a grant that names a secret, as broker_run.c hands it
 * over: the value is in no element of either runtime's lists; the helper
 * is told to read the header line from its stdin (--secret-fd 0), which
 * is where the view puts it (podman keeps stdin open: --interactive), and
 * it may pass on more than the limit for the redaction to cut.
 */
static void
test_http_fetch_with_secret(void **state)
{
	static const char *forms[] = { SECRET_VALUE, "Bearer " SECRET_VALUE };
	struct fixture *f = *state;
	struct run_call call = { .rc_seq = SEQ, .rc_hangup_fd = -1,
	    .rc_secret = "github", .rc_secret_header = SECRET_LINE };
	struct bx_redactor *rd;
	struct bx_error err;
	size_t i;

	if ((rd = bx_redactor_new("github", forms, 2, &err)) == NULL)
		fail_msg("bx_redactor_new: %s", err.msg);
	call.rc_redactor = rd;
	fixture_text(f->dir, "g.toml", "tool = \"http_fetch\"\n"
	    "mode = \"auto\"\nmax_taint = \"secret\"\n"
	    "result_class = \"private\"\nexpires = \"" LATER "\"\n"
	    "secret = \"github\"\n\n[constraints]\n"
	    "hosts = [\"api.github.com\"]\n");
	render_call(f, "http_fetch", "{\"url\":\"https://api.github.com/u\"}",
	    &call);
	expect_golden(f, "http-fetch-secret");
	assert_true(f->g.g_nelements > 0);
	for (i = 0; i < f->g.g_nelements; i++)
		if (strstr(f->g.g_elements[i], SECRET_VALUE) != NULL ||
		    strstr(f->g.g_elements[i], "Authorization") != NULL)
			fail_msg("argv element %zu holds the secret: %s", i,
			    f->g.g_elements[i]);
	assert_string_equal(f->g.g_stdin, SECRET_LINE);
	assert_non_null(strstr(f->g.g_podman, " --interactive "));
	assert_non_null(strstr(f->g.g_podman, " --secret github --secret-fd 0 "
	    "https://api.github.com/u"));
	assert_non_null(strstr(f->g.g_bwrap, " --secret github --secret-fd 0 "
	    "https://api.github.com/u"));
	bx_redactor_free(rd);
}

/* Without a secret, the helper's stdin is nothing at all. */
static void
test_http_fetch_has_no_stdin(void **state)
{
	struct fixture *f = *state;

	run_call(f, "http_fetch", "hosts = [\"example.com\"]",
	    "{\"url\":\"https://example.com/a?b\"}");
	assert_string_equal(f->g.g_stdin, "");
	assert_null(strstr(f->g.g_podman, "--interactive"));
	assert_null(strstr(f->g.g_podman, "--secret"));
}

/* A grant that contains a Boxmaker path, and one inside another. */
static void
test_covers_of_boxmaker_paths(void **state)
{
	struct fixture *f = *state;

	f->host.sh_protected[0] = "/h/boxmaker";
	run_call(f, "shell", "paths = [\"/h\", \"/etc/boxmaker/x\"]",
	    "{\"command\":\"ls\",\"cwd\":\"/h\"}");
	expect_golden(f, "covers");
	assert_non_null(strstr(f->g.g_bwrap_args,
	    "--tmpfs /h/boxmaker --remount-ro /h/boxmaker "));
	assert_null(strstr(f->g.g_podman, "-v /etc/boxmaker/x:"));
}

/* A grant whose path is a link into the home shows an empty directory. */
static void
test_link_into_boxmaker_is_covered(void **state)
{
	struct fixture *f = *state;

	run_call(f, "shell", "paths = [\"/srv/link\"]",
	    "{\"command\":\"ls\",\"cwd\":\"/srv/link\"}");
	assert_null(strstr(f->g.g_podman, "-v /h/audit"));
	assert_null(strstr(f->g.g_podman, "-v /srv/link:"));
	assert_non_null(strstr(f->g.g_bwrap_args,
	    "--tmpfs /srv/link --remount-ro /srv/link "));
}

/*
 * A writable grant that holds the home deep down: each directory on the
 * way is bound onto itself, so no tool can rename the home away from its
 * cover; a read-only one needs no pins.
 */
static void
test_writable_ancestors_are_pinned(void **state)
{
	struct fixture *f = *state;

	f->host.sh_protected[0] = "/srv/a/b/boxmaker";
	run_call(f, "shell", "paths = [\"/srv\"]",
	    "{\"command\":\"ls\",\"cwd\":\"/srv\"}");
	assert_non_null(strstr(f->g.g_podman, "-v /srv:/srv:rw "));
	assert_non_null(strstr(f->g.g_bwrap_args, " /srv/a --perms"));
	assert_non_null(strstr(f->g.g_bwrap_args, " /srv/a/b --perms 0555 "
	    "--size 4096 --tmpfs /srv/a/b/boxmaker "));
	assert_non_null(strstr(f->g.g_bwrap_args,
	    "--tmpfs /srv/a/b/boxmaker --remount-ro /srv/a/b/boxmaker "));
	assert_non_null(strstr(f->g.g_podman, "-v /srv/a:/srv/a:rw "));
	assert_non_null(strstr(f->g.g_podman, "-v /srv/a/b:/srv/a/b:rw "));
	run_call(f, "read_file", "paths = [\"/srv\"]",
	    "{\"path\":\"/srv/x\"}");
	assert_null(strstr(f->g.g_podman, "-v /srv/a:"));
	assert_non_null(strstr(f->g.g_bwrap_args,
	    "--tmpfs /srv/a/b/boxmaker --remount-ro /srv/a/b/boxmaker "));
}

/* podman's -v cannot say a path with ':' or ','; the call cannot run. */
static void
test_podman_refuses_a_colon(void **state)
{
	struct fixture *f = *state;
	struct sandbox_view v;
	struct sandbox_op op = { SB_BIND, false, "/a:b", "/a:b", 0 };
	struct podman_opts po = { "/usr/bin/podman", NULL, "x", "/p", 8, 100,
	    NULL, "/s", "-1:-1" };
	struct argv a;
	struct bx_error err;

	(void)f;
	memset(&v, 0, sizeof(v));
	memset(&a, 0, sizeof(a));
	v.v_ops = &op;
	v.v_nops = 1;
	assert_int_equal(podman_argv(&po, &v, &a, &err), -1);
	assert_non_null(strstr(err.msg, "podman cannot mount /a:b"));
	argv_clear(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_write_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_shell_with_paths_and_cwd,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_shell_without_paths_runs_in_tmp, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_shell_grant_of_root_covers_the_home, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_fetch, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_http_fetch_with_secret,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_fetch_has_no_stdin,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_covers_of_boxmaker_paths,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_link_into_boxmaker_is_covered, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_writable_ancestors_are_pinned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_podman_refuses_a_colon,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
