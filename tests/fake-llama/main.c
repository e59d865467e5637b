/*
 * fake-llama: the scripted fake llama-server as a program, for `make demo`
 * and for trying loopd by hand.
 *
 *	fake-llama --script FILE [--port N] [--port-file FILE] [--record DIR]
 *	    [--api-key KEY] [--models NAME,...] [--n-ctx TOKENS]
 *
 * Prints the port it listens on (127.0.0.1) as one line on stdout, and
 * writes it to --port-file if given; records each request body as
 * DIR/request-NNN.json with --record. --api-key, --models (router mode)
 * and --n-ctx refuse requests as a real llama-server started so would
 * (fake_gate.h). Runs until SIGTERM or SIGINT.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_llama.h"

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
	fprintf(stderr, "usage: fake-llama --script FILE [--port N] "
	    "[--port-file FILE] [--record DIR] [--api-key KEY] "
	    "[--models NAME,...] [--n-ctx TOKENS]\n");
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
	const char *script = NULL, *port_file = NULL, *record = NULL;
	struct fake_gate gate = { 0 };
	struct sigaction sa;
	struct fake_llama *fl;
	struct bx_error err;
	sigset_t mask, old;
	int i, port = 0;

	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (strcmp(argv[i], "--script") == 0)
			script = argv[++i];
		else if (strcmp(argv[i], "--port") == 0)
			port = atoi(argv[++i]);
		else if (strcmp(argv[i], "--port-file") == 0)
			port_file = argv[++i];
		else if (strcmp(argv[i], "--record") == 0)
			record = argv[++i];
		else if (strcmp(argv[i], "--api-key") == 0)
			gate.fg_api_key = argv[++i];
		else if (strcmp(argv[i], "--models") == 0)
			gate.fg_models = argv[++i];
		else if (strcmp(argv[i], "--n-ctx") == 0)
			gate.fg_n_ctx = atol(argv[++i]);
		else
			usage();
	}
	if (script == NULL || port < 0 || port > 65535 || gate.fg_n_ctx < 0)
		usage();

	/* The server thread must not take the signals: block them first. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	pthread_sigmask(SIG_BLOCK, &mask, &old);
	if (fake_llama_start_file(script, record, port, &gate, &fl, &err) == -1) {
		fprintf(stderr, "fake-llama: %s\n", err.msg);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("%d\n", fake_llama_port(fl));
	fflush(stdout);
	if (port_file != NULL &&
	    write_port_file(port_file, fake_llama_port(fl)) == -1) {
		fprintf(stderr, "fake-llama: %s: %s\n", port_file,
		    strerror(errno));
		fake_llama_stop(fl);
		return 1;
	}
	while (!stop)
		sigsuspend(&old);
	fake_llama_stop(fl);
	return 0;
}
