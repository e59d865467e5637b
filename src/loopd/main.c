/*
 * loopd: the turn loop's program. `loopd serve [--config PATH]` loads
 * loopd.toml, runs the self-test, and serves loop.sock until SIGTERM or
 * SIGINT. The only place loopd prints: one line per event on stderr,
 * each starting "loopd: ".
 */
#include <sys/stat.h>

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "loopd/api_key.h"
#include "loopd/broker_port.h"
#include "loopd/config.h"
#include "loopd/model.h"
#include "loopd/selftest.h"
#include "loopd/serve.h"
#include "proto/help.h"

/*
 * The stop flag. Turn threads read it too, so it is an atomic rather than
 * a volatile sig_atomic_t; a signal handler may set it only because it is
 * lock-free.
 */
static atomic_int stop;

_Static_assert(ATOMIC_INT_LOCK_FREE == 2,
    "the stop flag is set in a signal handler: it must be lock-free");

static void
on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static void
print_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "loopd: %s\n", line);
}

static void
print_usage(FILE *fp)
{
	bx_help_usage_line(fp, 0, "loopd serve [--config PATH]");
	bx_help_usage_line(fp, 1, "loopd help [serve]");
}

static int
usage(void)
{
	print_usage(stderr);
	return 2;
}

/* Help as proto/help.h has it; loopd has one command, so one usage. */
static bool
help_asked(int argc, char **argv)
{
	if (argc < 2)
		return false;
	if (strcmp(argv[1], "help") == 0)
		return argc == 2 || (argc == 3 && strcmp(argv[2], "serve") == 0);
	return bx_help_asked(argc, argv, 1);
}

/* Blocks the stop signals everywhere but in the accept loop's wait. */
static void
setup_signals(sigset_t *wait_mask)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	pthread_sigmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGINT);
}

static int
serve(const struct loop_config *cfg)
{
	struct model_client *model = NULL;
	struct bport *bp = NULL;
	struct tool_port port;
	struct turn_env env;
	struct bx_peer_rule peers;
	struct bx_unix_file made;
	struct bx_error err;
	sigset_t wait_mask;
	char *key = NULL;
	bool keyed;
	int fd, made_client, rc = 1;

	if (cfg->lc_api_key_file != NULL &&
	    api_key_load(cfg->lc_api_key_file, &key, &err) == -1)
		goto fail;
	keyed = key != NULL;
	/* The client keeps its own copy, as the header it sends. */
	made_client = model_client_new(cfg->lc_model_url, cfg->lc_model, key,
	    cfg->lc_timeout_s, &stop, &model, &err);
	api_key_free(key);
	if (made_client == -1)
		goto fail;
	memset(&env, 0, sizeof(env));
	env.te_home = cfg->lc_home;
	env.te_model = model;
	env.te_max_steps = cfg->lc_max_steps;
	env.te_log = print_line;
	env.te_stop = &stop;
	if (cfg->lc_broker_socket != NULL) {
		if (bport_new(cfg->lc_broker_socket, &stop, &bp, &err) == -1)
			goto fail;
		bport_tool_port(bp, &port);
		env.te_port = &port;
	} else
		fprintf(stderr, "loopd: the configuration has no [broker]: "
		    "every call of read_file, write_file, shell and "
		    "http_fetch fails with \"no tool broker is configured\"; "
		    "see docs/runbook.md#no-tool-broker\n");
	/* The owner (loopd's own uid while it runs as the owner) and root. */
	bx_peer_rule_init(&peers, "loop.sock");
	if (bx_peer_rule_add(&peers, geteuid(), &err) == -1 ||
	    bx_peer_rule_add(&peers, 0, &err) == -1)
		goto fail;
	setup_signals(&wait_mask);
	if (loop_serve_bind(cfg->lc_loop_socket, &fd, &made, &err) == -1)
		goto fail;
	fprintf(stderr, "loopd: serving %s (model %s at %s%s)\n",
	    cfg->lc_loop_socket, cfg->lc_model, cfg->lc_model_url,
	    keyed ? ", with the key in [model] api_key_file" : "");
	if (loop_serve_run(fd, cfg->lc_loop_socket, &made, &env, &peers,
	    &stop, &wait_mask, &err) == -1)
		goto fail;
	fprintf(stderr, "loopd: stopped\n");
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "loopd: %s\n", err.msg);
out:
	bport_free(bp);
	model_client_free(model);
	return rc;
}

int
main(int argc, char **argv)
{
	struct loop_config *cfg;
	struct bx_error err;
	int rc;

	if (help_asked(argc, argv)) {
		print_usage(stdout);
		return 0;
	}
	if ((argc != 2 && argc != 4) || strcmp(argv[1], "serve") != 0 ||
	    (argc == 4 && strcmp(argv[2], "--config") != 0))
		return usage();
	umask(077);
	if (loop_config_load(argc == 4 ? argv[3] : NULL, &cfg, &err) == -1) {
		fprintf(stderr, "loopd: %s\n", err.msg);
		return 1;
	}
	if (selftest_run(cfg->lc_home, &err) == -1) {
		fprintf(stderr, "loopd: %s\n", err.msg);
		loop_config_free(cfg);
		return 1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "loopd: libcurl could not start\n");
		loop_config_free(cfg);
		return 1;
	}
	rc = serve(cfg);
	curl_global_cleanup();
	loop_config_free(cfg);
	return rc;
}
