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
 *
 * With a secret (--secret NAME --secret-fd FD, docs/design.md "Secrets")
 * the header goes to curl as a config on its stdin (fetch_secret.c), and:
 * curl follows no redirect itself; bxtool follows one only to the same
 * https host on port 443, at most FETCH_REDIRECTS, the header sent again
 * on each hop, and fails any other naming its target; it holds each
 * response's body until it knows the response is the final one (up to
 * --max, which brokerd makes its limit plus what its redaction needs
 * past it); and a final response with a Content-Encoding other than
 * identity fails, since the model could decode an echo of the secret that
 * brokerd's redaction cannot see in it.
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
#define FETCH_REDIRECTS_N	5
/* A redirect's target longer than this is named by its host alone. */
#define FETCH_TARGET_SHOWN	512
/* The longest redirect target followed. */
#define FETCH_URL_MAX		8192
/* Longer host names are no DNS name. */
#define FETCH_HOST_MAX		256
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
	char	*held;		/* with a secret: the body, not yet passed on */
	char	 errbuf[FETCH_ERR_MAX];
	size_t	 errlen;
};

/*
 * curl's argv. With a secret: no --location (bxtool follows), the header
 * from the config on stdin, and the redirect's target on stderr too.
 */
static void __attribute__((noreturn))
child(const struct bxt_args *a, const char *url, int in, int out, int err)
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
		"--url", (char *)url, NULL,
	};
	char *secret_argv[] = {
		FETCH_CURL, "-q", "--config", "-", "--silent", "--show-error",
		"--globoff", "--proxy", proxy, "--proto", "=https",
		"--cacert", (char *)a->a_cacert, "--dump-header",
		FETCH_HEADERS, "--write-out",
		"%{stderr}\n" FETCH_CODE_MARK "%{response_code}\n"
		FETCH_REDIRECT_MARK "%{redirect_url}\n",
		"--user-agent", "boxmaker-http_fetch",
		"--url", (char *)url, NULL,
	};

	(void)snprintf(proxy, sizeof(proxy), "socks5h://localhost%s",
	    a->a_proxy);
	if (dup2(in, STDIN_FILENO) != -1 &&
	    dup2(out, STDOUT_FILENO) != -1 && dup2(err, STDERR_FILENO) != -1) {
		bxt_child_reset();
		(void)execve(FETCH_CURL, a->a_secret != NULL ? secret_argv :
		    argv, bxt_command_env);
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
	if (r->held != NULL)
		memcpy(r->held + r->sent, buf, (size_t)n > room ? room :
		    (size_t)n);
	else if (bx_write_all(STDOUT_FILENO, buf, (size_t)n > room ? room :
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

/*
 * The final response's status in curl's header dump, or 0; *ret_encoded
 * whether it named a Content-Encoding other than identity (a dump that
 * cannot be read counts as one).
 */
static int
final_status(bool *ret_encoded)
{
	static char buf[FETCH_CHUNK];
	struct fetch_head h;
	ssize_t n;
	int fd;

	*ret_encoded = true;
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
	*ret_encoded = n == -1 || fetch_head_encoded(&h);
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
	bool encoded;

	if (r->lost_reader) {
		bxt_fail(out, "cannot pass the body on: %s", strerror(EPIPE));
		return;
	}
	if (!r->truncated && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fail_with_curl(r, status, out);
		return;
	}
	code = r->truncated ? final_status(&encoded) : curls;
	if (code == 0) {
		bxt_fail(out, "curl gave no HTTP status");
		return;
	}
	out->o_final = BXT_HTTP;
	out->o_code = code;
	out->o_truncated = r->truncated;
}

/*
 * One run of curl on url: *r filled (the body passed on, or held with a
 * secret), *ret_status curl's wait status. -1 with out failed when curl
 * could not be run or waited for.
 */
static int
hop(const struct bxt_args *args, const char *url, struct fetch_run *r,
    int *ret_status, struct bxt_outcome *out)
{
	int in, outp[2], errp[2];

	r->out = r->err = -1;
	r->sent = r->errlen = 0;
	r->truncated = r->lost_reader = false;
	in = args->a_secret != NULL ? bxt_secret_config(out) :
	    open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (in == -1) {
		if (args->a_secret == NULL)
			bxt_fail(out, "cannot open /dev/null: %s",
			    strerror(errno));
		return -1;
	}
	if (pipe2(outp, O_CLOEXEC) == -1) {
		bxt_fail(out, "cannot make a pipe: %s", strerror(errno));
		close(in);
		return -1;
	}
	if (pipe2(errp, O_CLOEXEC) == -1) {
		bxt_fail(out, "cannot make a pipe: %s", strerror(errno));
		close(outp[0]);
		close(outp[1]);
		close(in);
		return -1;
	}
	if ((r->pid = fork()) == 0)
		child(args, url, in, outp[1], errp[1]);
	close(in);
	close(outp[1]);
	close(errp[1]);
	r->out = outp[0];
	r->err = errp[0];
	if (r->pid == -1) {
		bxt_fail(out, "cannot start curl: %s", strerror(errno));
		close(r->out);
		close(r->err);
		return -1;
	}
	pump(r);
	while (waitpid(r->pid, ret_status, 0) == -1)
		if (errno != EINTR) {
			bxt_fail(out, "cannot wait for curl: %s",
			    strerror(errno));
			return -1;
		}
	return 0;
}

/* A redirect not followed, its target shown whole or by its host. */
static void
not_followed(const struct bxt_args *args, int code, const char *target,
    const char *host, struct bxt_outcome *out)
{
	char shown[FETCH_HOST_MAX];

	if (strlen(target) <= FETCH_TARGET_SHOWN)
		bxt_fail(out, "HTTP %d: redirect to %s not followed: the "
		    "secret %s is only for %s", code, target, args->a_secret,
		    host);
	else if (fetch_url_host(target, shown, sizeof(shown)) == 0)
		bxt_fail(out, "HTTP %d: redirect to https://%s/... not "
		    "followed: the secret %s is only for %s", code, shown,
		    args->a_secret, host);
	else
		bxt_fail(out, "HTTP %d: redirect to a URL of %zu bytes not "
		    "followed: the secret %s is only for %s", code,
		    strlen(target), args->a_secret, host);
}

/*
 * The end of one hop with a secret: 1 with next set to follow it, 0 when
 * out says how the call ends.
 */
static int
secret_conclude(const struct bxt_args *args, struct fetch_run *r, int status,
    const char *host, int hops, char *next, struct bxt_outcome *out)
{
	bool encoded;
	int code, target;

	target = fetch_curl_redirect(r->errbuf, &r->errlen, next,
	    FETCH_URL_MAX);
	conclude(r, status, out);
	if (out->o_final != BXT_HTTP)
		return 0;
	code = out->o_code;
	if (code / 100 == 3 && !r->truncated && target != 0) {
		if (target == -1) {
			bxt_fail(out, "HTTP %d: redirect to a URL of %d bytes "
			    "or more not followed: the secret %s is only for %s",
			    code, FETCH_URL_MAX, args->a_secret, host);
			return 0;
		}
		if (!fetch_same_host(next, host)) {
			not_followed(args, code, next, host, out);
			return 0;
		}
		if (hops == FETCH_REDIRECTS_N) {
			bxt_fail(out, "Maximum (%d) redirects followed",
			    FETCH_REDIRECTS_N);
			return 0;
		}
		return 1;
	}
	(void)final_status(&encoded);
	if (encoded) {
		bxt_fail(out, "HTTP %d: the response has a Content-Encoding "
		    "other than identity, which is not returned after the "
		    "secret %s was sent", code, args->a_secret);
		return 0;
	}
	if (bx_write_all(STDOUT_FILENO, r->held, r->sent) == -1)
		bxt_fail(out, "cannot pass the body on: %s", strerror(errno));
	return 0;
}

/* With a secret: hop after hop to the same host, the body held. */
static void
fetch_secret(const struct bxt_args *args, struct fetch_run *r,
    struct bxt_outcome *out)
{
	static char held[BXT_FETCH_MAX], url[2][FETCH_URL_MAX];
	char host[FETCH_HOST_MAX];
	int hops, status, cur = 0;

	if (bxt_secret_take(args->a_secret_fd, out) == -1)
		return;
	if (fetch_url_host(args->a_path, host, sizeof(host)) == -1 ||
	    strlen(args->a_path) >= FETCH_URL_MAX) {
		bxt_fail(out, "the URL has no host a secret can be sent to");
		bxt_secret_forget();
		return;
	}
	snprintf(url[0], sizeof(url[0]), "%s", args->a_path);
	r->held = held;
	for (hops = 0; ; hops++) {
		if (hop(args, url[cur], r, &status, out) == -1 ||
		    secret_conclude(args, r, status, host, hops, url[!cur],
		    out) == 0)
			break;
		cur = !cur;
	}
	bxt_secret_forget();
}

void
bxt_fetch(const struct bxt_args *args, struct bxt_outcome *out)
{
	struct fetch_run r;
	int status;

	memset(&r, 0, sizeof(r));
	r.max = args->a_max;
	if (args->a_secret != NULL) {
		fetch_secret(args, &r, out);
		return;
	}
	if (hop(args, args->a_path, &r, &status, out) == 0)
		conclude(&r, status, out);
}
