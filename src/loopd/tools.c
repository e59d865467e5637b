/*
 * tools.c: the tool registry. Schemas are JSON text so that the self-test
 * can prove each parses, and so that what the model sees is written here
 * once, in the form it is sent.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "loopd/tools.h"

static const struct tool_def core[] = {
	{ "clock", "The current date and time (UTC).",
	    "{\"type\":\"object\",\"properties\":{},"
	    "\"additionalProperties\":false}" },
	{ "find_tool", "Find the tools that can act for you (files, shell, "
	    "web): give a few words; the answer lists each matching tool "
	    "with its argument schema. Call them with call_tool.",
	    "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":"
	    "\"string\",\"description\":\"words to look for in tool names "
	    "and descriptions; empty lists every tool\"}},"
	    "\"required\":[\"query\"],\"additionalProperties\":false}" },
	{ "call_tool", "Call a tool that find_tool listed. The owner's "
	    "rules decide whether it may run; a denial comes back as the "
	    "result.",
	    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
	    "\"string\",\"description\":\"the tool's name\"},\"arguments\":"
	    "{\"type\":\"object\",\"description\":\"the tool's arguments, as "
	    "its schema says\"}},\"required\":[\"name\",\"arguments\"],"
	    "\"additionalProperties\":false}" },
};

static const struct tool_def discoverable[] = {
	{ "read_file", "Read a text file, given its absolute path.",
	    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
	    "\"string\",\"description\":\"an absolute path, without . or .. "
	    "components\"}},\"required\":[\"path\"],"
	    "\"additionalProperties\":false}" },
	{ "write_file", "Write a text file (replacing it), given its absolute "
	    "path and its whole content.",
	    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
	    "\"string\",\"description\":\"an absolute path, without . or .. "
	    "components\"},\"content\":{\"type\":\"string\",\"description\":"
	    "\"the file's new content\"}},\"required\":[\"path\",\"content\"],"
	    "\"additionalProperties\":false}" },
	{ "shell", "Run a shell command, optionally in a working directory.",
	    "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":"
	    "\"string\",\"description\":\"the command line\"},\"cwd\":{"
	    "\"type\":\"string\",\"description\":\"an absolute path to run "
	    "in\"}},\"required\":[\"command\"],"
	    "\"additionalProperties\":false}" },
	{ "http_fetch", "Fetch a web page or file over HTTPS.",
	    "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":"
	    "\"string\",\"description\":\"an https:// URL\"}},"
	    "\"required\":[\"url\"],\"additionalProperties\":false}" },
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

const struct tool_def *
tools_core(size_t *ret_n)
{
	*ret_n = NELEM(core);
	return core;
}

const struct tool_def *
tools_discoverable(size_t *ret_n)
{
	*ret_n = NELEM(discoverable);
	return discoverable;
}

const struct tool_def *
tools_find(const char *name)
{
	size_t i;

	for (i = 0; i < NELEM(discoverable); i++)
		if (strcmp(discoverable[i].td_name, name) == 0)
			return &discoverable[i];
	return NULL;
}

json_t *
tools_model_json(void)
{
	json_t *out, *schema, *fn;
	size_t i;

	if ((out = json_array()) == NULL)
		return NULL;
	for (i = 0; i < NELEM(core); i++) {
		schema = json_loads(core[i].td_schema, JSON_REJECT_DUPLICATES,
		    NULL);
		fn = json_pack("{s:s, s:{s:s, s:s, s:o}}", "type", "function",
		    "function", "name", core[i].td_name, "description",
		    core[i].td_description, "parameters", schema);
		if (fn == NULL || json_array_append_new(out, fn) == -1) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

/* Whether needle (n bytes) occurs in hay, ignoring case. */
static bool
contains(const char *hay, const char *needle, size_t n)
{
	size_t len = strlen(hay), i;

	for (i = 0; n <= len && i <= len - n; i++)
		if (strncasecmp(hay + i, needle, n) == 0)
			return true;
	return false;
}

static bool
matches(const struct tool_def *t, const char *query)
{
	const char *p = query, *start;
	bool any_word = false;
	size_t n;

	while (*p != '\0' && (size_t)(p - query) < TOOLS_QUERY_MAX) {
		while (*p != '\0' && !isalnum((unsigned char)*p) && *p != '_')
			p++;
		start = p;
		while (*p != '\0' && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		if ((n = (size_t)(p - start)) == 0)
			break;
		any_word = true;
		if (contains(t->td_name, start, n) ||
		    contains(t->td_description, start, n))
			return true;
	}
	return !any_word;
}

json_t *
tools_match_json(const char *query)
{
	json_t *out, *item;
	size_t i;

	if ((out = json_array()) == NULL)
		return NULL;
	for (i = 0; i < NELEM(discoverable); i++) {
		if (!matches(&discoverable[i], query))
			continue;
		item = json_pack("{s:s, s:s, s:o}", "name",
		    discoverable[i].td_name, "description",
		    discoverable[i].td_description, "parameters",
		    json_loads(discoverable[i].td_schema,
		    JSON_REJECT_DUPLICATES, NULL));
		if (item == NULL || json_array_append_new(out, item) == -1) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}
