/*
 * sandbox-fixture.c: what the tests of real sandboxes share (see
 * sandbox-fixture.h): a home and a data tree under /var/lib, brokerd with
 * a real runtime, one call as the model makes it, and the checks after.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "brokerd/runner/runner.h"
#include "proto/sha256.h"
#include "sandbox-fixture.h"

const char *sb_kind;


void
sb_put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "w")) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	fputs(text, fp);
	fclose(fp);
}

void
sb_grant(struct sb_fixture *f, const char *id, const char *tool,
    const char *key, const char *list)
{
	char text[2 * PATH_MAX], name[128];

	snprintf(text, sizeof(text), "tool = \"%s\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n\n[constraints]\n"
	    "%s = [%s]\n", tool, key, list);
	snprintf(name, sizeof(name), "%s.toml", id);
	sb_put(f->home.grants, name, text);
}

void
sb_grant_data(struct sb_fixture *f, const char *id, const char *tool)
{
	char list[PATH_MAX + 2];

	snprintf(list, sizeof(list), "\"%s\"", f->data);
	sb_grant(f, id, tool, "paths", list);
}

void
sb_config(struct sb_fixture *f)
{
	char runner[4096];

	snprintf(runner, sizeof(runner), "kind = \"%s\"\ntimeout_ms = %d\n"
	    "memory_mb = %d\npids = 32\noutput_bytes = %d\nmax_running = %d\n"
	    "bxtool_path = \"%s/src/bxtool/bxtool\"\n%s", sb_kind,
	    f->timeout_ms > 0 ? f->timeout_ms : SB_TIMEOUT_MS, SB_MEMORY_MB,
	    SB_OUTPUT_BYTES, f->max_running > 0 ? f->max_running : 1,
	    getenv("BX_BUILD_ROOT"), f->extra != NULL ? f->extra : "");
	assert_int_equal(rh_home_config(&f->home, 900000, runner), 0);
}

void
sb_start(struct sb_fixture *f)
{
	char errs[4096] = "";
	FILE *fp;

	sb_config(f);
	if (rh_start(&f->home, NULL) == 0)
		return;
	if ((fp = fopen(f->home.errs, "r")) != NULL) {
		errs[fread(errs, 1, sizeof(errs) - 1, fp)] = '\0';
		fclose(fp);
	}
	/* The case ends here, without its teardown: leave nothing. */
	rh_home_remove(&f->home);
	rh_remove_tree(f->top);
	fail_msg("brokerd with the %s runtime did not start (is %s "
	    "installed?): %s", sb_kind, sb_kind, errs);
}

void
sb_restart(struct sb_fixture *f, int max_running)
{
	int status;

	status = rh_kill(&f->home, SIGTERM);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("brokerd did not exit 0 on SIGTERM (status %d)",
		    status);
	f->max_running = max_running;
	sb_start(f);
}

int
sb_setup_with(void **state, const char *extra)
{
	struct sb_fixture *f = calloc(1, sizeof(*f));
	struct bx_error err;
	char sub[PATH_MAX];

	/*
	 * Not under /tmp, which every sandbox has its own of: under a grant
	 * of "/" the home and the data must be where the host's tree shows.
	 */
	if (f == NULL)
		return -1;
	/* The home two levels down: a writable grant of top holds it deep. */
	snprintf(f->top, sizeof(f->top), "%s", SB_TEST_TOP);
	if (mkdtemp(f->top) == NULL)
		return -1;
	snprintf(sub, sizeof(sub), "%s/h", f->top);
	if (mkdir(sub, 0700) == -1 || setenv("TMPDIR", sub, 1) == -1 ||
	    rh_home_make(&f->home, 900000) == -1)
		return -1;
	snprintf(f->data, sizeof(f->data), "%s/data", f->top);
	snprintf(f->outside, sizeof(f->outside), "%s/outside", f->top);
	if (mkdir(f->data, 0755) == -1 || mkdir(f->outside, 0755) == -1 ||
	    runner_home_id(f->home.dir, f->home_id, &err) == -1)
		return -1;
	snprintf(sub, sizeof(sub), "%s/docs", f->data);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/work", f->data);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/.ssh", f->outside);
	mkdir(sub, 0700);
	sb_put(sub, "id_test", "FAKE-SECRET-outside\n");
	sb_put(f->outside, "secret.txt", "FAKE-SECRET-file\n");
	f->extra = extra;
	*state = f;
	sb_start(f);
	return 0;
}

