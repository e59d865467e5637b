/*
 * bxbridge: the approvals bridge's program (bxbridge(8)). `bxbridge serve
 * [--config PATH]` loads bxbridge.toml and becomes the launcher
 * (launcher.h), which runs the bridge in its jail as `bxbridge serve
 * --config PATH --in-jail OWNER_UID --launcher PID`; that serves
 * (bridge.h) until SIGTERM or SIGINT. `bxbridge check` is launched the same way and, in the jail,
 * runs check.h's calls once and prints what it found. There is no
 * unjailed mode: the bridge parses a server's bytes. The only place
 * bxbridge prints: one line per event on stderr, each starting
 * "bxbridge: "; check's findings on stdout.
 */
#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "bxbridge/bridge.h"
#include "bxbridge/bridge_plan.h"
#include "bxbridge/check.h"
#include "bxbridge/config.h"
#include "bxbridge/launcher.h"
#include "proto/defaults.h"
#include "proto/help.h"

/*
 * The command line: COMMAND [--config PATH [--in-jail OWNER_UID
 * --launcher PID]], the last two the launcher's (launcher.c).
 */
struct args {
	enum bridge_command	 a_cmd;
	const char		*a_config;	/* NULL: the default */
	bool			 a_in_jail;
	uid_t			 a_owner;
	pid_t			 a_launcher;	/* as the host sees it */
};

/* SIGTERM and SIGINT write a byte here; bridge_serve() polls the other end. */
static int stop_pipe[2] = { -1, -1 };

static void
on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	/* A full pipe already asks the stop: its failure needs nothing. */
	while (write(stop_pipe[1], "x", 1) == -1 && errno == EINTR)
		continue;
	errno = saved;
}

static void
print_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "bxbridge: %s\n", line);
}

static void
print_usage(FILE *fp)
{
	bx_help_usage_line(fp, 0, "bxbridge serve [--config PATH]");
	bx_help_usage_line(fp, 1, "bxbridge check [--config PATH]");
	bx_help_usage_line(fp, 2, "bxbridge --version");
	bx_help_usage_line(fp, 3, "bxbridge help [serve | check]");
}

static int
usage(void)
{
	print_usage(stderr);
	return 2;
}

static bool
help_asked(int argc, char **argv)
{
	if (argc < 2)
		return false;
	if (strcmp(argv[1], "help") == 0)
		return argc == 2 || (argc == 3 && (strcmp(argv[2], "serve") ==
		    0 || strcmp(argv[2], "check") == 0));
	return bx_help_asked(argc, argv, 1);
}

static bool
parse_args(int argc, char **argv, struct args *a)
{
	unsigned long owner, launcher;
	char *end;

	memset(a, 0, sizeof(*a));
	if (argc < 2 || (argc != 2 && argc != 4 && argc != 8))
		return false;
	if (strcmp(argv[1], "serve") == 0)
		a->a_cmd = BRIDGE_SERVE;
	else if (strcmp(argv[1], "check") == 0)
		a->a_cmd = BRIDGE_CHECK;
	else
		return false;
	if (argc >= 4) {
		if (strcmp(argv[2], "--config") != 0)
			return false;
		a->a_config = argv[3];
	}
	if (argc == 8) {
		errno = 0;
		owner = strtoul(argv[5], &end, 10);
		if (strcmp(argv[4], "--in-jail") != 0 || *end != '\0' ||
		    errno != 0 || owner > UINT32_MAX - 1)
			return false;
		launcher = strtoul(argv[7], &end, 10);
		if (strcmp(argv[6], "--launcher") != 0 || *end != '\0' ||
		    errno != 0 || launcher == 0 || launcher > INT32_MAX)
			return false;
		a->a_in_jail = true;
		a->a_owner = (uid_t)owner;
		a->a_launcher = (pid_t)launcher;
	}
	return true;
}

/*
 * `--in-jail` is the launcher's word, not the owner's: a bridge told it
 * is jailed must be, or the owner's uid would talk to the server.
 */
static int
check_jailed(const struct args *a, struct bx_error *err)
{
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 || getuid() == 0 ||
	    getuid() == a->a_owner)
		return bx_fail(err, "--in-jail is for bxbridge's launcher: "
		    "this process (uid %u) is not in the bridge's jail; run "
		    "`bxbridge %s` and it builds the jail", (unsigned)getuid(),
		    bridge_command_name(a->a_cmd));
	return 0;
}

/*
 * The home: outside the jail proto/defaults.h's; in it the launcher's,
 * BOXMAKER_HOME (the jail's uid has no HOME to find a default from).
 */
static int
find_home(bool in_jail, char ret[BX_PATH_MAX + 1], struct bx_error *err)
{
	struct bx_defaults d;
	const char *home;

	if (in_jail) {
		home = getenv("BOXMAKER_HOME");
		if (home == NULL || home[0] != '/' || strlen(home) > BX_PATH_MAX)
			return bx_fail(err, "BOXMAKER_HOME, which bxbridge's "
			    "launcher sets in the jail, is missing or wrong");
		snprintf(ret, BX_PATH_MAX + 1, "%s", home);
		return 0;
	}
	if (bx_defaults_get(&d, err) == -1)
		return -1;
	memcpy(ret, d.d_home, sizeof(d.d_home));
	return 0;
}

