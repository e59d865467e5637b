/*
 * secrets_add.c: `bxctl secrets add NAME`, a secret file written for the
 * owner (secretwrite.h) with the value typed at the terminal with echo
 * off, or read from standard input (secretvalue.h). Everything but the
 * value is judged by brokerd's reader before the value is asked for, and
 * the whole file again before it is put in place; nothing is written on
 * any problem, an existing secret is replaced only with --replace, and
 * the value is never printed and is wiped from memory once written.
 */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/secret.h"
#include "bxctl/commands.h"
#include "bxctl/common/options.h"
#include "bxctl/common/problems.h"
#include "bxctl/secrets/secretdir.h"
#include "bxctl/secrets/secretvalue.h"
#include "bxctl/secrets/secretwrite.h"
#include "proto/wipe.h"

/* Stands for the value while the rest is judged: valid, and not it. */
#define PLACEHOLDER	"placeholder-value"

static const char secrets_add_help[] =
    "Writes the secret NAME, secrets/NAME.toml beside brokerd.toml\n"
    "(boxmaker-secret(5)), mode 0600 in a directory of mode 0700, which\n"
    "it makes. The value is typed at the terminal, which does not show\n"
    "it, or read from standard input when that is not a terminal (one\n"
    "trailing newline is not part of it). It is never printed. brokerd's\n"
    "own reader judges the file first: what brokerd would refuse is\n"
    "refused in its words, and nothing is written.\n"
    "\n"
    "  --host HOST          an exact host name the secret is sent to;\n"
    "                       again for more (at least one)\n"
    "  --bearer             send Authorization: Bearer VALUE\n"
    "  --header NAME        send NAME: VALUE\n"
    "  --basic USER         send Authorization: Basic base64(USER:VALUE)\n"
    "  --replace            replace the secret if it exists (to rotate)\n"
    "  --config PATH        brokerd.toml, whose directory holds secrets/\n"
    "                       (default: brokerd's own default)\n"
    "  --help               this text\n";

struct add_opts {
	const char	*ao_name;
	const char	**ao_hosts;
	size_t		 ao_nhosts;
	const char	*ao_kind;
	const char	*ao_header;
	const char	*ao_user;
	const char	*ao_config;
	bool		 ao_replace;
	int		 ao_nkinds;	/* how many of the three were given */
};