int
sb_setup(void **state)
{
	return sb_setup_with(state, NULL);
}

int
sb_setup_calls(void **state)
{
	struct sb_fixture *f;

	if (sb_setup(state) == -1)
		return -1;
	f = *state;
	sb_put(f->data, "docs/a.txt", "a file to read\n");
	sb_grant_data(f, "shell", "shell");
	sb_grant_data(f, "read", "read_file");
	return 0;
}

/*
 * A failed case may leave its home's containers: they go with it, so that
 * the machine's podman store does not keep them.
 */
static void
remove_containers(const struct sb_fixture *f)
{
	char cmd[256];

	if (strcmp(sb_kind, "podman") != 0)
		return;
	snprintf(cmd, sizeof(cmd), "podman ps -a -q --filter "
	    "label=boxmaker.home=%s | xargs -r podman rm -f -t 0 "
	    ">/dev/null 2>&1", f->home_id);
	(void)system(cmd);
}

int
sb_teardown(void **state)
{
	struct sb_fixture *f = *state;
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	rh_home_remove(&f->home);
	rh_remove_tree(f->top);
	remove_containers(f);
	/* brokerd was SIGKILLed: its home's empty cgroups, in every hierarchy. */
	if ((d = opendir("/sys/fs/cgroup")) != NULL) {
		while ((e = readdir(d)) != NULL) {
			snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/"
			    "boxmaker-%s", e->d_name, f->home_id);
			(void)rmdir(path);
		}
		closedir(d);
	}
	free(f);
	return 0;
}

/* One call; its final answer, content (malloc'd) in *content. */
struct rh_answer
sb_call(struct sb_fixture *f, const char *tool, const char *args,
    char **content)
{
	struct rh_call c;
	struct rh_answer a;
	char id[32];

	snprintf(id, sizeof(id), "c%d", ++f->calls);
	*content = NULL;
	assert_int_equal(rh_call_tool(&c, f->home.broker, SB_SESSION, id, tool,
	    args), 0);
	rh_call_next_full(&c, (f->timeout_ms > 0 ? f->timeout_ms :
	    SB_TIMEOUT_MS) + RH_WAIT_MS, &a, content);
	rh_call_close(&c);
	f->last = a;
	if (a.a_got != RH_FINAL)
		fail_msg("call %s %s: no final answer (got %d: %s)", tool, args,
		    a.a_got, a.a_message);
	if (*content == NULL && (*content = strdup(a.a_status ==
	    BX_STATUS_DENIED ? bx_deny_name(a.a_reason) : "")) == NULL)
		fail_msg("out of memory");
	return a;
}

char *
sb_call_arg(struct sb_fixture *f, const char *tool, const char *key,
    const char *value)
{
	char *args, *content;
	json_t *j;

	j = json_pack("{s:s}", key, value);
	args = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	(void)sb_call(f, tool, args, &content);
	free(args);
	return content;
}

