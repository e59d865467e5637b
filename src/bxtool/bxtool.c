/*
 * bxtool.c: the in-sandbox helper's entry (see bxtool.h): the arguments,
 * the process settings every subcommand needs, and the one final line.
 *
 *	bxtool read --max N PATH
 *	bxtool write PATH		(the content on stdin)
 *	bxtool run [--cwd DIR] -- PROGRAM [ARGS...]
 *	bxtool fetch --max N --proxy SOCKET --cacert FILE
 *	    [--secret NAME --secret-fd FD] URL
 */
#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"
#include "proto/help.h"

/* Exit statuses: a final line was written, it could not be, bad usage. */
#define EXIT_REPORTED	0
#define EXIT_UNREPORTED	1
#define EXIT_USAGE	2

/* Files and directories bxtool creates get 0644 and 0755. */
#define BXT_UMASK	022

static void
usage(int fd)
{
	static const char text[] =
	    "usage: bxtool read --max N PATH\n"
	    "       bxtool write PATH\n"
	    "       bxtool run [--cwd DIR] -- PROGRAM [ARGS...]\n"
	    "       bxtool fetch --max N --proxy SOCKET --cacert FILE\n"
	    "           [--secret NAME --secret-fd FD] URL\n";

	(void)write(fd, text, sizeof(text) - 1);
}

/* N from 1 to limit, in decimal digits and nothing else. */
static int
parse_number(const char *s, size_t limit, size_t *ret)
{
	size_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (size_t)(*s - '0');
		if (v > limit)
			return -1;
	}
	if (v == 0)
		return -1;
	*ret = v;
	return 0;
}

/* N from 1 to BXT_CONTENT_MAX. */
static int
parse_max(const char *s, size_t *ret)
{
	return parse_number(s, BXT_CONTENT_MAX, ret);
}

static int
parse_run(int argc, char *argv[], struct bxt_args *a)
{
	int i = 2;

	a->a_cwd = "/tmp";
	if (i < argc && strcmp(argv[i], "--cwd") == 0) {
		if (i + 1 >= argc)
			return -1;
		a->a_cwd = argv[i + 1];
		i += 2;
	}
	if (i >= argc || strcmp(argv[i], "--") != 0)
		return -1;
	i++;
	if (i >= argc || argv[i][0] == '\0')
		return -1;
	a->a_argv = argv + i;
	return 0;
}

/*
 * With a secret its header line comes on descriptor FD (brokerd: stdin),
 * never in argv; --max may then pass BXT_CONTENT_MAX by the lookahead.
 */
static int
parse_fetch(int argc, char *argv[], struct bxt_args *a)
{
	size_t fd;

	a->a_secret_fd = -1;
	if ((argc != 9 && argc != 13) || strcmp(argv[2], "--max") != 0 ||
	    strcmp(argv[4], "--proxy") != 0 ||
	    strcmp(argv[6], "--cacert") != 0 ||
	    strncmp(argv[argc - 1], "https://", 8) != 0)
		return -1;
	a->a_proxy = argv[5];
	a->a_cacert = argv[7];
	a->a_path = argv[argc - 1];
	if (argc == 9)
		return parse_max(argv[3], &a->a_max);
	if (strcmp(argv[8], "--secret") != 0 || argv[9][0] == '\0' ||
	    strcmp(argv[10], "--secret-fd") != 0)
		return -1;
	a->a_secret = argv[9];
	/* "0" is a number here; parse_number takes 1 and up. */
	if (strcmp(argv[11], "0") == 0)
		fd = 0;
	else if (parse_number(argv[11], 1024, &fd) == -1)
		return -1;
	a->a_secret_fd = (int)fd;
	return parse_number(argv[3], BXT_FETCH_MAX, &a->a_max);
}

static int
parse(int argc, char *argv[], struct bxt_args *a)
{
	memset(a, 0, sizeof(*a));
	if (argc < 2)
		return -1;
	if (strcmp(argv[1], "read") == 0) {
		a->a_cmd = BXT_READ;
		if (argc != 5 || strcmp(argv[2], "--max") != 0)
			return -1;
		a->a_path = argv[4];
		return parse_max(argv[3], &a->a_max);
	}
	if (strcmp(argv[1], "write") == 0) {
		a->a_cmd = BXT_WRITE;
		if (argc != 3)
			return -1;
		a->a_path = argv[2];
		return 0;
	}
	if (strcmp(argv[1], "run") == 0) {
		a->a_cmd = BXT_RUN;
		return parse_run(argc, argv, a);
	}
	if (strcmp(argv[1], "fetch") == 0) {
		a->a_cmd = BXT_FETCH;
		return parse_fetch(argc, argv, a);
	}
	return -1;
}

/*
 * What every subcommand needs, set before the first line is written (a
 * failure is told in the final line): files made 0644 and directories
 * 0755 whatever umask brokerd had; not dumpable, so that a command of the
 * same uid can neither open /proc/<bxtool>/fd/2 nor ptrace bxtool to
 * forge a status line; SIGPIPE ignored, so that a reader that went away
 * makes a write fail with EPIPE instead of killing bxtool before its
 * final line (run's child restores it); the subreaper of all the command
 * starts (descendants.c); and in podman's sandbox, brokerd's system-call
 * filter (filter.c).
 */
static int
setup(struct bxt_outcome *out)
{
	(void)umask(BXT_UMASK);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1) {
		bxt_fail(out, "cannot make bxtool undumpable: %s",
		    strerror(errno));
		return -1;
	}
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		bxt_fail(out, "cannot ignore SIGPIPE: %s", strerror(errno));
		return -1;
	}
	/* A closed one would be taken by the next open and mistaken. */
	if (fcntl(STDIN_FILENO, F_GETFD) == -1 ||
	    fcntl(STDOUT_FILENO, F_GETFD) == -1) {
		bxt_fail(out, "standard input or output is not open");
		return -1;
	}
	if (bxt_descendants_adopt(out) == -1)
		return -1;
	return bxt_filter_install(out);
}

int
main(int argc, char *argv[])
{
	static struct bxt_outcome out;
	struct bxt_args args;
	int ready;

	if (argc >= 2 && (strcmp(argv[1], "help") == 0 ||
	    bx_help_asked(argc, argv, 1))) {
		usage(STDOUT_FILENO);
		return EXIT_REPORTED;
	}
	if (parse(argc, argv, &args) == -1) {
		usage(STDERR_FILENO);
		return EXIT_USAGE;
	}
	ready = setup(&out);
	if (bxt_status_started() == -1)
		return EXIT_UNREPORTED;
	if (ready == 0) {
		switch (args.a_cmd) {
		case BXT_READ:
			bxt_read(&args, &out);
			break;
		case BXT_WRITE:
			bxt_write(&args, &out);
			break;
		case BXT_FETCH:
			bxt_fetch(&args, &out);
			break;
		default:
			bxt_run(&args, &out);
			break;
		}
	}
	/* Nothing the command started may write after the final line. */
	bxt_descendants_end();
	return bxt_status_final(&out) == -1 ? EXIT_UNREPORTED : EXIT_REPORTED;
}
