/*
 * args-fuzzer.c: libFuzzer harness for the tool argument parser (args.c)
 * and the coverage rules. The first byte picks the tool, the rest is the
 * model's JSON text. Parsed arguments must keep every form rule; coverage
 * against a fixed grant must agree with the path and host rules. A broken
 * promise aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/args.h"
#include "proto/hostname.h"

/* A tool call's arguments are at most one frame; the fuzzer stays small. */
#define MAX_INPUT	(64 * 1024)

static void
check(int ok)
{
	if (!ok)
		abort();
}

static void
check_path(const char *p)
{
	struct bx_error err;

	check(p != NULL && bx_path_check(p, strlen(p), &err) == 0);
	check(p[0] == '/' && strstr(p, "//") == NULL &&
	    strstr(p, "/../") == NULL && strstr(p, "/./") == NULL);
}

static void
check_coverage(const struct tool_args *a)
{
	static char *paths[] = { "/", "/home/kyle", "/home/kyle/notes" };
	static char *hosts[] = { "example.com", "*.example.com" };
	const char *matched;
	bool covered;

	covered = args_covered(a, paths + 1, 2, hosts, 2, &matched);
	if (covered && matched != NULL)
		check(args_path_inside(matched, a->ta_tool == BX_TOOL_SHELL ?
		    a->ta_cwd : a->ta_path));
	/* "/" covers every path but, for write_file, itself. */
	covered = args_covered(a, paths, 1, NULL, 0, &matched);
	if (a->ta_tool == BX_TOOL_READ_FILE)
		check(covered);
	if (a->ta_tool == BX_TOOL_WRITE_FILE)
		check(covered == (strcmp(a->ta_path, "/") != 0));
	if (a->ta_tool == BX_TOOL_HTTP_FETCH)
		check(covered == false);
}

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tool_args *a = NULL;
	struct bx_error err;
	enum bx_tool tool;
	char *host = NULL;

	if (size < 1 || size > MAX_INPUT)
		return 0;
	tool = (enum bx_tool)(data[0] % BX_TOOL_MAX);
	if (args_parse(tool, (const char *)data + 1, size - 1, &a, &err) == -1) {
		check(a == NULL && err.msg[0] != '\0');
		return 0;
	}
	check(a->ta_tool == tool);
	switch (tool) {
	case BX_TOOL_READ_FILE:
		check_path(a->ta_path);
		break;
	case BX_TOOL_WRITE_FILE:
		check_path(a->ta_path);
		check(a->ta_content != NULL);
		break;
	case BX_TOOL_SHELL:
		check(a->ta_command != NULL);
		if (a->ta_cwd != NULL)
			check_path(a->ta_cwd);
		break;
	default:
		check(strlen(a->ta_url) <= ARGS_URL_MAX &&
		    strncmp(a->ta_url, "https://", 8) == 0);
		check(bx_host_check(a->ta_host, strlen(a->ta_host),
		    &err) == 0);
		check(args_url_check(a->ta_url, strlen(a->ta_url), &host,
		    &err) == 0 && strcmp(host, a->ta_host) == 0);
		free(host);
		break;
	}
	check_coverage(a);
	args_free(a);
	return 0;
}
