/*
 * args.c: strict parsing of tool arguments and the form checks of design
 * section 3 ("Paths", "Hosts", the URL rule). Everything here is pure: no
 * files, no clock, no network.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "brokerd/args.h"
#include "proto/hostname.h"
#include "proto/json.h"

/* The fields each tool takes; a field not listed is refused. */
struct field {
	const char	*f_name;
	bool		 f_optional;
	size_t		 f_offset;	/* of its char * in struct tool_args */
};

#define FIELD(name, opt, member) \
	{ name, opt, offsetof(struct tool_args, member) }

static const struct field read_file_fields[] = {
	FIELD("path", false, ta_path),
	{ NULL, false, 0 },
};
static const struct field write_file_fields[] = {
	FIELD("path", false, ta_path),
	FIELD("content", false, ta_content),
	{ NULL, false, 0 },
};
static const struct field shell_fields[] = {
	FIELD("command", false, ta_command),
	FIELD("cwd", true, ta_cwd),
	{ NULL, false, 0 },
};
static const struct field http_fetch_fields[] = {
	FIELD("url", false, ta_url),
	{ NULL, false, 0 },
};

static const struct field *tool_fields[BX_TOOL_MAX] = {
	read_file_fields, write_file_fields, shell_fields, http_fetch_fields,
};

static char **
slot(struct tool_args *a, const struct field *f)
{
	return (char **)(void *)((char *)a + f->f_offset);
}

void
args_free(struct tool_args *a)
{
	if (a == NULL)
		return;
	free(a->ta_path);
	free(a->ta_content);
	free(a->ta_command);
	free(a->ta_cwd);
	free(a->ta_url);
	free(a->ta_host);
	free(a);
}

static const struct field *
find_field(const struct field *fields, const char *name)
{
	for (; fields->f_name != NULL; fields++)
		if (strcmp(fields->f_name, name) == 0)
			return fields;
	return NULL;
}

/*
 * Copies each key of obj into a: only the tool's fields, each a string
 * (or null where optional), and then none of the required ones missing.
 */
static int
take_fields(json_t *obj, const struct field *fields, struct tool_args *a,
    struct bx_error *err)
{
	const struct field *f;
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		if ((f = find_field(fields, key)) == NULL)
			return bx_fail(err, "unknown field \"%s\"", key);
		if (f->f_optional && json_is_null(v))
			continue;
		if (!json_is_string(v))
			return bx_fail(err, "field \"%s\" must be a string",
			    f->f_name);
		/* No field can carry a NUL: each is kept as a C string. */
		if (strlen(json_string_value(v)) != json_string_length(v))
			return bx_fail(err, "field \"%s\" contains a NUL byte",
			    f->f_name);
		if ((*slot(a, f) = strdup(json_string_value(v))) == NULL)
			return bx_fail(err, "out of memory");
	}
	for (f = fields; f->f_name != NULL; f++)
		if (!f->f_optional && *slot(a, f) == NULL)
			return bx_fail(err, "missing field \"%s\"", f->f_name);
	return 0;
}

/* The form checks of the fields that have a form. */
static int
check_forms(struct tool_args *a, struct bx_error *err)
{
	if (a->ta_path != NULL &&
	    bx_path_check(a->ta_path, strlen(a->ta_path), err) == -1)
		return bx_error_prefix(err, "field \"path\"");
	if (a->ta_cwd != NULL &&
	    bx_path_check(a->ta_cwd, strlen(a->ta_cwd), err) == -1)
		return bx_error_prefix(err, "field \"cwd\"");
	if (a->ta_url != NULL && args_url_check(a->ta_url,
	    strlen(a->ta_url), &a->ta_host, err) == -1)
		return bx_error_prefix(err, "field \"url\"");
	return 0;
}

int
args_parse(enum bx_tool tool, const char *text, size_t len,
    struct tool_args **ret, struct bx_error *err)
{
	struct tool_args *a = NULL;
	json_error_t jerr;
	json_t *obj = NULL;
	int rc = -1;

