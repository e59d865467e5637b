/*
 * serve_main.c: `brokerd serve [--config PATH] [--accept-break]`, the top of
 * the daemon. It is the one place that prints for serve: startup problems
 * before serving, then every line the broker logs, one per line on stderr.
 *
 * SIGTERM and SIGINT are blocked in every thread and read from a signalfd
 * that serve polls, so no handler runs at all; SIGPIPE is ignored (frames
 * are written with MSG_NOSIGNAL anyway).
 */
#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/config.h"
#include "brokerd/runner/runner.h"
#include "brokerd/secret.h"
#include "brokerd/sdnotify.h"
#include "brokerd/serve.h"
#include "proto/clock.h"
#include "proto/jailid.h"


struct daemon {
	struct config		*d_cfg;
	struct audit		*d_audit;
	struct state_store	*d_state;
	struct approvals	*d_approvals;
	struct broker		*d_broker;
	struct serve		*d_serve;
	struct runner_sandbox	*d_runner;
	int			 d_sigfd;
	struct sdnotify		 d_notify;	/* systemd's, if it asked */
};

static void
print_line(void *ctx, const char *line)
{
	fprintf((FILE *)ctx, "%s\n", line);
	fflush((FILE *)ctx);
}

/*
 * Descriptors brokerd did not open itself must not reach a sandbox (bwrap
 * passes every open descriptor on): whatever the launcher left open is
 * closed at exec, and 0, 1 and 2 are made open, so that no pipe of a call
 * lands on one of them.
 */
static int
own_descriptors(void)
{
	int fd;

	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		return -1;
	for (;;) {
		if ((fd = open("/dev/null", O_RDWR)) == -1)
			return -1;
		if (fd > 2) {
			close(fd);
			return 0;
		}
	}
}

/* Blocks the stop signals in this thread (and every thread it starts). */
static int
stop_signals(void)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void
daemon_free(struct daemon *d)
{
	serve_free(d->d_serve);
	broker_free(d->d_broker);
	runner_sandbox_free(d->d_runner);
	approvals_free(d->d_approvals);
	state_close(d->d_state);
	audit_close(d->d_audit);
	config_free(d->d_cfg);
	if (d->d_sigfd != -1)
		close(d->d_sigfd);
}

/* Opens the audit log: 0, or the exit status. */
static int
open_audit(struct daemon *d, bool accept_break, FILE *errs)
{
	struct audit_config ac;
	struct bx_error err;
	size_t i;
	int rc;

	memset(&ac, 0, sizeof(ac));
	ac.home = d->d_cfg->c_home;
	ac.accept_break = accept_break;
	rc = audit_open(&ac, &d->d_audit, &err);
	if (rc != 0) {
		fprintf(errs, "%s\n", err.msg);
		return rc == AUDIT_NOTHING_TO_ACCEPT ? 2 : 1;
	}
	for (i = 0; i < audit_notice_count(d->d_audit); i++)
		fprintf(errs, "%s\n", audit_notice(d->d_audit, i));
	return 0;
}

/*
 * The secrets directory beside brokerd.toml (secret.h) into buf, for the
 * runner to cover on its own, not only as part of brokerd.toml's
 * directory: where it is a symbolic link, what it points to holds the
 * values all the same. Returns NULL when the path does not fit; the
 * runner then refuses to start.
 */
static const char *
secrets_dir(const char *config_path, char *buf, size_t size)
{
	const char *slash = strrchr(config_path, '/');
	int dirlen = slash == NULL ? 0 : (int)(slash - config_path) + 1;

	if ((size_t)snprintf(buf, size, "%.*s%s", dirlen, config_path,
	    SECRET_DIR) >= size)
		return NULL;
	return buf;
}

/*
 * The runtime of [runner]: made, swept of what a crash left (the audit
 * lock is held, so no other brokerd of this home runs), and checked with
 * one no-op sandbox. NULL in *ret is M3a's refusing runtime.
 */
