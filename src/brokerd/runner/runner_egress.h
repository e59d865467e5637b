/*
 * runner_egress.h: http_fetch's only way out (M3b section 5). For each
 * http_fetch call brokerd makes, in the call's directory:
 *
 *	egress/socks.sock	a Unix socket brokerd listens on and hands to
 *				bxegress, the call's SOCKS5 proxy
 *	egress/ca.pem		the system CA bundle and [egress] ca_file,
 *				for the sandbox's curl
 *	egress-report		where bxegress writes one line per connection
 *				before it answers it (brokerd reads it after)
 *
 * egress/ is mounted read-only at /.boxmaker/egress (sandbox.h); the
 * report stays outside. bxegress knows only the grant's host patterns,
 * [egress] connect_timeout_ms, max_bytes and allow_addresses, and the
 * call's timeout_ms as its idle bound. egress_finish stops it, logs every
 * report line, and says why the fetch may have failed: the last refusal,
 * or the byte limit. A proxy that ended on its own (it could not run) makes
 * the call unavailable: nothing of the remote side reached the tool.
 *
 * The proxy knows nothing of the sandbox runtime that starts it
 * (runner_sandbox.c): what it is started with comes in a struct
 * egress_params, and its lines go to the broker_log given there.
 *
 * Ownership: egress_start allocates the egress_call; egress_finish stops
 * its process; egress_free frees it (NULL is allowed) and stops the proxy
 * if egress_finish was not called. er_refusal is the caller's to free. The
 * call borrows ep_log, which must outlive it.
 */
#ifndef BROKERD_RUNNER_EGRESS_H
#define BROKERD_RUNNER_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/log.h"
#include "brokerd/runner/sandbox.h"
#include "proto/error.h"

#define EGRESS_RUNBOOK		"see docs/runbook.md#egress-proxy"
#define EGRESS_REFUSED_RUNBOOK	"see docs/runbook.md#egress-refused"
/* The system's CA bundle, where Debian's ca-certificates puts it. */
#define EGRESS_SYSTEM_CA	"/etc/ssl/certs/ca-certificates.crt"
/* The largest CA bundle read, the system's or [egress] ca_file. */
#define EGRESS_CA_MAX		(4 * 1024 * 1024)
/* The proxy's report read back; bxegress bounds its lines and connections. */
#define EGRESS_REPORT_MAX	(1024 * 1024)
/* How long a stopped proxy has to exit before it is killed. */
#define EGRESS_STOP_MS		2000
#define EGRESS_BACKLOG		16

/* What every proxy is started with: [egress], and the runner's own. */
struct egress_params {
	const char		*ep_bxegress;	/* the program, absolute */
	const char		*ep_seccomp_file; /* its --seccomp */
	const char		*ep_ca_file;	/* [egress]; NULL: none */
	int64_t			 ep_connect_timeout_ms;
	int64_t			 ep_idle_timeout_ms; /* the call's timeout */
	int64_t			 ep_max_bytes;
	char *const		*ep_allow;	/* [egress] allow_addresses */
	size_t			 ep_nallow;
	const struct broker_log	*ep_log;	/* NULL: silent */
};

struct egress_call;

struct egress_report {
	char	*er_refusal;	/* "egress refused HOST:PORT: REASON", or NULL */
	int64_t	 er_limit;	/* the bytes at the limit; 0: not reached */
	bool	 er_broken;	/* the proxy ended on its own */
	char	 er_words[BX_ERROR_MAX];	/* then, what it said */
};

int	egress_start(const struct egress_params *, const struct sandbox_view *,
	    const char *const *hosts, size_t nhosts, struct egress_call **ret,
	    struct bx_error *err);
void	egress_finish(struct egress_call *, struct egress_report *ret);
void	egress_free(struct egress_call *);

/*
 * One line of the proxy's report (NUL-terminated, no newline) into r
 * (egress_report.c; egress_finish calls it for each line read): its
 * bytes outside printable ASCII become '?' in place, "limit N" sets
 * er_limit, and "refused HOST:PORT REASON" replaces er_refusal.
 */
void	egress_report_line(char *line, struct egress_report *r);

/*
 * The start-up check: a proxy for the view's call directory (made and
 * removed here) answers a SOCKS5 greeting and refuses a name outside its
 * one pattern, without any lookup or connection.
 */
int	egress_check(const struct egress_params *, const struct sandbox_view *,
	    struct bx_error *err);

#endif
