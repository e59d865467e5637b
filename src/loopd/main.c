/*
 * loopd: the turn loop's program. `loopd serve [--config PATH]` loads
 * loopd.toml and runs the self-test; then, with [jail] mode on (the
 * default), it becomes the launcher (launcher.h), which starts the turn
 * loop in its jail as `loopd serve --config PATH --in-jail OWNER_UID`;
 * that, or with the jail off this process itself, serves loop.sock until
 * SIGTERM or SIGINT. The only place loopd prints: one line per event on
 * stderr, each starting "loopd: ".
 */
#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "loopd/broker_port.h"
#include "loopd/config.h"
#include "loopd/jail_plan.h"
#include "loopd/launcher.h"
#include "loopd/model.h"
#include "loopd/selftest.h"
#include "loopd/serve.h"
#include "proto/acl.h"
#include "proto/defaults.h"
#include "proto/help.h"

#define RUNBOOK_JAIL_OFF	"see docs/runbook.md#jail-off"

/* What the launcher tells the jailed turn loop. */
struct jailed {
	bool	j_in_jail;
	uid_t	j_owner;
};

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

/* The model's key: from its file, or in the jail from the launcher. */
static int
load_key(const struct loop_config *cfg, const struct jailed *j, char **ret,
    struct bx_error *err)
{
	*ret = NULL;
	if (cfg->lc_api_key_file == NULL)
		return 0;
	if (j->j_in_jail)
		return secret_read_fd(&launcher_key, LAUNCHER_KEY_FD, ret,
		    err);
	return secret_load(&launcher_key, cfg->lc_api_key_file, ret, err);
}

static int
make_model(const struct loop_config *cfg, const struct jailed *j,
    struct model_client **ret, struct bx_error *err)
{
	char relay[PATH_MAX];
	char *key;
	int r;

	if (load_key(cfg, j, &key, err) == -1)
		return -1;
	/* The client keeps its own copy, as the header it sends. */
	r = model_client_new(cfg->lc_model_url, cfg->lc_model, key,
	    cfg->lc_timeout_s, cfg->lc_max_tokens, &stop, ret, err);
	secret_free(key);
	if (r == -1 || !j->j_in_jail)
		return r;
	snprintf(relay, sizeof(relay), "%s/%s", cfg->lc_home, JAIL_PLAN_RELAY);
	return model_client_via(*ret, relay, err);
}

/* In the jail, the owner is not loopd's uid: loop.sock's ACL lets it in. */
static int
open_loop_sock(const struct loop_config *cfg, const struct jailed *j,
    int *fd, struct bx_unix_file *made, struct bx_error *err)
{
	if (loop_serve_bind(cfg->lc_loop_socket, fd, made, err) == -1)
		return -1;
	if (!j->j_in_jail || j->j_owner == 0)
		return 0;
	return bx_acl_allow(cfg->lc_loop_socket, j->j_owner, BX_ACL_READ |
	    BX_ACL_WRITE, false, err);
}

static int
serve(const struct loop_config *cfg, const struct jailed *j)
{
	struct model_client *model = NULL;
	struct bport *bp = NULL;
	struct tool_port port;
	struct turn_env env;
	struct bx_peer_rule peers;
	struct bx_unix_file made;
	struct bx_error err;
	sigset_t wait_mask;
	int fd, rc = 1;

	if (make_model(cfg, j, &model, &err) == -1)
		goto fail;
	memset(&env, 0, sizeof(env));
	env.te_home = cfg->lc_home;
	env.te_model = model;
	env.te_max_steps = cfg->lc_max_steps;
	env.te_max_s = cfg->lc_max_turn_s;
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
	/* The owner (the launcher's uid, or loopd's own unjailed) and root. */
	bx_peer_rule_init(&peers, "loop.sock");
	if (bx_peer_rule_add(&peers, j->j_in_jail ? j->j_owner : geteuid(),
	    &err) == -1 ||
	    bx_peer_rule_add(&peers, 0, &err) == -1)
		goto fail;
	setup_signals(&wait_mask);
	if (open_loop_sock(cfg, j, &fd, &made, &err) == -1)
		goto fail;
	fprintf(stderr, "loopd: serving %s (model %s at %s%s%s)\n",
	    cfg->lc_loop_socket, cfg->lc_model, cfg->lc_model_url,
	    cfg->lc_api_key_file != NULL ? ", with the key in [model] "
	    "api_key_file" : "", j->j_in_jail ? ", through the relay" : "");
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

/*
 * `--in-jail` is the launcher's word, not the owner's: a turn loop told it
 * is jailed must be, or the owner's uid would serve loop.sock unjailed.
 */
static int
check_jailed(const struct jailed *j, struct bx_error *err)
{
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 || getuid() == 0 ||
	    getuid() == j->j_owner)
		return bx_fail(err, "--in-jail is for loopd's launcher: this "
		    "process (uid %u) is not in loopd's jail; run `loopd "
		    "serve` and it builds the jail", (unsigned)getuid());
	return 0;
}

