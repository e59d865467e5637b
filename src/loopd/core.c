/*
 * core.c: clock, find_tool and call_tool. call_tool takes its "arguments"
 * as an object or as a string holding a JSON object (models do both) and
 * sends brokerd the object's compact JSON text either way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "proto/clock.h"
#include "proto/json.h"
#include "proto/types.h"
#include "loopd/core.h"
#include "loopd/tools.h"

static int
set(struct core_call *cc, enum core_kind kind, const char *tool,
    const char *arguments, const char *problem)
{
	cc->cc_kind = kind;
	cc->cc_tool = strdup(tool);
	cc->cc_arguments = strdup(arguments);
	cc->cc_problem = problem == NULL ? NULL : strdup(problem);
	if (cc->cc_tool == NULL || cc->cc_arguments == NULL ||
	    (problem != NULL && cc->cc_problem == NULL)) {
		core_call_clear(cc);
		return -1;
	}
	return 0;
}

void
core_call_clear(struct core_call *cc)
{
	if (cc == NULL)
		return;
	free(cc->cc_tool);
	free(cc->cc_arguments);
	free(cc->cc_problem);
	memset(cc, 0, sizeof(*cc));
}

/* The inner arguments as compact JSON text, or NULL with *ret_problem. */
static char *
inner_arguments(const json_t *value, const char **ret_problem)
{
	json_t *obj = NULL;
	char *text;

	if (value == NULL || json_is_null(value))
		return strdup("{}");
	if (json_is_string(value)) {
		if (bx_json_parse(json_string_value(value),
		    json_string_length(value), &obj, NULL) == -1) {
			*ret_problem = "call_tool: \"arguments\" is a string "
			    "that does not hold a JSON object";
			return NULL;
		}
		value = obj;
	} else if (!json_is_object(value)) {
		*ret_problem = "call_tool: \"arguments\" must be an object "
		    "holding the tool's arguments";
		return NULL;
	}
	text = json_dumps(value, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(obj);
	if (text != NULL && strlen(text) > CORE_ARGS_MAX) {
		free(text);
		*ret_problem = "call_tool: the arguments are too large";
		return NULL;
	}
	if (text == NULL)
		*ret_problem = "call_tool: the arguments cannot be encoded";
	return text;
}

static int
prepare_call_tool(const char *arguments, struct core_call *cc)
{
	static const char *const fields[] = { "name", "arguments", NULL };
	const char *problem = NULL, *name;
	char msg[BX_ERROR_MAX], *inner;
	struct bx_error why;
	json_t *args;
	int r;

	if (bx_json_parse(arguments, strlen(arguments), &args, &why) == -1)
		return set(cc, CORE_BAD, "call_tool", arguments, "call_tool: "
		    "its arguments are not a JSON object");
	if (bx_json_check_fields(args, fields, &why) == -1 ||
	    bx_json_string(args, "name", &name, &why) == -1) {
		snprintf(msg, sizeof(msg), "call_tool: %s; it takes \"name\" "
		    "(a tool find_tool lists) and \"arguments\"", why.msg);
		r = set(cc, CORE_BAD, "call_tool", arguments, msg);
	} else if (tools_find(name) == NULL) {
		snprintf(msg, sizeof(msg), "there is no tool \"%.64s\" to call; "
		    "find_tool lists the tools there are", name);
		r = set(cc, CORE_BAD, "call_tool", arguments, msg);
	} else if ((inner = inner_arguments(json_object_get(args,
	    "arguments"), &problem)) == NULL) {
		r = set(cc, CORE_BAD, "call_tool", arguments, problem);
	} else {
		r = set(cc, CORE_CALL_TOOL, name, inner, NULL);
		free(inner);
	}
	json_decref(args);
	return r;
}

static int
prepare(const char *name, const char *arguments, struct core_call *cc)
{
	char msg[BX_ERROR_MAX];

	if (strcmp(name, "clock") == 0)
		return set(cc, CORE_CLOCK, name, arguments, NULL);
	if (strcmp(name, "find_tool") == 0)
		return set(cc, CORE_FIND_TOOL, name, arguments, NULL);
	if (strcmp(name, "call_tool") == 0)
		return prepare_call_tool(arguments, cc);
	if (tools_find(name) != NULL)
		snprintf(msg, sizeof(msg), "%s is not called directly: use "
		    "call_tool with {\"name\": \"%s\", \"arguments\": {...}}",
		    name, name);
	else
		snprintf(msg, sizeof(msg), "there is no tool \"%.64s\"; the "
		    "tools are clock, find_tool and call_tool (find_tool lists "
		    "the ones call_tool can call)", name);
	return set(cc, CORE_BAD, name, arguments, msg);
}

int
core_prepare(const char *name, const char *arguments, struct core_call *ret)
{
	struct core_call cc;

	memset(&cc, 0, sizeof(cc));
	if (prepare(name, arguments, &cc) == -1)
		return -1;
	*ret = cc;
	return 0;
}

int
core_prepare_invalid(const char *name, const char *raw,
    struct core_call *ret)
{
	struct core_call cc;
	char msg[BX_ERROR_MAX];

	memset(&cc, 0, sizeof(cc));
	snprintf(msg, sizeof(msg), "invalid call, not run: the arguments of "
	    "%.64s must be one JSON object (such as {}), and these are not: "
	    "%.200s", name, raw);
	if (set(&cc, CORE_BAD, name, raw, msg) == -1)
		return -1;
	*ret = cc;
	return 0;
}

static struct bx_msg *
run_clock(void)
{
	char buf[BX_TIME_LEN + 1];

	bx_time_format(bx_clock_wall_ms(), buf);
	return bx_msg_result(buf, BX_CLASS_PUBLIC, false, false);
}

static struct bx_msg *
run_find_tool(const char *arguments)
{
	struct bx_msg *out;
	json_t *args = NULL, *found, *q;
	const char *query = "";
	char *text;

	if (bx_json_parse(arguments, strlen(arguments), &args, NULL) == -1)
		return bx_msg_failed("find_tool: its arguments are not a JSON "
		    "object; it takes {\"query\": \"words\"}");
	q = json_object_get(args, "query");
	if (q != NULL && !json_is_string(q) && !json_is_null(q)) {
		json_decref(args);
		return bx_msg_failed("find_tool: \"query\" must be a string");
	}
	if (json_is_string(q))
		query = json_string_value(q);
	found = tools_match_json(query);
	json_decref(args);
	if (found == NULL)
		return NULL;
	if (json_array_size(found) == 0)
		out = bx_msg_result("No tool matches that query. The tools are "
		    "read_file, write_file, shell and http_fetch.",
		    BX_CLASS_PUBLIC, false, false);
	else if ((text = json_dumps(found, JSON_COMPACT |
	    JSON_PRESERVE_ORDER)) == NULL)
		out = NULL;
	else {
		out = bx_msg_result(text, BX_CLASS_PUBLIC, false, false);
		free(text);
	}
	json_decref(found);
	return out;
}

struct bx_msg *
core_run(const struct core_call *cc, const char *session, const char *call,
    const struct tool_port *port, tool_progress_fn *on_progress, void *arg,
    const atomic_int *cancel, struct bx_error *notice)
{
	struct bx_tool_request req;

	notice->msg[0] = '\0';
	switch (cc->cc_kind) {
	case CORE_CLOCK:
		return run_clock();
	case CORE_FIND_TOOL:
		return run_find_tool(cc->cc_arguments);
	case CORE_BAD:
		return bx_msg_failed(cc->cc_problem);
	case CORE_CALL_TOOL:
		break;
	}
	if (port == NULL)
		return bx_msg_failed(CORE_NO_BROKER);
	req.session = (char *)session;
	req.call = (char *)call;
	req.tool = cc->cc_tool;
	req.arguments = cc->cc_arguments;
	return port->tp_call(port->tp_ctx, &req, on_progress, arg, cancel,
	    notice);
}