/* 0, or -1 with *ret_status the exit status (help, or a usage error). */
static int
parse(const struct cli_command *cmd, int argc, char **argv,
    struct add_opts *o, int *ret_status)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "bearer", no_argument, NULL, 'b' },
		{ "header", required_argument, NULL, 'x' },
		{ "basic", required_argument, NULL, 'u' },
		{ "replace", no_argument, NULL, 'r' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'H':
			o->ao_hosts[o->ao_nhosts++] = optarg;
			break;
		case 'b':
			o->ao_kind = "bearer";
			o->ao_nkinds++;
			break;
		case 'x':
			o->ao_kind = "header";
			o->ao_header = optarg;
			o->ao_nkinds++;
			break;
		case 'u':
			o->ao_kind = "basic";
			o->ao_user = optarg;
			o->ao_nkinds++;
			break;
		case 'r':
			o->ao_replace = true;
			break;
		case 'c':
			o->ao_config = optarg;
			break;
		case 'h':
			*ret_status = cli_help(cmd, secrets_add_help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	if ((*ret_status = options_operands(cmd, argc, argv, 1, "NAME")) !=
	    CLI_OK)
		return -1;
	o->ao_name = argv[optind];
	if (o->ao_nkinds != 1) {
		*ret_status = cli_usage_error(cmd, "give one of --bearer, "
		    "--header NAME and --basic USER");
		return -1;
	}
	if (o->ao_nhosts == 0) {
		*ret_status = cli_usage_error(cmd, "missing --host HOST");
		return -1;
	}
	return 0;
}

/*
 * The file's text with value, judged by brokerd's reader; its problems
 * printed. 0, or CLI_FAIL.
 */
static int
build(const struct add_opts *o, const char *dir, const char *value,
    char *text, size_t *ret_len)
{
	struct secret_fields sf = { o->ao_name, o->ao_kind,
	    o->ao_hosts, o->ao_nhosts, o->ao_header, o->ao_user, value };
	struct problem_list problems = { NULL, 0 };
	struct secret_sink sink = { problems_add, &problems };
	struct bx_error err;
	int rc;

	if (secretwrite_text(&sf, text, ret_len, &err) == -1)
		return cli_fail("%s", err.msg);
	rc = secretwrite_judge(dir, o->ao_name, text, *ret_len, &sink, &err);
	if (rc == -1) {
		problems_clear(&problems);
		return cli_fail("%s", err.msg);
	}
	if (rc == 1)
		problems_refused(&problems, "secrets add", "secret");
	problems_clear(&problems);
	return rc == 0 ? CLI_OK : CLI_FAIL;
}

/* Whether <dir>/<name>.toml is there already; said when it may not be. */
static int
check_free(const struct add_opts *o, const char *dir, bool *ret_exists)
{
	char file[4096];
	struct stat st;

	snprintf(file, sizeof(file), "%s/%s.toml", dir, o->ao_name);
	if (lstat(file, &st) == -1) {
		if (errno != ENOENT)
			return cli_fail("%s: %s", file, strerror(errno));
		*ret_exists = false;
		return CLI_OK;
	}
	*ret_exists = true;
	if (!o->ao_replace)
		return cli_fail("the secret %s exists (%s); `bxctl secrets add "
		    "--replace` replaces it, and nothing was written",
		    o->ao_name, file);
	return CLI_OK;
}

static int
add(const struct add_opts *o, const char *config_dir)
{
	char dir[4096], prompt[200], *text, *value;
	struct bx_error err;
	size_t len, value_len;
	bool existed;
	int status;

	if (secretdir_path(config_dir, dir, sizeof(dir), &err) == -1)
		return cli_fail("%s", err.msg);
	/* All but the value first: no value asked for in vain. */
	if ((text = calloc(1, SECRETWRITE_MAX)) == NULL ||
	    (value = calloc(1, SECRETVALUE_BUF)) == NULL) {
		free(text);
		return cli_fail("out of memory");
	}
	if ((status = build(o, dir, PLACEHOLDER, text, &len)) != CLI_OK ||
	    (status = check_free(o, dir, &existed)) != CLI_OK)
		goto out;
	if (secretdir_make(config_dir, &err) == -1) {
		status = cli_fail("%s", err.msg);
		goto out;
	}
	snprintf(prompt, sizeof(prompt), "The value of the secret %s (it is "
	    "not shown as you type): ", o->ao_name);
	if (secretvalue_read(prompt, value, &value_len, &err) == -1) {
		status = cli_fail("%s", err.msg);
		goto out;
	}
	if ((status = build(o, dir, value, text, &len)) != CLI_OK)
		goto out;
	if (secretwrite_put(dir, o->ao_name, text, len, o->ao_replace,
	    &err) == -1) {
		status = cli_fail("%s", err.msg);
		goto out;
	}
	problems_written(stdout, existed ? "replaced secret" : "added secret",
	    o->ao_name, dir);
out:
	bx_wipe_free(value, SECRETVALUE_BUF);
	bx_wipe_free(text, SECRETWRITE_MAX);
	return status;
}

int
cmd_secrets_add(const struct cli_command *cmd, int argc, char **argv)
{
	struct add_opts o;
	char *config_dir = NULL, *grants_dir = NULL;
	int status;

	memset(&o, 0, sizeof(o));
	/* Each --host takes two words at least. */
	if ((o.ao_hosts = calloc((size_t)argc, sizeof(*o.ao_hosts))) == NULL)
		return cli_fail("out of memory");
	if (parse(cmd, argc, argv, &o, &status) == 0 &&
	    (status = options_config_dirs(o.ao_config, &config_dir,
	    &grants_dir)) == CLI_OK)
		status = add(&o, config_dir);
	free(config_dir);
	free(grants_dir);
	free(o.ao_hosts);
	return status;
}
