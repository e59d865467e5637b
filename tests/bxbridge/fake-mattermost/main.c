/*
 * fake-mattermost: the fake Mattermost server (fake_mm.h) as a program,
 * for tests that run the bridge as a process and for trying it by hand.
 *
 *	fake-mattermost [--port N | --unix PATH] [--log FILE]
 *	    [--token TOKEN] [--bot ID] [--owner ID]
 *
 * Once listening it prints its port (127.0.0.1) as one line on stdout,
 * in one write, so that a test can wait for that line. --log appends one
 * JSON line per API request. Tests script it over HTTP under /fake/
 * (fake_mm_control.h). Runs until SIGTERM or SIGINT.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_mm.h"

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const struct option longopts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "unix", required_argument, NULL, 'u' },
	{ "log", required_argument, NULL, 'l' },
	{ "token", required_argument, NULL, 't' },
	{ "bot", required_argument, NULL, 'b' },
	{ "owner", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

int
main(int argc, char **argv)
{
	struct fake_mm_opts opts = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct fake_mm *fm;
	struct bx_error err;
	sigset_t mask, old;
	int ch;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p': opts.port = atoi(optarg); break;
		case 'u': opts.unix_path = optarg; break;
		case 'l': opts.log_path = optarg; break;
		case 't': opts.token = optarg; break;
		case 'b': opts.bot_id = optarg; break;
		case 'o': opts.owner_id = optarg; break;
		default:
			fprintf(stderr, "usage: fake-mattermost [--port N | "
			    "--unix PATH] [--log FILE] [--token TOKEN] "
			    "[--bot ID] [--owner ID]\n");
			return 2;
		}
	}
	/* The server thread must not take the signals: block them first. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	pthread_sigmask(SIG_BLOCK, &mask, &old);
	if (fake_mm_start(&opts, &fm, &err) == -1) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("%d\n", fake_mm_port(fm));
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	fake_mm_stop(fm);
	return 0;
}