/* The configuration file's absolute path, for the jail to bind. */
static int
config_path(const char *given, char ret[PATH_MAX], struct bx_error *err)
{
	struct bx_defaults d;
	char path[BX_PATH_MAX + 32];

	if (given == NULL) {
		if (bx_defaults_get(&d, err) == -1)
			return -1;
		snprintf(path, sizeof(path), "%s/bxbridge.toml",
		    d.d_config_dir);
		given = path;
	}
	if (realpath(given, ret) == NULL)
		return bx_fail(err, "%s: %s", given, strerror(errno));
	return 0;
}

static int
serve_in_jail(const struct bridge_config *cfg, const char *token,
    const char *home, pid_t launcher, struct bx_error *err)
{
	char relay[PATH_MAX], state[PATH_MAX];
	struct sigaction sa;
	int rc;

	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) == -1)
		return bx_fail(err, "pipe: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	snprintf(relay, sizeof(relay), "%s/%s", home, BRIDGE_PLAN_RELAY);
	snprintf(state, sizeof(state), "%s/%s", home, BRIDGE_PLAN_STATE_DIR);
	fprintf(stderr, "bxbridge: serving the owner %s at %s through the "
	    "relay; brokerd at %s; state in %s\n", cfg->bc_owner, cfg->bc_url,
	    cfg->bc_broker_socket, state);
	rc = bridge_serve(cfg, token, relay, state, launcher, stop_pipe[0],
	    err);
	if (rc == 0)
		fprintf(stderr, "bxbridge: stopped\n");
	/* The pipe stays open to the exit: a late signal still writes to it. */
	return rc;
}

static int
check_in_jail(const struct bridge_config *cfg, const char *token,
    const char *home, struct bx_error *err)
{
	struct bridge_check_result r;
	char relay[PATH_MAX];

	snprintf(relay, sizeof(relay), "%s/%s", home,
	    BRIDGE_PLAN_CHECK_RELAY);
	if (bridge_check(cfg, token, relay, &r, err) == -1)
		return -1;
	printf("bxbridge check: %s answers\n", cfg->bc_url);
	printf("  token: the bot @%s (user id %s)%s\n", r.bc_bot.username,
	    r.bc_bot.id, r.bc_bot.is_bot ? "" : ", not a bot account");
	printf("  owner: @%s (user id %s)\n", r.bc_owner.username,
	    r.bc_owner.id);
	printf("  direct message channel: %s\n", r.bc_dm);
	printf("  test post: %s made and deleted\n", r.bc_post);
	printf("bxbridge check: ok\n");
	return 0;
}

/* In the jail: the token from the launcher, then the command. */
static int
run_in_jail(const struct args *a, const struct bridge_config *cfg,
    struct bx_error *err)
{
	char home[BX_PATH_MAX + 1];
	char *token = NULL;
	int rc;

	if (check_jailed(a, err) == -1 || find_home(true, home, err) == -1 ||
	    secret_read_fd(&bridge_token, BRIDGE_TOKEN_FD, &token, err) == -1)
		return -1;
	close(BRIDGE_TOKEN_FD);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		secret_free(token);
		return bx_fail(err, "libcurl could not start");
	}
	signal(SIGPIPE, SIG_IGN);
	if (a->a_cmd == BRIDGE_CHECK)
		rc = check_in_jail(cfg, token, home, err);
	else
		rc = serve_in_jail(cfg, token, home, a->a_launcher, err);
	secret_free(token);
	curl_global_cleanup();
	return rc;
}

static int
run(const struct args *a, const struct bridge_config *cfg)
{
	char path[PATH_MAX], home[BX_PATH_MAX + 1];
	struct bx_error err;

	if (a->a_in_jail) {
		if (run_in_jail(a, cfg, &err) == 0)
			return 0;
		fprintf(stderr, "bxbridge: %s%s\n", a->a_cmd == BRIDGE_CHECK ?
		    "check failed: " : "", err.msg);
		return 1;
	}
	if (config_path(a->a_config, path, &err) == -1 ||
	    find_home(false, home, &err) == -1) {
		fprintf(stderr, "bxbridge: %s\n", err.msg);
		return 1;
	}
	return bridge_launch_run(a->a_cmd, cfg, path, home, print_line, NULL);
}

int
main(int argc, char **argv)
{
	struct bridge_config *cfg;
	struct bx_error err;
	struct args a;
	int rc;

	if (help_asked(argc, argv)) {
		print_usage(stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("bxbridge %s\n", BOXMAKER_VERSION);
		return 0;
	}
	if (!parse_args(argc, argv, &a))
		return usage();
	umask(077);
	if (bridge_config_load(a.a_config, &cfg, &err) == -1) {
		fprintf(stderr, "bxbridge: %s\n", err.msg);
		return 1;
	}
	rc = run(&a, cfg);
	bridge_config_free(cfg);
	if (rc < 0) {
		signal(-rc, SIG_DFL);
		raise(-rc);
		return 1;
	}
	return rc;
}