int
sb_listen_loopback(int type, int *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd;

	fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

int
sb_listen_abstract(const char *name)
{
	struct sockaddr_un sun;
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	assert_int_equal(bind(fd, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name))), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

char *
sb_shell(struct sb_fixture *f, const char *cwd, const char *fmt, ...)
{
	char cmd[4096], *args, *content;
	json_t *j;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	j = cwd != NULL ? json_pack("{s:s,s:s}", "command", cmd, "cwd", cwd) :
	    json_pack("{s:s}", "command", cmd);
	args = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	(void)sb_call(f, "shell", args, &content);
	free(args);
	return content;
}

/*
 * The Result record of call c<n>: its status, and bytes and sha256 of
 * exactly what the model received.
 */
void
sb_expect_record(struct sb_fixture *f, int n, bool failed, const char *sent)
{
	const struct bx_audit_record *r;
	struct rh_log log;
	struct bx_hash h;
	char id[32];

	snprintf(id, sizeof(id), "c%d", n);
	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	r = rh_log_find(&log, BX_AUDIT_RESULT, SB_SESSION, id);
	assert_non_null(r);
	assert_int_equal(r->event.result.status, failed ?
	    BX_RESULT_STATUS_FAILED : BX_RESULT_STATUS_RESULT);
	assert_int_equal(r->event.result.bytes, strlen(sent));
	assert_int_equal(bx_sha256(sent, strlen(sent), &h, NULL), 0);
	assert_true(bx_hash_equal(&h, &r->event.result.sha256));
	rh_log_free(&log);
}

void
sb_expect_failed(struct sb_fixture *f, const char *content, const char *fmt,
    ...)
{
	char want[2 * PATH_MAX];
	size_t len = strlen(content);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	/* A long message's end is where a cut or an addition shows. */
	if (strcmp(content, want) != 0)
		fail_msg("failed with \"%.200s\" (%zu bytes, ending \"%s\"), "
		    "not \"%.200s\"", content, len,
		    content + (len > 40 ? len - 40 : 0), want);
	sb_expect_record(f, f->calls, true, content);
}

/* brokerd's stderr, for a failure that its words may explain. */
static void
print_errs(const struct sb_fixture *f)
{
	char buf[8192];
	size_t n;
	FILE *fp;

	if ((fp = fopen(f->home.errs, "r")) == NULL)
		return;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(fp);
}

/* Nothing of any call is left: directories, cgroups, containers. */
void
sb_expect_nothing_left(struct sb_fixture *f)
{
	char path[PATH_MAX], cmd[256], out[1024] = "";
	struct dirent *e, *h;
	DIR *d, *root;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/broker/runner", f->home.dir);
	assert_non_null(d = opendir(path));
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			print_errs(f);
			fail_msg("left behind: %s/%s", path, e->d_name);
		}
	closedir(d);
	/* podman makes the call's cgroup in every hierarchy, bwrap in two. */
	assert_non_null(root = opendir("/sys/fs/cgroup"));
	while ((h = readdir(root)) != NULL) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/boxmaker-%s",
		    h->d_name, f->home_id);
		if (h->d_name[0] == '.' || (d = opendir(path)) == NULL)
			continue;
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, "call-", 5) == 0)
				fail_msg("left behind: %s/%s", path, e->d_name);
		closedir(d);
	}
	closedir(root);
	if (strcmp(sb_kind, "podman") != 0)
		return;
	snprintf(cmd, sizeof(cmd), "podman ps -a --filter "
	    "label=boxmaker.home=%s --format '{{.Names}} {{.State}} "
	    "{{.Status}}'", f->home_id);
	assert_non_null(fp = popen(cmd, "r"));
	n = fread(out, 1, sizeof(out) - 1, fp);
	pclose(fp);
	if (n > 0) {
		print_errs(f);
		fail_msg("containers left behind: %s", out);
	}
}

/* Whether process pid holds a file under dir (its report, its socket). */
static bool
holds_file_under(const char *pid, const char *dir)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent *e;
	bool found = false;
	ssize_t n;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	if ((d = opendir(path)) == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, e->d_name);
		if ((n = readlink(path, target, sizeof(target) - 1)) <= 0)
			continue;
		target[n] = '\0';
		found = strncmp(target, dir, strlen(dir)) == 0;
	}
	closedir(d);
	return found;
}

