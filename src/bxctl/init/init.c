/*
 * init.c: `bxctl init`, the owner's first run. It writes brokerd.toml and
 * loopd.toml into the default configuration directory (proto/defaults.h)
 * with every path written out for this user, makes the home and its
 * grants directory (empty: nothing runs until the owner writes a grant)
 * with a commented example grant beside it, and the secrets directory
 * beside the files (empty, mode 0700), writes a commented bxbridge.toml
 * for the optional Mattermost bridge unless there is one, checks the machine for what
 * the runtime needs (machine.h) and ends with the commands that start
 * everything. The files' text is init_text.c's.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/secret.h"
#include "bxctl/commands.h"
#include "bxctl/common/options.h"
#include "bxctl/init/init.h"
#include "bxctl/init/machine.h"
#include "bxctl/secrets/secretdir.h"
#include "proto/defaults.h"
#include "proto/writefile.h"

static const char init_help[] =
    "Writes brokerd.toml and loopd.toml for you, makes your Boxmaker home\n"
    "with an empty grants directory, and checks this machine for what the\n"
    "runtime needs. As root: /etc/boxmaker and /var/lib/boxmaker; as anyone\n"
    "else: ~/.config/boxmaker and ~/.local/share/boxmaker (XDG_CONFIG_HOME\n"
    "and XDG_DATA_HOME are followed; BOXMAKER_HOME names another home).\n"
    "Beside them, a commented bxbridge.toml for the optional Mattermost\n"
    "bridge, unless there is one (never overwritten, even with --force).\n"
    "Exit status 0 when the files were written, warnings or not.\n"
    "\n"
    "  --runtime podman|bwrap  how tool calls run (default podman)\n"
    "  --force                 overwrite brokerd.toml and loopd.toml\n"
    "  --help                  this text\n";

struct init_options {
	enum machine_runtime	 io_runtime;
	bool			 io_force;
};

/* 0, or -1 with *ret_status the exit status (help, or a usage error). */
static int
parse(const struct cli_command *cmd, int argc, char **argv,
    struct init_options *o, int *ret_status)
{
	static const struct option longopts[] = {
		{ "runtime", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	o->io_runtime = MACHINE_PODMAN;
	o->io_force = false;
	/* The loop reads it after each option, and a good one sets none. */
	*ret_status = CLI_OK;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h')
			*ret_status = cli_help(cmd, init_help);
		else if (ch == 'f')
			o->io_force = true;
		else if (ch == 'r' && strcmp(optarg, "podman") == 0)
			o->io_runtime = MACHINE_PODMAN;
		else if (ch == 'r' && strcmp(optarg, "bwrap") == 0)
			o->io_runtime = MACHINE_BWRAP;
		else if (ch == 'r')
			*ret_status = cli_usage_error(cmd, "--runtime is podman "
			    "or bwrap, not '%s'", optarg);
		else
			*ret_status = cli_option_error(cmd, ch, argv);
		if (ch == 'h' || *ret_status != CLI_OK)
			return -1;
	}
	*ret_status = options_operands(cmd, argc, argv, 0, "");
	return *ret_status == CLI_OK ? 0 : -1;
}

/* Makes dir and its missing parents, each mode 0700. */
static int
make_dirs(const char *dir)
{
	char path[BX_PATH_MAX + 1], *slash;
	struct bx_error err;

	snprintf(path, sizeof(path), "%s", dir);
	for (slash = strchr(path + 1, '/'); ; slash = strchr(slash + 1, '/')) {
		if (slash != NULL)
			*slash = '\0';
		if (bx_mkdir_private(path, &err) == -1)
			return cli_fail("%s", err.msg);
		if (slash == NULL)
			break;
		*slash = '/';
	}
	return CLI_OK;
}

/* Writes text to a new file at path, mode 0600, and syncs it. */
static int
write_new(const char *path, const char *text)
{
	int fd, rc = CLI_OK;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1)
		return cli_fail("cannot create %s: %s", path, strerror(errno));
	if (bx_write_all(fd, text, strlen(text)) == -1 || fsync(fd) == -1)
		rc = cli_fail("cannot write %s: %s", path, strerror(errno));
	if (close(fd) == -1 && rc == CLI_OK)
		rc = cli_fail("cannot write %s: %s", path, strerror(errno));
	if (rc != CLI_OK)
		(void)unlink(path);
	return rc;
}