/* The configuration file's absolute path, for the jail to bind. */
static int
config_path(const char *given, char ret[PATH_MAX], struct bx_error *err)
{
	char path[BX_PATH_MAX + 1];

	if (given == NULL) {
		if (bx_defaults_config_file("loopd", path, err) == -1)
			return -1;
		given = path;
	}
	if (realpath(given, ret) == NULL)
		return bx_fail(err, "%s: %s", given, strerror(errno));
	return 0;
}

static int
run(const struct loop_config *cfg, const char *given, const struct jailed *j)
{
	char path[PATH_MAX];
	struct bx_error err;
	int rc;

	if (j->j_in_jail && check_jailed(j, &err) == -1)
		goto fail;
	if (!j->j_in_jail && !cfg->lc_jail_off) {
		if (config_path(given, path, &err) == -1)
			goto fail;
		return launcher_run(cfg, path, print_line, NULL);
	}
	if (cfg->lc_jail_off)
		fprintf(stderr, "loopd: [jail] mode is \"off\": the turn loop "
		    "runs as you, and a bug in it is your whole account; "
		    RUNBOOK_JAIL_OFF "\n");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "loopd: libcurl could not start\n");
		return 1;
	}
	rc = serve(cfg, j);
	curl_global_cleanup();
	return rc;
fail:
	fprintf(stderr, "loopd: %s\n", err.msg);
	return 1;
}

/* serve [--config PATH [--in-jail OWNER_UID]]; NULL when not that. */
static bool
parse_args(int argc, char **argv, const char **ret_config, struct jailed *j)
{
	char *end;
	unsigned long owner;

	*ret_config = NULL;
	memset(j, 0, sizeof(*j));
	if (argc < 2 || strcmp(argv[1], "serve") != 0 ||
	    (argc != 2 && argc != 4 && argc != 6))
		return false;
	if (argc >= 4) {
		if (strcmp(argv[2], "--config") != 0)
			return false;
		*ret_config = argv[3];
	}
	if (argc == 6) {
		errno = 0;
		owner = strtoul(argv[5], &end, 10);
		if (strcmp(argv[4], "--in-jail") != 0 || *end != '\0' ||
		    errno != 0 || owner > UINT32_MAX - 1)
			return false;
		j->j_in_jail = true;
		j->j_owner = (uid_t)owner;
	}
	return true;
}

int
main(int argc, char **argv)
{
	struct loop_config *cfg;
	struct jailed jailed;
	const char *given;
	struct bx_error err;
	int rc;

	if (help_asked(argc, argv)) {
		print_usage(stdout);
		return 0;
	}
	if (!parse_args(argc, argv, &given, &jailed))
		return usage();
	umask(077);
	if (loop_config_load(given, &cfg, &err) == -1) {
		fprintf(stderr, "loopd: %s\n", err.msg);
		return 1;
	}
	if (selftest_run(cfg->lc_home, &err) == -1) {
		fprintf(stderr, "loopd: %s\n", err.msg);
		loop_config_free(cfg);
		return 1;
	}
	rc = run(cfg, given, &jailed);
	loop_config_free(cfg);
	if (rc < 0) {
		signal(-rc, SIG_DFL);
		raise(-rc);
		return 1;
	}
	return rc;
}