	if (tool >= BX_TOOL_MAX)
		return bx_fail(err, "no such tool");
	if (len > ARGS_TEXT_MAX)
		return bx_fail(err, "arguments are longer than %d bytes",
		    ARGS_TEXT_MAX);
	/* Like every JSON a peer sends (proto/json.h), before jansson sees it. */
	if (bx_json_depth_check(text, len, BX_JSON_MAX_DEPTH, err) == -1)
		return bx_error_prefix(err, "arguments");
	/* NUL is let through the decoder so that the refusal can name it. */
	obj = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
	    &jerr);
	if (obj == NULL) {
		bx_fail(err, "arguments are not valid JSON: %s, at byte %d",
		    jerr.text, jerr.position);
		goto out;
	}
	if (!json_is_object(obj)) {
		bx_fail(err, "arguments must be a JSON object");
		goto out;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		bx_fail(err, "out of memory");
		goto out;
	}
	a->ta_tool = tool;
	if (take_fields(obj, tool_fields[tool], a, err) == -1 ||
	    check_forms(a, err) == -1)
		goto out;
	*ret = a;
	a = NULL;
	rc = 0;
out:
	args_free(a);
	json_decref(obj);
	return rc;
}

/* The rest of a URL after its authority: "" or "/" then printable ASCII. */
static int
check_url_tail(const char *s, size_t len, struct bx_error *err)
{
	size_t i;

	if (len == 0)
		return 0;
	if (s[0] != '/')
		return bx_fail(err, "the host must be followed by nothing, "
		    ":443 or / (a query or fragment comes after the /)");
	for (i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return bx_fail(err, "the path, query and fragment "
			    "are printable ASCII without spaces");
	return 0;
}

int
args_url_check(const char *s, size_t len, char **ret_host,
    struct bx_error *err)
{
	static const char scheme[] = "https://";
	size_t hlen, alen, slen = sizeof(scheme) - 1;
	const char *auth, *colon;
	char *host;

	if (len > ARGS_URL_MAX)
		return bx_fail(err, "longer than %d bytes", ARGS_URL_MAX);
	if (len < slen || memcmp(s, scheme, slen) != 0)
		return bx_fail(err, "must start with https://");
	/* The authority ends where RFC 3986 ends it: at /, ? or #. */
	auth = s + slen;
	for (alen = 0; slen + alen < len && auth[alen] != '/' &&
	    auth[alen] != '?' && auth[alen] != '#'; alen++)
		;
	if (memchr(auth, '@', alen) != NULL)
		return bx_fail(err, "has userinfo (@ before the path)");
	if (alen > 0 && auth[0] == '[')
		return bx_fail(err, "an IP literal is not a host name");
	colon = memchr(auth, ':', alen);
	hlen = colon != NULL ? (size_t)(colon - auth) : alen;
	if (colon != NULL &&
	    (alen - hlen != 4 || memcmp(colon, ":443", 4) != 0))
		return bx_fail(err, "the only port allowed is 443");
	if (bx_host_check(auth, hlen, err) == -1)
		return bx_error_prefix(err, "host");
	if (check_url_tail(auth + alen, len - slen - alen, err) == -1)
		return -1;
	if ((host = strndup(auth, hlen)) == NULL)
		return bx_fail(err, "out of memory");
	*ret_host = host;
	return 0;
}

bool
args_path_inside(const char *grant_path, const char *path)
{
	size_t glen = strlen(grant_path);

	if (strcmp(grant_path, "/") == 0)
		return true;
	if (strncmp(grant_path, path, glen) != 0)
		return false;
	return path[glen] == '\0' || path[glen] == '/';
}

/* The longest of paths containing want, or NULL; write_file skips want. */
static const char *
longest_inside(enum bx_tool tool, char *const *paths, size_t npaths,
    const char *want)
{
	const char *best = NULL;
	size_t i;

	for (i = 0; i < npaths; i++) {
		if (!args_path_inside(paths[i], want))
			continue;
		/* write_file may write below a grant path, not onto it. */
		if (tool == BX_TOOL_WRITE_FILE && strcmp(paths[i], want) == 0)
			continue;
		if (best == NULL || strlen(paths[i]) > strlen(best))
			best = paths[i];
	}
	return best;
}

bool
args_covered(const struct tool_args *a, char *const *paths, size_t npaths,
    char *const *hosts, size_t nhosts, const char **ret_path)
{
	size_t i;

	*ret_path = NULL;
	switch (a->ta_tool) {
	case BX_TOOL_HTTP_FETCH:
		for (i = 0; i < nhosts; i++)
			if (bx_host_matches(hosts[i], a->ta_host))
				return true;
		return false;
	case BX_TOOL_SHELL:
		if (npaths == 0)
			return a->ta_cwd == NULL;
		if (a->ta_cwd == NULL)
			return false;
		*ret_path = longest_inside(a->ta_tool, paths, npaths,
		    a->ta_cwd);
		break;
	default:
		*ret_path = longest_inside(a->ta_tool, paths, npaths,
		    a->ta_path);
		break;
	}
	return *ret_path != NULL;
}
