/*
 * secrets_list.c: `bxctl secrets list`, every secret as brokerd would read
 * it for a call: its name, kind and hosts, the grants that name it (the
 * grant files as brokerd's loader reads them), and its problems, from the
 * same reader. The names are those of the secret files and those the
 * grants name, so a grant naming a secret with no file shows too. The
 * value is never read into anything printed: only the reader's accessors
 * for the name, kind and hosts are used.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/grants.h"
#include "brokerd/secret.h"
#include "bxctl/commands.h"
#include "proto/escape.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/options.h"
#include "bxctl/common/problems.h"
#include "bxctl/common/table.h"
#include "bxctl/secrets/secretdir.h"

static const char secrets_list_help[] =
    "Lists each secret as brokerd would read it for a call: its name,\n"
    "kind and hosts, the grants that name it, and every problem with it\n"
    "as FILE:LINE: PROBLEM (exit status 1 when there is one: a call that\n"
    "needs that secret fails before sending anything). The names are the\n"
    "files in secrets/ beside brokerd.toml and the secrets grants name.\n"
    "Never the value.\n"
    "\n"
    "  --json               one JSON object per secret\n"
    "  --config PATH        brokerd.toml, whose directory holds secrets/\n"
    "                       and which names the grants directory\n"
    "                       (default: brokerd's own default)\n"
    "  --help               this text\n";

enum { C_NAME, C_KIND, C_HOSTS, C_GRANTS, NCOLS };

/* The names to show, sorted, each once. */
struct names {
	char	**n_list;
	size_t	  n_len;
};

static int
names_add(struct names *n, const char *name, size_t len)
{
	char **list, *copy;
	size_t i;

	for (i = 0; i < n->n_len; i++)
		if (strlen(n->n_list[i]) == len &&
		    strncmp(n->n_list[i], name, len) == 0)
			return 0;
	if ((copy = strndup(name, len)) == NULL)
		return -1;
	if ((list = reallocarray(n->n_list, n->n_len + 1,
	    sizeof(*list))) == NULL) {
		free(copy);
		return -1;
	}
	list[n->n_len++] = copy;
	n->n_list = list;
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->n_len; i++)
		free(n->n_list[i]);
	free(n->n_list);
}

/*
 * The stems of the *.toml files in dir (no dot names: bxctl's temporary
 * files), and the secrets the grants name. A directory that cannot be
 * listed adds none: each secret's read says why.
 */
static int
collect(const char *dir, const struct grants *set, struct names *n)
{
	struct dirent *e;
	size_t i, len;
	DIR *d;

	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			len = strlen(e->d_name);
			if (e->d_name[0] == '.' || len <= 5 ||
			    strcmp(e->d_name + len - 5, ".toml") != 0)
				continue;
			if (names_add(n, e->d_name, len - 5) == -1) {
				closedir(d);
				return -1;
			}
		}
		closedir(d);
	}
	for (i = 0; i < set->gs_len; i++)
		if (grant_secret(&set->gs_grants[i]) != NULL &&
		    names_add(n, set->gs_grants[i].g_secret,
		    strlen(set->gs_grants[i].g_secret)) == -1)
			return -1;
	if (n->n_len > 1)
		qsort(n->n_list, n->n_len, sizeof(*n->n_list), by_name);
	return 0;
}

/* The ids of the grants that name name, joined by ", "; a new string. */
static char *
grants_of(const struct grants *set, const char *name)
{
	size_t i, len = 2;
	char *s;

	for (i = 0; i < set->gs_len; i++)
		len += strlen(set->gs_grants[i].g_id) + 2;
	if ((s = malloc(len)) == NULL)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < set->gs_len; i++) {
		if (strcmp(set->gs_grants[i].g_secret, name) != 0)
			continue;
		if (s[0] != '\0')
			strcat(s, ", ");
		strcat(s, set->gs_grants[i].g_id);
	}
	if (s[0] == '\0')
		strcpy(s, "-");
	return s;
}

static char *
hosts_of(const struct secret *s)
{
	size_t i, len = 2;
	char *out;

	for (i = 0; s != NULL && i < secret_nhosts(s); i++)
		len += strlen(secret_host(s, i)) + 2;
	if ((out = malloc(len)) == NULL)
		return NULL;
	strcpy(out, s == NULL ? "-" : "");
	for (i = 0; s != NULL && i < secret_nhosts(s); i++) {
		if (i > 0)
			strcat(out, ", ");
		strcat(out, secret_host(s, i));
	}
	return out;
}

static json_t *
json_problems(const struct problem_list *l)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < l->pl_len; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:s}", "file",
		    l->pl_items[i].p_file, "line", l->pl_items[i].p_line > 0 ?
		    json_integer((json_int_t)l->pl_items[i].p_line) :
		    json_null(), "problem", l->pl_items[i].p_text));
	return a;
}

