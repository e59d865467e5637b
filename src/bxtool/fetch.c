/*
 * fetch.c: bxtool fetch --max N --proxy SOCKET --cacert FILE URL, the
 * http_fetch tool. The sandbox's curl does the fetch, its only way out the
 * call's egress proxy (socks5h: the proxy, not curl, resolves the name),
 * https only, at most FETCH_REDIRECTS redirects, each one through the
 * proxy too. bxtool passes the body on to its stdout, at most N bytes:
 * past them it kills curl and says truncated. The final response's status
 * is curl's own (--write-out, on stderr, where no server byte goes) when
 * curl finishes; for a cut body, which curl never finishes, it comes from
 * the header dump, which curl writes before any body byte (read by
 * fetch_status.c, which parses all that curl hands over).
 *
 * curl's stderr is kept for its one error line, which becomes the failed
 * message ("curl: (97) ..."); brokerd adds the proxy's own reason.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"
#include "bxtool/fetch_status.h"
#include "proto/writefile.h"

/* The sandbox's curl: /usr is the host's, or [runner] root's. */
#define FETCH_CURL		"/usr/bin/curl"
/* In the call's private /tmp; only curl and bxtool are there. */
#define FETCH_HEADERS		"/tmp/.bxtool-fetch-headers"
#define FETCH_REDIRECTS		"5"
/* What is kept of curl's stderr: its error line and then some. */
#define FETCH_ERR_MAX		4096
#define FETCH_CHUNK		65536
#define EXIT_CANNOT_RUN		127

struct fetch_run {
	pid_t	 pid;
	int	 out;		/* curl's stdout, -1 once done */
	int	 err;		/* curl's stderr, -1 once done */
	size_t	 sent;		/* body bytes passed on */
	size_t	 max;
	bool	 truncated;
	bool	 lost_reader;	/* bxtool's stdout failed */
	char	 errbuf[FETCH_ERR_MAX];
	size_t	 errlen;
};

static void __attribute__((noreturn))
child(const struct bxt_args *a, int nullfd, int out, int err)
{
	static char proxy[PATH_MAX + 32];
	char *argv[] = {
		FETCH_CURL, "-q", "--silent", "--show-error", "--globoff",
		"--proxy", proxy, "--proto", "=https", "--proto-redir",
		"=https", "--location", "--max-redirs", FETCH_REDIRECTS,
		"--cacert", (char *)a->a_cacert, "--dump-header",
		FETCH_HEADERS, "--write-out",
		"%{stderr}\n" FETCH_CODE_MARK "%{response_code}\n",
		"--user-agent", "boxmaker-http_fetch",
		"--url", (char *)a->a_path, NULL,
	};

	(void)snprintf(proxy, sizeof(proxy), "socks5h://localhost%s",
	    a->a_proxy);
	if (dup2(nullfd, STDIN_FILENO) != -1 &&
	    dup2(out, STDOUT_FILENO) != -1 && dup2(err, STDERR_FILENO) != -1) {
		bxt_child_reset();
		(void)execve(FETCH_CURL, argv, bxt_command_env);
		err = STDERR_FILENO;	/* the reset closed the others */
	}
	(void)dprintf(err, "cannot run %s: %s (http_fetch runs the curl of "
	    "the sandbox's /usr: install curl)\n", FETCH_CURL, strerror(errno));
	_exit(EXIT_CANNOT_RUN);
}

/* Passes a chunk of body on; past max, curl is stopped. */
static void
take_out(struct fetch_run *r)
{
	static char buf[FETCH_CHUNK];
	size_t room;
	ssize_t n;

	n = read(r->out, buf, sizeof(buf));
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(r->out);
		r->out = -1;
		return;
	}
	room = r->max - r->sent;
	if ((size_t)n > room)
		r->truncated = true;
	if (bx_write_all(STDOUT_FILENO, buf, (size_t)n > room ? room :
	    (size_t)n) == -1)
		r->lost_reader = true;
	r->sent += (size_t)n > room ? room : (size_t)n;
	if (r->truncated || r->lost_reader) {
		(void)kill(r->pid, SIGKILL);
		close(r->out);
		r->out = -1;
	}
}

