/*
 * run.c: running build/bxctl for the tests (run.h).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

/* bxctl is killed if it takes longer than this: it never should. */
#define RUN_TIMEOUT_MS	60000
#define RUN_ARGS_MAX	32

static void
die(const char *what)
{
	fprintf(stderr, "run: %s: %s\n", what, strerror(errno));
	abort();
}

static void
child(const char *const *args, const char *home, int in, int out, int err)
{
	char path[4096], *argv[RUN_ARGS_MAX + 2];
	const char *root = getenv("BX_BUILD_ROOT");
	size_t i;

	if (root == NULL)
		root = ".";
	snprintf(path, sizeof(path), "%s/src/bxctl/bxctl", root);
	argv[0] = "bxctl";
	for (i = 0; args[i] != NULL && i < RUN_ARGS_MAX; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	if (dup2(in, 0) == -1 || dup2(out, 1) == -1 || dup2(err, 2) == -1)
		_exit(127);
	if (home != NULL)
		setenv("BOXMAKER_HOME", home, 1);
	else
		unsetenv("BOXMAKER_HOME");
	execv(path, argv);
	dprintf(2, "run: cannot run %s: %s\n", path, strerror(errno));
	_exit(127);
}

/* Appends what fd has to *buf; returns false at end of file. */
static bool
drain(int fd, char **buf, size_t *len)
{
	char chunk[4096];
	ssize_t n;

	n = read(fd, chunk, sizeof(chunk));
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	if ((*buf = realloc(*buf, *len + (size_t)n + 1)) == NULL)
		die("realloc");
	memcpy(*buf + *len, chunk, (size_t)n);
	*len += (size_t)n;
	(*buf)[*len] = '\0';
	return true;
}

void
run_bxctl(const char *const *args, const char *home, const char *input,
    struct run_result *res)
{
	int in[2], out[2], err[2], status, waited = 0;
	struct pollfd pfd[2];
	size_t inlen = input == NULL ? 0 : strlen(input), done = 0;
	bool out_open = true, err_open = true;
	ssize_t n;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if ((res->out = calloc(1, 1)) == NULL || (res->err = calloc(1, 1)) ==
	    NULL)
		die("calloc");
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1 ||
	    pipe2(err, O_CLOEXEC) == -1)
		die("pipe2");
	if ((pid = fork()) == -1)
		die("fork");
	if (pid == 0)
		child(args, home, in[0], out[1], err[1]);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	/* The input is small: it fits in the pipe, so write it all now. */
	signal(SIGPIPE, SIG_IGN);
	while (done < inlen) {
		n = write(in[1], input + done, inlen - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		done += (size_t)n;
	}
	close(in[1]);
	while (out_open || err_open) {
		pfd[0].fd = out_open ? out[0] : -1;
		pfd[0].events = POLLIN;
		pfd[1].fd = err_open ? err[0] : -1;
		pfd[1].events = POLLIN;
		n = poll(pfd, 2, RUN_TIMEOUT_MS);
		if (n == 0) {
			kill(pid, SIGKILL);
			break;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (pfd[0].revents != 0)
			out_open = drain(out[0], &res->out, &res->outlen);
		if (pfd[1].revents != 0)
			err_open = drain(err[0], &res->err, &res->errlen);
	}
	close(out[0]);
	close(err[0]);
	while ((waited = waitpid(pid, &status, 0)) == -1 && errno == EINTR)
		;
	if (waited == -1)
		die("waitpid");
	res->status = WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
}

void
run_result_free(struct run_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

char *
run_tempdir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	if (asprintf(&dir, "%s/bxctl-test.XXXXXX", tmp) == -1)
		die("asprintf");
	if (mkdtemp(dir) == NULL)
		die("mkdtemp");
	return dir;
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
run_rmdir(char *dir)
{
	if (dir == NULL)
		return;
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

/*
 * A byte a terminal acts on: below 0x20 other than '\n' (bxctl's own line
 * ends), DEL, the lead bytes of C1 controls (0xc2 0x80 to 0xc2 0x9f), the
 * invisible and bidi controls of escape.h in UTF-8, and any byte that is
 * not valid UTF-8. Returns its offset, or -1.
 */
long
run_find_control(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, n;
	unsigned cp;

	while (i < len) {
		if (p[i] < 0x80) {
			if ((p[i] < 0x20 && p[i] != '\n') || p[i] == 0x7f)
				return (long)i;
			i++;
			continue;
		}
		if ((p[i] & 0xe0) == 0xc0)
			n = 2, cp = p[i] & 0x1f;
		else if ((p[i] & 0xf0) == 0xe0)
			n = 3, cp = p[i] & 0x0f;
		else if ((p[i] & 0xf8) == 0xf0)
			n = 4, cp = p[i] & 0x07;
		else
			return (long)i;
		if (i + n > len)
			return (long)i;
		for (size_t k = 1; k < n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
		    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return (long)i;
		if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
		    (cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 ||
		    cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x2060 && cp <= 0x2064) ||
		    (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff)
			return (long)i;
		i += n;
	}
	return -1;
}