static int
start_runner(struct daemon *d, const struct broker_log *log,
    const char *config_path, const struct runtime **ret, FILE *errs)
{
	struct runner_sandbox_config rc;
	struct bx_error err;
	char secrets[PATH_MAX];
	size_t removed;

	*ret = NULL;
	if (d->d_cfg->c_runner.cr_kind == RUNNER_REFUSE)
		return 0;
	memset(&rc, 0, sizeof(rc));
	rc.rsc_runner = &d->d_cfg->c_runner;
	rc.rsc_home = d->d_cfg->c_home;
	rc.rsc_grants = d->d_cfg->c_grants;
	rc.rsc_config_path = config_path;
	if (config_path != NULL && (rc.rsc_secrets = secrets_dir(config_path,
	    secrets, sizeof(secrets))) == NULL) {
		fprintf(errs, "brokerd: runner: the path of the secrets "
		    "directory beside %s is too long; %s\n", config_path,
		    RUNNER_RUNBOOK);
		return -1;
	}
	rc.rsc_broker_socket = d->d_cfg->c_broker_socket;
	rc.rsc_admin_socket = d->d_cfg->c_admin_socket;
	rc.rsc_bridge_socket = d->d_cfg->c_bridge_socket;
	rc.rsc_log = log;
	/* Sandboxes a dying bwrap leaves in its first milliseconds are ours. */
	if (d->d_cfg->c_runner.cr_kind == RUNNER_BWRAP)
		(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (runner_sandbox_new(&rc, &d->d_runner, &err) == -1 ||
	    runner_sandbox_sweep(d->d_runner, &removed, &err) == -1 ||
	    runner_sandbox_check(d->d_runner, &err) == -1) {
		/* The egress check names its own entry. */
		fprintf(errs, "brokerd: %s%s\n", err.msg,
		    strstr(err.msg, "see docs/runbook.md") != NULL ? "" :
		    "; " RUNNER_RUNBOOK);
		return -1;
	}
	if (removed > 0)
		fprintf(errs, "brokerd: runner: removed %zu things a stopped "
		    "brokerd left (containers, cgroups, call directories)\n",
		    removed);
	*ret = runner_sandbox_runtime(d->d_runner);
	return 0;
}

/*
 * loopd's jail uid, which broker.sock serves besides brokerd's own
 * (roles.md section 4), worked out as loopd and bxctl work it out. Without
 * it broker.sock serves brokerd's own uid only: a loopd that runs as
 * brokerd's user still works; a jailed one is refused and says so.
 */
static void
find_loop_uid(struct serve_config *sc, FILE *errs)
{
	struct bx_jail_id id;
	struct bx_error err;

	if (bx_jail_identity(geteuid(), &id, &err) == -1) {
		fprintf(errs, "brokerd: loopd's jail uid is unknown, so "
		    "broker.sock serves uid %u only: %s\n",
		    (unsigned)geteuid(), err.msg);
		return;
	}
	sc->has_loop_uid = true;
	sc->loop_uid = id.ji_uid;
}

/*
 * The bridge's jail uid, which bridge.sock serves besides brokerd's own:
 * as root the system user BX_JAIL_BRIDGE_USER, else the id below loopd's
 * in the owner's subordinate range (proto/jailid.h). It is never 0,
 * brokerd's own or loopd's; when it is unknown or would be one of them,
 * bridge.sock fails closed: it serves brokerd's own uid only, and the
 * other sockets are served as ever (docs/decisions.md).
 */
static void
find_bridge_uid(struct serve_config *sc, FILE *errs)
{
	struct bx_jail_id id;
	struct bx_error err;

	if (bx_jail_identity_of(BX_JAIL_BRIDGE, geteuid(), &id, &err) == -1) {
		fprintf(errs, "brokerd: the bridge's jail uid is unknown, so "
		    "bridge.sock serves uid %u only: %s\n",
		    (unsigned)geteuid(), err.msg);
		return;
	}
	if (id.ji_uid == 0 || id.ji_uid == geteuid() ||
	    (sc->has_loop_uid && id.ji_uid == sc->loop_uid)) {
		fprintf(errs, "brokerd: the bridge's jail uid would be %u, "
		    "which is root's, brokerd's own or loopd's jail's, so "
		    "bridge.sock serves uid %u only; " BX_RUNBOOK_JAIL "\n",
		    (unsigned)id.ji_uid, (unsigned)geteuid());
		return;
	}
	sc->has_bridge_uid = true;
	sc->bridge_uid = id.ji_uid;
}

/* Everything but the audit log; prints its own failure. */
static int
start(struct daemon *d, const struct broker_log *log, const char *config_path,
    FILE *errs)
{
	struct broker_config bc;
	struct serve_config sc;
	struct grants *set = NULL;
	struct bx_error err;

	memset(&bc, 0, sizeof(bc));
	if ((d->d_state = state_open(d->d_cfg->c_home, &err)) == NULL)
		goto fail;
	if (start_runner(d, log, config_path, &bc.runtime, errs) == -1)
		return -1;
	if ((d->d_approvals = approvals_new()) == NULL) {
		bx_fail(&err, "out of memory");
		goto fail;
	}
	bc.grants_dir = d->d_cfg->c_grants;
	bc.config_dir = d->d_cfg->c_dir;
	bc.ttl_ms = d->d_cfg->c_ttl_ms;
	bc.home = d->d_cfg->c_home;
	bc.runtime_kind = config_runner_kind_name(d->d_cfg->c_runner.cr_kind);
	bc.started = bx_clock_wall_ms();
	bc.audit = d->d_audit;
	bc.state = d->d_state;
	bc.approvals = d->d_approvals;
	bc.log = log;
	if ((d->d_broker = broker_new(&bc, &err)) == NULL)
		goto fail;
	if (grants_load(d->d_cfg->c_grants, &set, &err) == -1)
		goto fail;
	broker_report_grants(d->d_broker, set);
	grants_free(set);
	memset(&sc, 0, sizeof(sc));
	sc.broker_socket = d->d_cfg->c_broker_socket;
	sc.admin_socket = d->d_cfg->c_admin_socket;
	sc.bridge_socket = d->d_cfg->c_bridge_socket;
	sc.broker = d->d_broker;
	sc.stop_fd = d->d_sigfd;
	find_loop_uid(&sc, errs);
	find_bridge_uid(&sc, errs);
	if ((d->d_serve = serve_new(&sc, &err)) == NULL)
		goto fail;
	/* Not fatal: the owner is still served; the jailed loopd says so. */
	if (serve_open_to_loop(d->d_serve, &err) == -1)
		fprintf(errs, "brokerd: warning: %s\n", err.msg);
	if (serve_open_to_bridge(d->d_serve, &err) == -1)
		fprintf(errs, "brokerd: warning: %s\n", err.msg);
	return 0;
fail:
	fprintf(errs, "brokerd: %s\n", err.msg);
	return -1;
}

int
serve_main(int argc, char **argv, FILE *out, FILE *errs)
{
	struct daemon d;
	struct broker_log log = { print_line, errs };
	struct bx_error err;
	const char *path = NULL;
	bool accept_break = false;
	int i, rc = 1;

	(void)out;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strcmp(argv[i], "--accept-break") == 0)
			accept_break = true;
		else
			break;
	}
	if (i != argc) {
		fprintf(errs, "usage: %s\n", SERVE_USAGE);
		return 2;
	}
	memset(&d, 0, sizeof(d));
	if (own_descriptors() == -1) {
		fprintf(errs, "brokerd: cannot set up its descriptors: %s\n",
		    strerror(errno));
		return 1;
	}
	if (sdnotify_take(&d.d_notify, &err) == -1) {
		fprintf(errs, "brokerd: %s\n", err.msg);
		return 1;
	}
	if ((d.d_sigfd = stop_signals()) == -1) {
		fprintf(errs, "brokerd: cannot take SIGTERM and SIGINT\n");
		return 1;
	}
	if (config_load(path, &d.d_cfg, &err) == -1) {
		fprintf(errs, "brokerd: %s\n", err.msg);
		goto out;
	}
	if ((rc = open_audit(&d, accept_break, errs)) != 0)
		goto out;
	rc = 1;
	if (start(&d, &log, d.d_cfg->c_path, errs) == -1)
		goto out;
	fprintf(errs, "brokerd: serving on %s, %s and %s\n",
	    d.d_cfg->c_broker_socket, d.d_cfg->c_admin_socket,
	    d.d_cfg->c_bridge_socket);
	if (sdnotify_send(&d.d_notify, "READY=1", &err) == -1)
		fprintf(errs, "brokerd: %s\n", err.msg);
	fflush(errs);
	if (serve_run(d.d_serve, &err) == -1)
		fprintf(errs, "brokerd: %s\n", err.msg);
	else {
		fprintf(errs, "brokerd: stopped\n");
		rc = 0;
	}
out:
	daemon_free(&d);
	return rc;
}
