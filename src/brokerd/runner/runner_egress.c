/*
 * runner_egress.c: one http_fetch call's egress proxy (runner_egress.h):
 * its directory, socket and CA bundle, the bxegress process, and what it
 * reported.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/runner_argv.h"
#include "brokerd/runner/runner_egress.h"
#include "brokerd/runner/runner_exec.h"
#include "proto/clock.h"
#include "proto/readfile.h"
#include "proto/writefile.h"

struct egress_call {
	const struct broker_log	*ec_log;	/* borrowed; NULL: silent */
	uint64_t		 ec_seq;
	struct exec_child	 ec_child;
	bool			 ec_running;
	bool			 ec_quiet;	/* the start-up check's: not logged */
	int			 ec_report;	/* the report, read end */
};

/* err's message as "egress: MESSAGE; see the runbook"; returns -1. */
static int
fail_runbook(struct bx_error *err)
{
	char msg[BX_ERROR_MAX];

	snprintf(msg, sizeof(msg), "%s", err->msg);
	return bx_fail(err, "egress: %.900s; %s", msg, EGRESS_RUNBOOK);
}

/* A file's bytes, or none when it does not exist. */
static int
read_optional(const char *path, char **ret, size_t *ret_len,
    struct bx_error *err)
{
	enum bx_readfile_why why;

	*ret = NULL;
	*ret_len = 0;
	if (path == NULL || (access(path, F_OK) == -1 && errno == ENOENT))
		return 0;
	return bx_readfile(path, EGRESS_CA_MAX, ret, ret_len, &why, err);
}

/* egress/ca.pem: the system's CAs, then ca_file's, read for this call. */
static int
write_bundle(const struct egress_params *p, int dirfd, struct bx_error *err)
{
	char *sys = NULL, *extra = NULL;
	size_t sys_len, extra_len;
	int fd = -1, rc = -1;

	if (read_optional(EGRESS_SYSTEM_CA, &sys, &sys_len, err) == -1 ||
	    read_optional(p->ep_ca_file, &extra, &extra_len,
	    err) == -1)
		goto out;
	fd = openat(dirfd, "ca.pem", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0644);
	if (fd == -1 || bx_write_all(fd, sys, sys_len) == -1 ||
	    bx_write_all(fd, "\n", 1) == -1 ||
	    bx_write_all(fd, extra, extra_len) == -1) {
		bx_fail(err, "cannot write the CA bundle: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	free(sys);
	free(extra);
	return rc;
}

/*
 * Binds egress/socks.sock through /proc/self/fd, so that a home of any
 * length fits sun_path; anyone in the sandbox may connect (0666).
 */
static int
listen_socket(int dirfd, int *ret, struct bx_error *err)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path),
	    "/proc/self/fd/%d/socks.sock", dirfd);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return bx_fail(err, "cannot make the proxy's socket: %s",
		    strerror(errno));
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    fchmodat(dirfd, "socks.sock", 0666, 0) == -1 ||
	    listen(fd, EGRESS_BACKLOG) == -1) {
		bx_fail(err, "cannot listen on the proxy's socket: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	*ret = fd;
	return 0;
}

/* The report file: bxegress appends, brokerd reads from the start. */
static int
open_report(const struct sandbox_view *v, int *ret_write, int *ret_read,
    struct bx_error *err)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/egress-report", v->v_calldir);
	*ret_write = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*ret_write == -1)
		return bx_fail(err, "cannot make %s: %s", path,
		    strerror(errno));
	*ret_read = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (*ret_read == -1) {
		close(*ret_write);
		return bx_fail(err, "cannot open %s: %s", path,
		    strerror(errno));
	}
	return 0;
}

static int
spawn(struct egress_call *e, const struct egress_params *p, int listen_fd,
    int report_fd, const char *const *hosts, size_t nhosts,
    struct bx_error *err)
{
	int keep[2] = { listen_fd, report_fd };
	struct exec_spawn sp;
	struct argv a;
	size_t i;
	int rc;