bool
sb_any_process(bool (*match)(const char *pid, const void *ctx),
    const void *ctx)
{
	struct dirent *e;
	bool found = false;
	DIR *d;

	assert_non_null(d = opendir("/proc"));
	while (!found && (e = readdir(d)) != NULL)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			found = match(e->d_name, ctx);
	closedir(d);
	return found;
}

/* A bxegress holding a file of this home's call directories. */
static bool
is_proxy_of(const char *pid, const void *ctx)
{
	const struct sb_fixture *f = ctx;
	char path[64], comm[64];
	bool found;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	if ((fp = fopen(path, "r")) == NULL)
		return false;
	found = fgets(comm, sizeof(comm), fp) != NULL &&
	    strcmp(comm, "bxegress\n") == 0 &&
	    holds_file_under(pid, f->home.dir);
	fclose(fp);
	return found;
}

/*
 * Whether a bxegress of this home runs (other tests' proxies may run
 * beside these).
 */
bool
sb_proxy_running(const struct sb_fixture *f)
{
	return sb_any_process(is_proxy_of, f);
}

/* A child of this fixture's brokerd. */
static bool
is_child_of_brokerd(const char *pid, const void *ctx)
{
	const struct sb_fixture *f = ctx;
	char path[64], buf[512], *p;
	bool found = false;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fp = fopen(path, "r")) == NULL)
		return false;
	/* The field after the command's closing parenthesis. */
	if (fgets(buf, sizeof(buf), fp) != NULL &&
	    (p = strrchr(buf, ')')) != NULL)
		found = atoi(p + 4) == (int)f->home.brokerd;
	fclose(fp);
	return found;
}

/* Whether brokerd has a child left (it is a subreaper: orphans come back). */
static bool
brokerd_has_child(const struct sb_fixture *f)
{
	return sb_any_process(is_child_of_brokerd, f);
}

/* Every allowed Decision has exactly one Result; the log's own checks. */
static void
expect_one_result_each(struct sb_fixture *f)
{
	const struct bx_audit_record *r;
	struct rh_log log;
	char why[256];
	size_t i, j, n;

	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	if (rh_log_check(&log, why, sizeof(why)) != 0)
		fail_msg("the audit log: %s", why);
	for (i = 0; i < log.l_n; i++) {
		r = &log.l_recs[i];
		if (r->event.type != BX_AUDIT_DECISION ||
		    r->event.decision.outcome.kind != BX_OUTCOME_ALLOWED)
			continue;
		for (j = n = 0; j < log.l_n; j++)
			n += log.l_recs[j].event.type == BX_AUDIT_RESULT &&
			    log.l_recs[j].event.result.decision == r->seq;
		if (n != 1)
			fail_msg("allowed call %s has %zu Result records",
			    r->event.decision.call, n);
	}
	rh_log_free(&log);
}

void
sb_after_case(struct sb_fixture *f)
{
	struct rh_call c;
	struct rh_answer a;
	char out[4096], id[32];

	/* A good client: a call no grant allows is answered at once. */
	snprintf(id, sizeof(id), "after%d", ++f->probes);
	assert_int_equal(rh_call_start(&c, f->home.broker, "after-case", id,
	    RH_ARGS_NONE), 0);
	assert_int_equal(rh_call_next(&c, RH_WAIT_MS, &a), RH_FINAL);
	rh_call_close(&c);
	assert_int_equal(a.a_status, BX_STATUS_DENIED);
	assert_int_equal(a.a_reason, BX_DENY_NO_GRANT);
	sb_expect_nothing_left(f);
	if (brokerd_has_child(f))
		fail_msg("brokerd still has a child process");
	if (sb_proxy_running(f))
		fail_msg("a proxy is left running");
	expect_one_result_each(f);
	if (rh_verify(f->home.dir, out, sizeof(out)) != 0)
		fail_msg("the chain does not verify: %s", out);
}
