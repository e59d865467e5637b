/*
 * serve_main.c: `brokerd serve --config PATH [--accept-break]`, the top of
 * the daemon. It is the one place that prints for serve: startup problems
 * before serving, then every line the broker logs, one per line on stderr.
 *
 * SIGTERM and SIGINT are blocked in every thread and read from a signalfd
 * that serve polls, so no handler runs at all; SIGPIPE is ignored (frames
 * are written with MSG_NOSIGNAL anyway).
 */
#include <sys/signalfd.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/config.h"
#include "brokerd/serve.h"

#define SERVE_USAGE	"usage: brokerd serve --config PATH [--accept-break]\n"

struct daemon {
	struct config		*d_cfg;
	struct audit		*d_audit;
	struct state_store	*d_state;
	struct approvals	*d_approvals;
	struct broker		*d_broker;
	struct serve		*d_serve;
	int			 d_sigfd;
};

static void
print_line(void *ctx, const char *line)
{
	fprintf((FILE *)ctx, "%s\n", line);
	fflush((FILE *)ctx);
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

/* Everything but the audit log; prints its own failure. */
static int
start(struct daemon *d, const struct broker_log *log, FILE *errs)
{
	struct broker_config bc;
	struct serve_config sc;
	struct grants *set = NULL;
	struct bx_error err;

	if ((d->d_state = state_open(d->d_cfg->c_home, &err)) == NULL)
		goto fail;
	if ((d->d_approvals = approvals_new()) == NULL) {
		bx_fail(&err, "out of memory");
		goto fail;
	}
	memset(&bc, 0, sizeof(bc));
	bc.grants_dir = d->d_cfg->c_grants;
	bc.ttl_ms = d->d_cfg->c_ttl_ms;
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
	sc.broker = d->d_broker;
	sc.stop_fd = d->d_sigfd;
	if ((d->d_serve = serve_new(&sc, &err)) == NULL)
		goto fail;
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
	if (path == NULL || i != argc) {
		fputs(SERVE_USAGE, errs);
		return 2;
	}
	memset(&d, 0, sizeof(d));
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
	if (start(&d, &log, errs) == -1)
		goto out;
	fprintf(errs, "brokerd: serving on %s and %s\n",
	    d.d_cfg->c_broker_socket, d.d_cfg->c_admin_socket);
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
