/*
 * tools.h: the registry of tools the model can use. The core tools
 * (clock, find_tool, call_tool) are always in the model's request; the
 * discoverable ones (read_file, write_file, shell, http_fetch, with the
 * argument schemas of design section 3) are found with find_tool and
 * called through call_tool, which sends them to brokerd.
 *
 * Everything here is static: nothing to free, except the JSON values the
 * tools_*_json() functions return (new references, json_decref them).
 */
#ifndef LOOPD_TOOLS_H
#define LOOPD_TOOLS_H

#include <stddef.h>

#include <jansson.h>

/* A find_tool query longer than this is cut. */
#define TOOLS_QUERY_MAX	512

struct tool_def {
	const char	*td_name;
	const char	*td_description;
	const char	*td_schema;	/* JSON Schema text of the arguments */
};

const struct tool_def	*tools_core(size_t *ret_n);
const struct tool_def	*tools_discoverable(size_t *ret_n);
/* A discoverable tool by name, or NULL. */
const struct tool_def	*tools_find(const char *name);

/*
 * The "tools" array of a model request: the core tools as function
 * schemas. NULL if a schema does not parse (the self-test checks first).
 */
json_t	*tools_model_json(void);

/*
 * The discoverable tools whose name or description contains a word of
 * query (case-insensitive; an empty query matches all), each as
 * {name, description, parameters}. NULL only when memory runs out.
 */
json_t	*tools_match_json(const char *query);

#endif
