/*
 * log_args.h: the command line of `bxctl log`, checked before anything is
 * read: ids in their form, times parsed (when.h), -n a number, --call
 * alone with what it can use.
 *
 * Nothing here allocates: strings point into argv, paths into the struct.
 */
#ifndef BXCTL_LOG_ARGS_H
#define BXCTL_LOG_ARGS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "bxctl/common/cli.h"
#include "bxctl/log/log_show.h"

struct log_args {
	struct log_filter	 filter;
	const char		*session;	/* the filter's, for --call too */
	const char		*call;		/* --call; NULL: every call */
	bool			 json;
	bool			 follow;
	size_t			 tail;		/* -n; 0: all */
	char			 home[PATH_MAX];
	char			 dir[PATH_MAX];	/* <home>/audit */
};

#define LOG_USAGE	"bxctl log [--session ID] [--tool NAME] " \
	"[--outcome allowed|ask|denied|failed] [--since TIME] " \
	"[--until TIME] [-n N] [--call ID] [--json] [--follow] [--home PATH]"

/*
 * Parses argv: 0, or -1 with *ret_status the exit status (help printed, or
 * a usage error).
 */
int	log_args_parse(const struct cli_command *, int argc, char **argv,
	    struct log_args *, int *ret_status);

#endif