	memset(&a, 0, sizeof(a));
	argv_add(&a, "%s", p->ep_bxegress);
	argv_add(&a, "--listen-fd");
	argv_add(&a, "%d", listen_fd);
	argv_add(&a, "--report-fd");
	argv_add(&a, "%d", report_fd);
	argv_add(&a, "--connect-timeout-ms");
	argv_add(&a, "%" PRId64, p->ep_connect_timeout_ms);
	argv_add(&a, "--idle-timeout-ms");
	argv_add(&a, "%" PRId64, p->ep_idle_timeout_ms);
	argv_add(&a, "--max-bytes");
	argv_add(&a, "%" PRId64, p->ep_max_bytes);
	for (i = 0; i < p->ep_nallow; i++) {
		argv_add(&a, "--allow");
		argv_add(&a, "%s", p->ep_allow[i]);
	}
	argv_add(&a, "--seccomp");
	argv_add(&a, "%s", p->ep_seccomp_file);
	argv_add(&a, "--");
	for (i = 0; i < nhosts; i++)
		argv_add(&a, "%s", hosts[i]);
	if (argv_done(&a, err) == -1)
		return -1;
	memset(&sp, 0, sizeof(sp));
	sp.es_argv = a.a_v;
	sp.es_env = exec_no_env;
	sp.es_keep_fds = keep;
	sp.es_nkeep = 2;
	sp.es_status_read = -1;
	rc = exec_start(&sp, &e->ec_child, err);
	argv_clear(&a);
	if (rc == 0)
		e->ec_running = true;
	return rc;
}

int
egress_start(const struct egress_params *p, const struct sandbox_view *v,
    const char *const *hosts, size_t nhosts, struct egress_call **ret,
    struct bx_error *err)
{
	struct egress_call *e;
	int dirfd = -1, listen_fd = -1, report_fd = -1, rc = -1;

