/*
 * fake-mattermost: the fake Mattermost server (fake_mm.h) as a program,
 * for tests that run the bridge as a process and for trying it by hand.
 *
 *	fake-mattermost [--port N | --unix PATH] [--port-file FILE]
 *	    [--log FILE] [--token TOKEN] [--bot ID] [--owner ID]
 *
 * Prints the port it listens on (127.0.0.1) as one line on stdout, and
 * writes it to --port-file if given; --log appends one JSON line per API
 * request. Tests script it over HTTP under /fake/ (fake_mm_control.h).
 * Runs until SIGTERM or SIGINT.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_mm.h"

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(void)
{
	fprintf(stderr, "usage: fake-mattermost [--port N | --unix PATH] "
	    "[--port-file FILE] [--log FILE] [--token TOKEN] [--bot ID] "
	    "[--owner ID]\n");
	exit(2);
}

static int
write_port_file(const char *path, int port)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "we")) == NULL)
		return -1;
	fprintf(f, "%d\n", port);
	if (fclose(f) == EOF)
		return -1;
	return rename(tmp, path);
}

int
main(int argc, char **argv)
{
	struct fake_mm_opts opts = { 0 };
	const char *port_file = NULL;
	struct sigaction sa;
	struct fake_mm *fm;
	struct bx_error err;
	sigset_t mask, old;
	int i;

	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (strcmp(argv[i], "--port") == 0)
			opts.port = atoi(argv[++i]);
		else if (strcmp(argv[i], "--unix") == 0)
			opts.unix_path = argv[++i];
		else if (strcmp(argv[i], "--port-file") == 0)
			port_file = argv[++i];
		else if (strcmp(argv[i], "--log") == 0)
			opts.log_path = argv[++i];
		else if (strcmp(argv[i], "--token") == 0)
			opts.token = argv[++i];
		else if (strcmp(argv[i], "--bot") == 0)
			opts.bot_id = argv[++i];
		else if (strcmp(argv[i], "--owner") == 0)
			opts.owner_id = argv[++i];
		else
			usage();
	}
	if (opts.port < 0 || opts.port > 65535)
		usage();

	/* The server thread must not take the signals: block them first. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	pthread_sigmask(SIG_BLOCK, &mask, &old);
	if (fake_mm_start(&opts, &fm, &err) == -1) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("%d\n", fake_mm_port(fm));
	fflush(stdout);
	if (port_file != NULL &&
	    write_port_file(port_file, fake_mm_port(fm)) == -1) {
		fprintf(stderr, "fake-mattermost: %s: %s\n", port_file,
		    strerror(errno));
		fake_mm_stop(fm);
		return 1;
	}
	while (!stop)
		sigsuspend(&old);
	fake_mm_stop(fm);
	return 0;
}