/* Syncs the directory that holds path, so its new name survives a crash. */
static int
sync_parent(const char *path)
{
	char dir[BX_PATH_MAX + 1];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		return bx_fsync_dir(".");
	slash[slash == dir ? 1 : 0] = '\0';
	return bx_fsync_dir(dir);
}

/*
 * Writes text to path through a temporary name: renamed over an old file
 * with --force, else linked, which fails rather than replace one that
 * appeared since the check.
 */
static int
write_file(const char *path, const char *text, bool force)
{
	char tmp[BX_PATH_MAX + 16];
	int rc = CLI_FAIL;

	snprintf(tmp, sizeof(tmp), "%s.init-tmp", path);
	(void)unlink(tmp);	/* left by an init that was killed */
	if (write_new(tmp, text) != CLI_OK)
		return CLI_FAIL;
	if ((force ? rename(tmp, path) : link(tmp, path)) == -1)
		cli_fail("cannot write %s: %s", path, strerror(errno));
	else
		rc = CLI_OK;
	(void)unlink(tmp);
	if (rc == CLI_OK && sync_parent(path) == -1)
		rc = cli_fail("cannot sync the directory of %s: %s", path,
		    strerror(errno));
	return rc;
}

/* Without --force, a file already there stops init before it writes. */
static int
check_free(const struct bx_defaults *d, bool force)
{
	const char *paths[] = { d->d_brokerd_config, d->d_loopd_config };
	size_t i;

	for (i = 0; i < 2 && !force; i++) {
		if (access(paths[i], F_OK) == 0)
			return cli_fail("%s exists; `bxctl init --force` "
			    "overwrites it", paths[i]);
		if (errno != ENOENT)
			return cli_fail("cannot look at %s: %s", paths[i],
			    strerror(errno));
	}
	return CLI_OK;
}

/*
 * The configuration directory and the secrets directory in it, mode 0700,
 * as brokerd's secret reader demands (an existing one of another mode or
 * owner is named and refused).
 */
static int
make_config_dirs(const struct bx_defaults *d)
{
	struct bx_error err;

	if (make_dirs(d->d_config_dir) != CLI_OK)
		return CLI_FAIL;
	if (secretdir_make(d->d_config_dir, &err) == -1)
		return cli_fail("%s", err.msg);
	return CLI_OK;
}

static int
write_configs(const struct bx_defaults *d, const struct init_text *t,
    bool force)
{
	if (make_config_dirs(d) != CLI_OK ||
	    write_file(d->d_brokerd_config, t->it_brokerd, force) != CLI_OK ||
	    write_file(d->d_loopd_config, t->it_loopd, force) != CLI_OK)
		return CLI_FAIL;
	printf("wrote %s\nwrote %s\n", d->d_brokerd_config,
	    d->d_loopd_config);
	printf("made %s/" SECRET_DIR ": no secret yet (bxctl secrets add; "
	    "boxmaker-secret(5))\n", d->d_config_dir);
	return CLI_OK;
}

/*
 * bxbridge.toml beside brokerd.toml, unless there is one: it may hold the
 * owner's set-up bridge, so even --force keeps it.
 */
