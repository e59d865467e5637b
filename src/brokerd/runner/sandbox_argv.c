/*
 * sandbox_argv.c: the command inside each sandbox, always the helper
 * (bxtool.h says what each subcommand does and answers):
 *
 *	read_file	bxtool read --max OUTPUT_BYTES PATH
 *	write_file	bxtool write PATH, the content on stdin
 *	shell		bxtool run --cwd CWD -- /bin/sh -c COMMAND
 *	http_fetch	bxtool fetch --max OUTPUT_BYTES --proxy SOCKET
 *			--cacert BUNDLE URL, the socket and bundle in the
 *			proxy's directory; with a secret, --max adds
 *			SANDBOX_FETCH_LOOKAHEAD, and --secret NAME
 *			--secret-fd 0 come before the URL, the header line
 *			on stdin (never in argv)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/args.h"
#include "brokerd/runner/sandbox.h"

int
sandbox_argv_copy(struct sandbox_view *v, const char *const *argv, size_t n,
    struct bx_error *err)
{
	size_t i;

	if ((v->v_argv = calloc(n + 1, sizeof(*v->v_argv))) == NULL)
		return bx_fail(err, "sandbox: out of memory");
	for (i = 0; i < n; i++)
		if ((v->v_argv[i] = strdup(argv[i])) == NULL)
			return bx_fail(err, "sandbox: out of memory");
	v->v_argc = n;
	return 0;
}

int
sandbox_argv(struct sandbox_view *v, const struct sandbox_host *h,
    const struct run_spec *spec, struct bx_error *err)
{
	const struct tool_args *a = run_spec_args(spec);
	char max[32], fetch_max[32];
	const char *argv[16];
	size_t n = 0;

	snprintf(max, sizeof(max), "%zu", h->sh_output_bytes);
	snprintf(fetch_max, sizeof(fetch_max), "%zu", h->sh_output_bytes +
	    (run_spec_secret(spec) != NULL ? SANDBOX_FETCH_LOOKAHEAD : 0));
	argv[n++] = SANDBOX_BXTOOL;
	switch (run_spec_tool(spec)) {
	case BX_TOOL_READ_FILE:
		argv[n++] = "read";
		argv[n++] = "--max";
		argv[n++] = max;
		argv[n++] = a->ta_path;
		break;
	case BX_TOOL_WRITE_FILE:
		argv[n++] = "write";
		argv[n++] = a->ta_path;
		v->v_stdin = a->ta_content;
		v->v_stdin_len = strlen(a->ta_content);
		break;
	case BX_TOOL_SHELL:
		argv[n++] = "run";
		argv[n++] = "--cwd";
		argv[n++] = a->ta_cwd != NULL ? a->ta_cwd : "/tmp";
		argv[n++] = "--";
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = a->ta_command;
		break;
	case BX_TOOL_HTTP_FETCH:
		argv[n++] = "fetch";
		argv[n++] = "--max";
		argv[n++] = fetch_max;
		argv[n++] = "--proxy";
		argv[n++] = SANDBOX_EGRESS_SOCKET;
		argv[n++] = "--cacert";
		argv[n++] = SANDBOX_EGRESS_CA;
		if (run_spec_secret(spec) != NULL) {
			argv[n++] = "--secret";
			argv[n++] = run_spec_secret(spec);
			argv[n++] = "--secret-fd";
			argv[n++] = SANDBOX_SECRET_FD;
			v->v_stdin = run_spec_secret_header(spec);
			v->v_stdin_len = strlen(v->v_stdin);
		}
		argv[n++] = a->ta_url;
		break;
	default:
		return bx_fail(err, "sandbox: %s does not run in this sandbox",
		    bx_tool_name(run_spec_tool(spec)));
	}
	return sandbox_argv_copy(v, argv, n, err);
}
