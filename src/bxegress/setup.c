/*
 * setup.c: what bxegress does once, before its loop (bxegress.h): check
 * the two descriptors brokerd passed, route SIGTERM and SIGINT to a flag,
 * give up root, die with brokerd, and take on brokerd's system-call
 * filter. A failure here is exit status 1.
 */
#include <sys/prctl.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <resolv.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxegress/bxegress.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

volatile sig_atomic_t egress_stop;

void
die(int status, const char *after, const char *fmt, va_list ap)
{
	fputs("bxegress: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (after != NULL)
		fputs(after, stderr);
	exit(status);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	die(EXIT_SETUP, NULL, fmt, ap);
}

static int
sockopt(int fd, int name)
{
	socklen_t len = sizeof(int);
	int v;

	if (getsockopt(fd, SOL_SOCKET, name, &v, &len) == -1)
		return -1;
	return v;
}

/*
 * The listen fd must be a listening Unix stream socket. It is made
 * non-blocking, so that a client gone between poll and accept cannot
 * hang the loop; that flag is shared with brokerd's copy, which brokerd
 * only holds to pass it on.
 */
static void
check_listen(int fd)
{
	int fl;

	if (fcntl(fd, F_GETFD) == -1)
		fatal("--listen-fd %d: %s", fd, strerror(errno));
	if (sockopt(fd, SO_DOMAIN) != AF_UNIX ||
	    sockopt(fd, SO_TYPE) != SOCK_STREAM ||
	    sockopt(fd, SO_ACCEPTCONN) != 1)
		fatal("--listen-fd %d is not a listening Unix stream socket",
		    fd);
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		fatal("--listen-fd %d: %s", fd, strerror(errno));
}

static void
check_report(int fd)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1)
		fatal("--report-fd %d: %s", fd, strerror(errno));
	if ((fl & O_ACCMODE) != O_WRONLY && (fl & O_ACCMODE) != O_RDWR)
		fatal("--report-fd %d is not open for writing", fd);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		fatal("--report-fd %d: %s", fd, strerror(errno));
}

void
setup_descriptors(const struct egress_config *cfg)
{
	check_listen(cfg->ec_listen_fd);
	check_report(cfg->ec_report_fd);
}

static void
on_stop(int sig)
{
	(void)sig;
	egress_stop = 1;
}

/*
 * SIGTERM and SIGINT stay blocked except inside ppoll, which gets
 * ret_poll_mask: a signal can then only arrive while the loop waits, and
 * never between its check of egress_stop and the wait. SIGPIPE is
 * ignored as well as every send passing MSG_NOSIGNAL.
 */
void
setup_signals(sigset_t *ret_poll_mask)
{
	struct sigaction sa;
	sigset_t stop, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1 ||
	    signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		fatal("signals: %s", strerror(errno));
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	if (sigprocmask(SIG_BLOCK, &stop, &old) == -1)
		fatal("sigprocmask: %s", strerror(errno));
	sigdelset(&old, SIGTERM);
	sigdelset(&old, SIGINT);
	*ret_poll_mask = old;
}

/*
 * bxegress needs no privilege once its descriptors are checked: it
 * accepts on a socket it was given, writes to a file it was given, and
 * resolves names with getaddrinfo, which reads world-readable files
 * (/etc/hosts, nsswitch.conf, resolv.conf, gai.conf) and loads NSS
 * modules anyone may read. So as root it becomes nobody, with no
 * supplementary groups, and never regains anything (no_new_privs, set
 * whoever runs it).
 */
void
setup_drop_privileges(void)
{
	if (geteuid() == 0 || getuid() == 0) {
		if (setgroups(0, NULL) == -1 ||
		    setresgid(EGRESS_NOBODY, EGRESS_NOBODY,
		    EGRESS_NOBODY) == -1 ||
		    setresuid(EGRESS_NOBODY, EGRESS_NOBODY,
		    EGRESS_NOBODY) == -1)
			fatal("dropping root: %s", strerror(errno));
		if (getuid() != EGRESS_NOBODY || geteuid() != EGRESS_NOBODY ||
		    getgid() != EGRESS_NOBODY || getegid() != EGRESS_NOBODY ||
		    getgroups(0, NULL) != 0)
			fatal("dropping root did not take");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("no_new_privs: %s", strerror(errno));
}

/*
 * The resolver takes a name as the grant matched it, and only so: no
 * search or default domain is appended when the name does not resolve
 * (glibc would otherwise try "<name>.<search domain>", a name on the
 * host's own network that no grant named). The environment goes first,
 * since LOCALDOMAIN, RES_OPTIONS and HOSTALIASES would change resolution
 * too; bxegress needs none of brokerd's.
 */
void
setup_resolver(void)
{
	if (clearenv() != 0)
		fatal("cannot clear the environment");
	if (res_init() != 0)
		fatal("the resolver's configuration cannot be read");
	_res.options &= ~(unsigned long)(RES_DNSRCH | RES_DEFNAMES);
}

/*
 * Set after dropping root, since a change of credentials clears the
 * parent-death signal. parent is getppid() read first thing in main: if
 * brokerd died before this, bxegress was reparented and exits now. (A
 * death between fork and exec is brokerd's to cover, by setting the
 * signal in the child before exec.)
 */
void
setup_parent_death(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		fatal("parent death signal: %s", strerror(errno));
	if (getppid() != parent)
		fatal("brokerd is gone");
}

/* Read while still root: the file is in brokerd's 0700 home. */
void
setup_filter_read(const struct egress_config *cfg, struct bx_filter_prog *ret)
{
	struct bx_error err;

	if (cfg->ec_seccomp != NULL &&
	    bx_filter_load(cfg->ec_seccomp, ret, &err) == -1)
		fatal("--seccomp %s", err.msg);
}

/* Last of the setup: giving up root needs calls the filter may deny. */
void
setup_filter_install(const struct egress_config *cfg,
    const struct bx_filter_prog *prog)
{
	struct bx_error err;

	if (cfg->ec_seccomp == NULL)
		return;
	/*
	 * An ASan build's leak check stops the process under ptrace, which
	 * the filter denies, so it runs here, once, instead of at exit.
	 */
#ifdef __SANITIZE_ADDRESS__
	__lsan_do_leak_check();
#endif
	if (bx_filter_install(prog, &err) == -1)
		fatal("%s", err.msg);
}