static int
write_bxbridge(const struct bx_defaults *d, const struct init_text *t)
{
	char path[BX_PATH_MAX + 1];

	if (snprintf(path, sizeof(path), "%s/bxbridge.toml",
	    d->d_config_dir) >= (int)sizeof(path))
		return cli_fail("the configuration directory %s is too long "
		    "for bxbridge.toml", d->d_config_dir);
	if (access(path, F_OK) == 0) {
		printf("kept %s (the Mattermost bridge's; never "
		    "overwritten)\n", path);
		return CLI_OK;
	}
	if (errno != ENOENT)
		return cli_fail("cannot look at %s: %s", path,
		    strerror(errno));
	if (write_file(path, t->it_bxbridge, false) != CLI_OK)
		return CLI_FAIL;
	printf("wrote %s: the optional Mattermost bridge, not set up\n"
	    "    (docs/runbook.md#bridge-not-set-up; bxbridge(8))\n", path);
	return CLI_OK;
}

/* The home, its empty grants directory and the example beside it. */
static int
make_home(const struct init_text *t)
{
	if (make_dirs(t->it_grants) != CLI_OK)
		return CLI_FAIL;
	if (access(t->it_example_path, F_OK) == -1 &&
	    write_file(t->it_example_path, t->it_example, false) != CLI_OK)
		return CLI_FAIL;
	printf("made %s: no grant yet, so no tool runs until you write one\n"
	    "    (an example: %s; boxmaker-grant(5))\n", t->it_grants,
	    t->it_example_path);
	return CLI_OK;
}

static void
report_machine(enum machine_runtime runtime, const char *user)
{
	struct machine_check checks[MACHINE_CHECKS_MAX];
	struct machine_view v = { "/", geteuid(), user, getenv("PATH") };
	size_t i, n;

	n = machine_check(&v, runtime, checks);
	printf("\nthis machine, for %s as %s:\n", runtime == MACHINE_PODMAN ?
	    "podman" : "bwrap", user);
	for (i = 0; i < n; i++) {
		printf("  %-7s %s\n", checks[i].mc_ok ? "ok" : "missing",
		    checks[i].mc_what);
		if (!checks[i].mc_ok)
			printf("          fix: %s\n", checks[i].mc_fix);
	}
}

static void
report_start(void)
{
	if (geteuid() == 0) {
		printf("\nstart everything as root (on cgroup v2, from a "
		    "service with Delegate=yes):\n"
		    "  brokerd serve\n  loopd serve\n");
		return;
	}
	printf("\nstart everything (the units come with make install):\n"
	    "  systemctl --user daemon-reload\n"
	    "  systemctl --user enable --now brokerd loopd\n"
	    "then write a grant and talk: bxctl chat\n"
	    "approvals in Mattermost (optional), once bxbridge.toml is "
	    "filled in and\n`bxbridge check` passes: systemctl --user "
	    "enable --now bxbridge\n");
}

int
cmd_init(const struct cli_command *cmd, int argc, char **argv)
{
	struct init_options o;
	struct bx_defaults d;
	struct init_text t;
	struct bx_error err;
	struct passwd *pw;
	const char *user_dir;
	int status;

	if (parse(cmd, argc, argv, &o, &status) == -1)
		return status;
	if (bx_defaults_get(&d, &err) == -1)
		return cli_fail("%s", err.msg);
	pw = getpwuid(geteuid());
	if ((user_dir = getenv("HOME")) == NULL || user_dir[0] != '/')
		user_dir = pw != NULL ? pw->pw_dir : NULL;
	if (init_text_make(&d, o.io_runtime == MACHINE_PODMAN ? "podman" :
	    "bwrap", user_dir, &t, &err) == -1)
		return cli_fail("%s", err.msg);
	/* The home first: no configuration is written for a home not made. */
	if ((status = check_free(&d, o.io_force)) == CLI_OK &&
	    (status = make_home(&t)) == CLI_OK &&
	    (status = write_configs(&d, &t, o.io_force)) == CLI_OK &&
	    (status = write_bxbridge(&d, &t)) == CLI_OK) {
		report_machine(o.io_runtime, pw != NULL ? pw->pw_name : "you");
		report_start();
	}
	init_text_clear(&t);
	return status;
}
