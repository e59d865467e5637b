/*
 * args.h: a tool call's arguments, parsed strictly into typed values, and
 * the form checks on paths and URLs (design section 3). Host names and
 * their matching are proto/hostname.h, shared with the egress proxy.
 *
 * args_parse() turns the model's JSON text into a struct tool_args; any
 * unknown field, duplicate key, wrong type or badly formed value refuses
 * the whole call (invalid_arguments). The same path and host checks are used
 * by the grant loader, so a grant and a request are judged by one rule.
 *
 * Ownership: args_parse() allocates *ret; the caller frees it with
 * args_free() (NULL is allowed). Every string in it belongs to it.
 */
#ifndef BROKERD_ARGS_H
#define BROKERD_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"
#include "proto/path.h"
#include "proto/types.h"

/* Arguments are at most one frame. */
#define ARGS_TEXT_MAX		(1024 * 1024)
/* A URL of http_fetch. */
#define ARGS_URL_MAX		2048

struct tool_args {
	enum bx_tool	 ta_tool;
	char		*ta_path;	/* read_file, write_file */
	char		*ta_content;	/* write_file; never inspected */
	char		*ta_command;	/* shell; never inspected */
	char		*ta_cwd;	/* shell; NULL when absent or null */
	char		*ta_url;	/* http_fetch */
	char		*ta_host;	/* http_fetch: the URL's host */
};

/*
 * Parses len bytes of JSON text as the arguments of tool. On failure err
 * says which field was wrong and why.
 */
int	args_parse(enum bx_tool tool, const char *text, size_t len,
	    struct tool_args **ret, struct bx_error *err);
void	args_free(struct tool_args *);

/*
 * The URL form check (paths are proto/path.h). It returns 0 when s (len
 * bytes, which may hold a NUL) has the form, or -1 with the reason in err
 * (the value itself is not quoted: callers name the field and value).
 */
/* On success *ret_host is the URL's host, allocated; the caller frees it. */
int	args_url_check(const char *s, size_t len, char **ret_host,
	    struct bx_error *err);

/*
 * Matching, on values that passed the checks above. A path is inside a
 * grant path when it is that path or lies below it by whole components;
 * the grant path "/" contains every path.
 */
bool	args_path_inside(const char *grant_path, const char *path);

/*
 * Whether a grant's constraints (its paths and host patterns) cover the
 * arguments a (design section 3, "What each tool takes"):
 *	read_file	path inside one of paths
 *	write_file	path inside one of paths, and not that path itself
 *	shell		no paths and no cwd, or cwd inside one of paths
 *	http_fetch	the URL's host matches one of hosts
 * *ret_path is the longest of paths that covers (pointing into paths), or
 * NULL when no path is involved.
 */
bool	args_covered(const struct tool_args *a, char *const *paths,
	    size_t npaths, char *const *hosts, size_t nhosts,
	    const char **ret_path);

#endif
