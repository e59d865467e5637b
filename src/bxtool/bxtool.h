/*
 * bxtool.h: the in-sandbox helper's parts. bxtool is bind-mounted at
 * /.boxmaker/bxtool and is the command of every sandbox brokerd starts;
 * it reads a file, writes a file, runs a command or fetches a URL through
 * the call's egress proxy, and tells brokerd how that went on stderr, in
 * lines only it writes:
 *
 *	bxtool: started			after the arguments were accepted
 *	bxtool: ok | truncated | failed MESSAGE | exit N | signal S |
 *		http CODE | http CODE truncated
 *
 * The second line, written after an empty one, is the last thing bxtool
 * writes, and nothing the command started is alive by then to write
 * after it (descendants.c): brokerd takes the last status line as the
 * answer. stdout carries the tool's content and nothing else.
 *
 * It is linked statically against libc alone, so that it needs nothing
 * from the sandbox's root filesystem. Nothing here allocates: the buffers
 * are static and sized by the limits below.
 */
#ifndef BXT_BXTOOL_H
#define BXT_BXTOOL_H

#include <stddef.h>

/* The largest --max for read, and the most content write accepts. */
#define BXT_CONTENT_MAX	(1024 * 1024)

/*
 * fetch with a secret: brokerd redacts the body before it cuts it to its
 * output limit, so bxtool passes on up to this much more than that limit
 * (sandbox.h's SANDBOX_FETCH_LOOKAHEAD, which must not be larger).
 */
#define BXT_FETCH_LOOKAHEAD	(128 * 1024)
/* The largest --max for fetch with a secret. */
#define BXT_FETCH_MAX	(BXT_CONTENT_MAX + BXT_FETCH_LOOKAHEAD)
/* The header line a secret is, "Name: value" (a 4096-byte value in base64). */
#define BXT_SECRET_MAX	8192

/* A failure message: a path of PATH_MAX and the words around it. */
#define BXT_MSG_MAX	8192

enum bxt_cmd {
	BXT_READ,
	BXT_WRITE,
	BXT_RUN,
	BXT_FETCH,
	BXT_CMD_MAX
};

/* The arguments, pointing into argv. */
struct bxt_args {
	enum bxt_cmd	  a_cmd;
	size_t		  a_max;	/* read, fetch: --max */
	const char	 *a_path;	/* read, write; fetch: the URL */
	const char	 *a_proxy;	/* fetch: the proxy's socket */
	const char	 *a_cacert;	/* fetch: the CA bundle */
	const char	 *a_secret;	/* fetch: the secret's name, or NULL */
	int		  a_secret_fd;	/* fetch: its header line, or -1 */
	const char	 *a_cwd;	/* run: --cwd */
	char *const	 *a_argv;	/* run: PROGRAM ARGS..., NULL-ended */
};

enum bxt_final {
	BXT_OK,
	BXT_TRUNCATED,
	BXT_FAILED,
	BXT_EXIT,
	BXT_SIGNAL,
	BXT_HTTP,	/* the final response's status in o_code */
	BXT_FINAL_MAX
};

/* What the final status line will say; a subcommand fills it. */
struct bxt_outcome {
	enum bxt_final	 o_final;
	int		 o_code;		/* exit status, signal, HTTP */
	int		 o_truncated;		/* BXT_HTTP: the body was cut */
	char		 o_msg[BXT_MSG_MAX];	/* BXT_FAILED's message */
};

/* status.c */
void	bxt_fail(struct bxt_outcome *out, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	bxt_status_started(void);
int	bxt_status_final(const struct bxt_outcome *out);

/* brokerd's filter, where podman's sandbox has it (filter.c); -1: failed. */
int	bxt_filter_install(struct bxt_outcome *out);

/* descendants.c: adopt what the command leaves; kill and reap it all. */
int	bxt_descendants_adopt(struct bxt_outcome *out);
void	bxt_descendants_end(void);

/* read.c, write.c, run.c, fetch.c: each leaves its result in out. */
void	bxt_read(const struct bxt_args *args, struct bxt_outcome *out);
void	bxt_write(const struct bxt_args *args, struct bxt_outcome *out);
void	bxt_run(const struct bxt_args *args, struct bxt_outcome *out);
void	bxt_fetch(const struct bxt_args *args, struct bxt_outcome *out);

/*
 * fetch_secret.c. Reads the secret's header line ("Name: value", one
 * line of printable ASCII) from fd to its end into a static buffer and
 * closes fd; -1 with out failed when it is not one.
 */
int	bxt_secret_take(int fd, struct bxt_outcome *out);
/*
 * A pipe whose read end (returned) holds curl's config for the header
 * taken: header = "Name: value", with \\ and \" escaped. -1 with out
 * failed when no pipe can be made. The caller closes it.
 */
int	bxt_secret_config(struct bxt_outcome *out);
/* Overwrites the header line taken. */
void	bxt_secret_forget(void);

/*
 * run.c, for fetch.c too: in a child between fork and exec, what a
 * program bxtool starts gets: no descriptor past stderr, default signals,
 * its own session, and exactly bxt_command_env.
 */
extern char *const bxt_command_env[];
void	bxt_child_reset(void);

#endif