static void
json_secret(const char *name, const struct secret *s,
    const struct grants *set, const struct problem_list *problems)
{
	json_t *hosts = json_array(), *grants = json_array(), *o;
	size_t i;

	for (i = 0; s != NULL && hosts != NULL && i < secret_nhosts(s); i++)
		json_array_append_new(hosts, json_string(secret_host(s, i)));
	for (i = 0; grants != NULL && i < set->gs_len; i++)
		if (strcmp(set->gs_grants[i].g_secret, name) == 0)
			json_array_append_new(grants,
			    json_string(set->gs_grants[i].g_id));
	o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "type", "secret",
	    "name", name, "kind", s != NULL ?
	    json_string(secret_kind_name(secret_kind(s))) : json_null(),
	    "hosts", hosts, "grants", grants, "problems",
	    json_problems(problems));
	if (o != NULL)
		jsonout_print(stdout, o);
	json_decref(o);
}

static void
row(struct table *t, const struct table_col *cols, const char *name,
    const struct secret *s, const struct grants *set)
{
	char *hosts = hosts_of(s), *grants = grants_of(set, name);

	table_cell(t, name, cols[C_NAME].width, NULL);
	if (s != NULL)
		table_cell(t, secret_kind_name(secret_kind(s)),
		    cols[C_KIND].width, NULL);
	else
		table_cell(t, "unusable", cols[C_KIND].width, TABLE_RED);
	table_cell(t, hosts != NULL ? hosts : "?", cols[C_HOSTS].width, NULL);
	table_cell(t, grants != NULL ? grants : "?", 0, NULL);
	table_end(t);
	free(hosts);
	free(grants);
}

/*
 * Each name read as brokerd reads it, a row or an object each; the
 * problems gathered in all. Returns the number of unusable secrets, or
 * -1 when memory ran out.
 */
static int
show(const char *config_dir, const struct names *n, const struct grants *set,
    bool json, struct problem_list *all)
{
	struct table_col cols[NCOLS] = {
		{ "NAME", 16, 6, 2, 0 }, { "KIND", 8, 6, 3, 0 },
		{ "HOSTS", 30, 10, 1, 0 }, { "GRANTS", 6, 6, 9, 0 },
	};
	struct problem_list mine = { NULL, 0 };
	struct secret_sink sink = { problems_add, &mine };
	struct secret *s;
	struct bx_error err;
	struct table t;
	size_t i;
	int unusable = 0;

	table_open(&t, stdout);
	table_layout(&t, cols, NCOLS);
	if (!json && n->n_len > 0)
		table_header(&t, cols, NCOLS);
	for (i = 0; i < n->n_len; i++) {
		s = NULL;
		if (secret_read(config_dir, n->n_list[i], &sink, &s,
		    &err) == -1)
			return -1;
		if (s == NULL)
			unusable++;
		if (json)
			json_secret(n->n_list[i], s, set, &mine);
		else
			row(&t, cols, n->n_list[i], s, set);
		secret_free(s);
		if (problems_add_all(all, &mine) == -1) {
			problems_clear(&mine);
			return -1;
		}
		problems_clear(&mine);
	}
	return unusable;
}

static int
list(const char *config_dir, const char *grants_dir, bool json)
{
	struct problem_list all = { NULL, 0 };
	struct names n = { NULL, 0 };
	struct grants *set = NULL;
	struct bx_error err;
	char dir[4096];
	int unusable, status = CLI_FAIL;

	if (secretdir_path(config_dir, dir, sizeof(dir), &err) == -1)
		return cli_fail("%s", err.msg);
	if (grants_load(grants_dir, &set, &err) == -1)
		return cli_fail("%s", err.msg);
	if (collect(dir, set, &n) == -1) {
		status = cli_fail("out of memory");
		goto out;
	}
	if (!json && n.n_len == 0)
		printf("secrets: none (bxctl secrets add writes one)\n");
	if ((unusable = show(config_dir, &n, set, json, &all)) == -1) {
		status = cli_fail("out of memory");
		goto out;
	}
	if (!json)
		problems_print(stdout, &all, "problem: ");
	if (!json && unusable > 0)
		printf("secrets: %d cannot be used, so a call that needs one "
		    "fails before sending anything\n", unusable);
	status = unusable == 0 ? CLI_OK : CLI_FAIL;
out:
	problems_clear(&all);
	names_free(&n);
	grants_free(set);
	return status;
}

/* 0, or -1 with *ret_status the exit status (help, or a usage error). */
static int
parse(const struct cli_command *cmd, int argc, char **argv,
    const char **ret_config, bool *ret_json, int *ret_status)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			*ret_json = true;
			break;
		case 'c':
			*ret_config = optarg;
			break;
		case 'h':
			*ret_status = cli_help(cmd, secrets_list_help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	*ret_status = options_operands(cmd, argc, argv, 0, "");
	return *ret_status == CLI_OK ? 0 : -1;
}

int
cmd_secrets_list(const struct cli_command *cmd, int argc, char **argv)
{
	const char *config = NULL;
	char *config_dir, *grants_dir;
	bool json = false;
	int status;

	if (parse(cmd, argc, argv, &config, &json, &status) == -1)
		return status;
	if ((status = options_config_dirs(config, &config_dir,
	    &grants_dir)) != CLI_OK)
		return status;
	status = list(config_dir, grants_dir, json);
	free(config_dir);
	free(grants_dir);
	return status;
}