static void
take_err(struct fetch_run *r)
{
	char drop[512];
	ssize_t n;

	if (r->errlen < FETCH_ERR_MAX)
		n = read(r->err, r->errbuf + r->errlen,
		    FETCH_ERR_MAX - r->errlen);
	else
		n = read(r->err, drop, sizeof(drop));
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(r->err);
		r->err = -1;
		return;
	}
	if (r->errlen < FETCH_ERR_MAX)
		r->errlen += (size_t)n;
}

/* Until curl has closed both pipes (or was stopped). */
static void
pump(struct fetch_run *r)
{
	struct pollfd p[2];

	while (r->out != -1 || r->err != -1) {
		p[0].fd = r->out;
		p[0].events = POLLIN;
		p[1].fd = r->err;
		p[1].events = POLLIN;
		if (poll(p, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			(void)kill(r->pid, SIGKILL);
			break;
		}
		if (r->out != -1 && p[0].revents != 0)
			take_out(r);
		if (r->err != -1 && p[1].revents != 0)
			take_err(r);
	}
	if (r->out != -1)
		close(r->out);
	if (r->err != -1)
		close(r->err);
}

/* The final response's status in curl's header dump, or 0. */
static int
final_status(void)
{
	static char buf[FETCH_CHUNK];
	struct fetch_head h;
	ssize_t n;
	int fd;

	if ((fd = open(FETCH_HEADERS, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) ==
	    -1)
		return 0;
	fetch_head_init(&h);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		fetch_head_feed(&h, buf, (size_t)n);
	}
	close(fd);
	return fetch_head_status(&h);
}

/* curl's first stderr line, as the failed message. */
static void
fail_with_curl(struct fetch_run *r, int status, struct bxt_outcome *out)
{
	size_t n = fetch_err_line(r->errbuf, r->errlen);

	if (n > 0)
		bxt_fail(out, "%.*s", (int)n, r->errbuf);
	else if (WIFSIGNALED(status))
		bxt_fail(out, "curl was killed by signal %d",
		    WTERMSIG(status));
	else
		bxt_fail(out, "curl exited with status %d",
		    WEXITSTATUS(status));
}

static void
conclude(struct fetch_run *r, int status, struct bxt_outcome *out)
{
	int code, curls = fetch_curl_code(r->errbuf, &r->errlen);

	if (r->lost_reader) {
		bxt_fail(out, "cannot pass the body on: %s", strerror(EPIPE));
		return;
	}
	if (!r->truncated && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fail_with_curl(r, status, out);
		return;
	}
	code = r->truncated ? final_status() : curls;
	if (code == 0) {
		bxt_fail(out, "curl gave no HTTP status");
		return;
	}
	out->o_final = BXT_HTTP;
	out->o_code = code;
	out->o_truncated = r->truncated;
}

void
bxt_fetch(const struct bxt_args *args, struct bxt_outcome *out)
{
	struct fetch_run r;
	int nullfd, outp[2], errp[2], status;

	memset(&r, 0, sizeof(r));
	r.max = args->a_max;
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (nullfd == -1) {
		bxt_fail(out, "cannot open /dev/null: %s", strerror(errno));
		return;
	}
	if (pipe2(outp, O_CLOEXEC) == -1) {
		bxt_fail(out, "cannot make a pipe: %s", strerror(errno));
		close(nullfd);
		return;
	}
	if (pipe2(errp, O_CLOEXEC) == -1) {
		bxt_fail(out, "cannot make a pipe: %s", strerror(errno));
		close(outp[0]);
		close(outp[1]);
		close(nullfd);
		return;
	}
	if ((r.pid = fork()) == 0)
		child(args, nullfd, outp[1], errp[1]);
	close(nullfd);
	close(outp[1]);
	close(errp[1]);
	r.out = outp[0];
	r.err = errp[0];
	if (r.pid == -1) {
		bxt_fail(out, "cannot start curl: %s", strerror(errno));
		close(r.out);
		close(r.err);
		return;
	}
	pump(&r);
	while (waitpid(r.pid, &status, 0) == -1)
		if (errno != EINTR) {
			bxt_fail(out, "cannot wait for curl: %s",
			    strerror(errno));
			return;
		}
	conclude(&r, status, out);
}