	if ((e = calloc(1, sizeof(*e))) == NULL)
		return bx_fail(err, "egress: out of memory");
	e->ec_log = p->ep_log;
	e->ec_seq = v->v_seq;
	e->ec_report = -1;
	if (mkdir(v->v_egressdir, 0755) == -1 ||
	    (dirfd = open(v->v_egressdir, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		bx_fail(err, "cannot make %s: %s", v->v_egressdir,
		    strerror(errno));
		goto out;
	}
	if (write_bundle(p, dirfd, err) == -1 ||
	    listen_socket(dirfd, &listen_fd, err) == -1 ||
	    open_report(v, &report_fd, &e->ec_report, err) == -1 ||
	    spawn(e, p, listen_fd, report_fd, hosts, nhosts, err) == -1)
		goto out;
	*ret = e;
	e = NULL;
	rc = 0;
out:
	if (rc == -1)
		fail_runbook(err);
	if (dirfd != -1)
		close(dirfd);
	if (listen_fd != -1)
		close(listen_fd);
	if (report_fd != -1)
		close(report_fd);
	egress_free(e);
	return rc;
}

static void
kill_proxy(void *ctx)
{
	(void)kill(*(pid_t *)ctx, SIGKILL);
}

/* Whether the proxy has exited already (it is left for the reaper). */
static bool
exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
	    0 && si.si_pid == pid;
}

/*
 * SIGTERM, then SIGKILL past EGRESS_STOP_MS. True if the proxy is broken:
 * it had ended before it was told to, or it failed as it stopped. A proxy
 * that had to be killed (it sat in a stalled lookup, which blocks
 * SIGTERM) is not broken: the call ended as its sandbox did.
 */
static bool
stop(struct egress_call *e, struct egress_report *r)
{
	struct exec_limits lim = { .el_timeout_ms = EGRESS_STOP_MS,
	    .el_output_bytes = BX_ERROR_MAX, .el_hangup_fd = -1 };
	pid_t pid = e->ec_child.ec_pid;
	struct exec_hooks hooks = { .eh_kill = kill_proxy, .eh_ctx = &pid };
	struct exec_outcome o;
	struct bx_error err;
	bool ended_itself, killed;
	int st;

	e->ec_running = false;
	/* exec_supervise times from ec_started_ms: the stop starts now. */
	e->ec_child.ec_started_ms = bx_clock_mono_ms();
	ended_itself = exited(pid);
	(void)kill(pid, SIGTERM);
	if (exec_supervise(&e->ec_child, &lim, &hooks, &o, &err) == -1) {
		snprintf(r->er_words, sizeof(r->er_words), "%s", err.msg);
		return true;
	}
	st = o.eo_wait_status;
	killed = o.eo_end == EXEC_TIMED_OUT;
	snprintf(r->er_words, sizeof(r->er_words), "%.*s",
	    (int)strcspn(o.eo_err != NULL ? o.eo_err : "", "\n"),
	    o.eo_err != NULL ? o.eo_err : "");
	exec_outcome_clear(&o);
	if (ended_itself)
		return true;
	if (WIFSIGNALED(st))
		return WTERMSIG(st) != SIGTERM && !killed;
	return WEXITSTATUS(st) != 0;
}

/*
 * The start-up check's request: a greeting and a CONNECT to a name the
 * check's pattern does not match, answered "not allowed" with no lookup.
 */
static const char check_request[] = "\x05\x01\x00"
    "\x05\x01\x00\x03\x0d" "other.invalid" "\x01\xbb";
static const char check_answer[] = "\x05\x00" "\x05\x02";

/* Speaks to the proxy as a client would; 0 if it answered as it must. */
static int
probe(const struct sandbox_view *v, struct bx_error *err)
{
	struct timeval tv = { EGRESS_STOP_MS / 1000, 0 };
	struct sockaddr_un sun;
	char got[sizeof(check_answer) - 1];
	int dirfd, fd = -1, rc = -1;
	size_t have = 0;
	ssize_t n;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if ((dirfd = open(v->v_egressdir, O_PATH | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		return bx_fail(err, "cannot open %s: %s", v->v_egressdir,
		    strerror(errno));
	snprintf(sun.sun_path, sizeof(sun.sun_path),
	    "/proc/self/fd/%d/socks.sock", dirfd);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    bx_write_all(fd, check_request, sizeof(check_request) - 1) == -1) {
		bx_fail(err, "cannot reach the proxy: %s", strerror(errno));
		goto out;
	}
	while (have < sizeof(got) && ((n = read(fd, got + have,
	    sizeof(got) - have)) > 0 || (n == -1 && errno == EINTR)))
		have += n > 0 ? (size_t)n : 0;
	if (have != sizeof(got) || memcmp(got, check_answer, have) != 0) {
		bx_fail(err, "the proxy did not answer as SOCKS5 (%zu bytes)",
		    have);
		goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	close(dirfd);
	return rc;
}

int
egress_check(const struct egress_params *p, const struct sandbox_view *v,
    struct bx_error *err)
{
	static const char *const hosts[] = { "check.invalid" };
	struct egress_call *e = NULL;
	struct egress_report r;
	struct bx_error ignored;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	if (mkdir(v->v_calldir, 0700) == -1) {
		bx_fail(err, "egress: cannot make %s: %s", v->v_calldir,
		    strerror(errno));
		return -1;
	}
	if (egress_start(p, v, hosts, 1, &e, err) == -1)
		goto out;
	e->ec_quiet = true;
	if (probe(v, err) == -1) {
		fail_runbook(err);
		goto out;
	}
	egress_finish(e, &r);
	if (r.er_broken || r.er_refusal == NULL) {
		bx_fail(err, "egress: the proxy's check failed: %s; %s",
		    r.er_broken ? r.er_words : "it reported nothing",
		    EGRESS_RUNBOOK);
		goto out;
	}
	rc = 0;
out:
	free(r.er_refusal);
	egress_free(e);
	(void)sandbox_dir_remove(v->v_calldir, &ignored);
	return rc;
}

/* One report line: kept if it says why a fetch failed, and logged. */
static void
take_line(struct egress_call *e, char *line, struct egress_report *r)
{
	egress_report_line(line, r);
	if (!e->ec_quiet)
		log_say(e->ec_log, "runner: call %" PRIu64 ": egress: %s%s",
		    e->ec_seq, line, strncmp(line, "refused ", 8) == 0 ||
		    strncmp(line, "limit ", 6) == 0 ?
		    "; " EGRESS_REFUSED_RUNBOOK : "");
}

static void
read_report(struct egress_call *e, struct egress_report *r)
{
	enum bx_readfile_why why;
	struct bx_error err;
	char *buf, *line, *nl;
	size_t len;

	if (bx_readfile_fd(e->ec_report, "the egress report",
	    EGRESS_REPORT_MAX, &buf, &len, &why, &err) == -1) {
		log_say(e->ec_log, "runner: call %" PRIu64 ": %s; %s",
		    e->ec_seq, err.msg, EGRESS_RUNBOOK);
		return;
	}
	for (line = buf; line < buf + len; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(buf + len - line))) ==
		    NULL)
			break;
		*nl = '\0';
		take_line(e, line, r);
	}
	free(buf);
}

void
egress_finish(struct egress_call *e, struct egress_report *r)
{
	memset(r, 0, sizeof(*r));
	if (e->ec_running)
		r->er_broken = stop(e, r);
	read_report(e, r);
	if (r->er_broken)
		log_say(e->ec_log, "runner: call %" PRIu64 ": the egress "
		    "proxy ended on its own: %s; %s", e->ec_seq, r->er_words,
		    EGRESS_RUNBOOK);
}

void
egress_free(struct egress_call *e)
{
	struct egress_report r;

	if (e == NULL)
		return;
	if (e->ec_running) {
		memset(&r, 0, sizeof(r));
		(void)stop(e, &r);
	}
	if (e->ec_report != -1)
		close(e->ec_report);
	free(e);
}
