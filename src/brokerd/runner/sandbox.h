/*
 * sandbox.h: the view of one call's sandbox, built once from a run_spec and
 * rendered by each runtime into its own argv (runner_podman.c,
 * runner_bwrap.c), so both runtimes show a tool the same filesystem:
 *
 *	/		the skeleton (sandbox_root.c), read-only: under
 *			podman the per-call <calldir>/root, under bwrap
 *			bwrap's own tmpfs
 *	/usr		the host's /usr (or [runner] root's usr/), read-only;
 *			/bin, /lib, /lib64, /sbin are links into it
 *	/etc		generated (sandbox_root.c), read-only, with the host's
 *			/etc/ssl/certs and /etc/alternatives read-only in it:
 *			under podman <calldir>/etc, under bwrap in its tmpfs
 *	/tmp, /run, /var/tmp	private tmpfs, size-limited
 *	/proc, /dev	the sandbox's own
 *	the spec's mounts	the host path at the same path
 *	Boxmaker's own paths	covered by an empty read-only directory
 *			(podman: <calldir>/cover; bwrap: a read-only tmpfs)
 *	/.boxmaker/bxtool	the helper, read-only, last of all
 *	/.boxmaker/egress	http_fetch only: <calldir>/egress, read-only,
 *			holding the egress proxy's socket and the CA bundle
 *
 * Mounts apply from the shortest destination to the longest, so the more
 * specific wins (at the same path, a grant over the sandbox's own); the
 * covers and the helper come after everything. Each bind's source is
 * resolved through symlinks and compared with Boxmaker's own paths: one
 * inside them shows an empty directory, one that holds them shows a cover
 * there, and a writable one has each directory down to them bound onto
 * itself, since a mount point cannot be renamed away. A grant
 * of "/" is mounted as the host's top-level entries (its directories and
 * files, not its symlinks), each at its own path, so that the sandbox keeps
 * its own root, /usr, /etc, /tmp, /proc and /dev under it.
 *
 * Ownership: sandbox_view_build allocates the view; sandbox_view_free frees
 * it (NULL is allowed). Strings in a sandbox_host are borrowed and must
 * outlive every view built from it.
 */
#ifndef BROKERD_SANDBOX_H
#define BROKERD_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/runner/runner.h"
#include "proto/error.h"

/* Where the helper is inside every sandbox. */
#define SANDBOX_BXTOOL		"/.boxmaker/bxtool"
/*
 * podman's sandboxes: brokerd's system-call filter (seccomp.h), which
 * bxtool installs over podman's own before it does anything else.
 */
#define SANDBOX_SECCOMP		"/.boxmaker/seccomp"
/* http_fetch's way out: the proxy's directory, its socket, the CAs. */
#define SANDBOX_EGRESS_DIR	"/.boxmaker/egress"
#define SANDBOX_EGRESS_SOCKET	SANDBOX_EGRESS_DIR "/socks.sock"
#define SANDBOX_EGRESS_CA	SANDBOX_EGRESS_DIR "/ca.pem"
/*
 * http_fetch with a secret: what bxtool passes on past the output limit,
 * for the redaction that runs before the limit (bxtool.h's
 * BXT_FETCH_LOOKAHEAD is the most it accepts). Larger than the longest
 * echo the redactor finds: a 8 KiB form in base64, each byte a \uXXXX.
 */
#define SANDBOX_FETCH_LOOKAHEAD	(128 * 1024)
/* The descriptor bxtool reads a secret's header line from: its stdin. */
#define SANDBOX_SECRET_FD	"0"
/* The sandbox's hostname. */
#define SANDBOX_HOSTNAME	"boxmaker"
/*
 * Boxmaker's own paths that a host can hold: home, grants, config,
 * secrets, sockets.
 */
#define SANDBOX_MAX_PROTECTED	8
/* Top-level entries of the host's "/" a grant of "/" mounts. */
#define SANDBOX_MAX_ROOT_ENTRIES 64
/* Links of the skeleton into /usr: bin, lib, lib64, sbin. */
#define SANDBOX_MAX_LINKS	4
/* Files of the generated /etc, and the longest one's text. */
#define SANDBOX_ETC_FILES	6
#define SANDBOX_ETC_TEXT	512
/* Operations of one view: the fixed ones, mounts, their covers. */
#define SANDBOX_MAX_OPS		(16 + 3 * (RUNNER_MAX_MOUNTS + \
				    SANDBOX_MAX_ROOT_ENTRIES))

enum sandbox_op_kind {
	SB_BIND,	/* src at dst, read-only unless o_writable */
	SB_ETC,		/* the generated /etc; o_src <calldir>/etc */
	SB_TMPFS,	/* a private tmpfs of v_tmp_bytes */
	SB_PROC,
	SB_DEV,
	SB_COVER,	/* the empty read-only <calldir>/cover at dst */
	SB_HELPER,	/* bxtool, read-only */
	SB_OP_KIND_MAX
};

struct sandbox_op {
	enum sandbox_op_kind	 o_kind;
	bool			 o_writable;
	char			*o_src;		/* NULL for tmpfs, proc, dev */
	char			*o_dst;
	size_t			 o_order;	/* made before: mounted before */
};

/* What every call of this brokerd shares; filled at startup. */
struct sandbox_host {
	const char	*sh_runner_dir;		/* <home>/broker/runner */
	const char	*sh_usr;		/* "/usr" or <root>/usr */
	const char	*sh_bxtool;		/* the helper on the host */
	/* Real paths (symlinks resolved at startup) the sandbox never sees. */
	const char	*sh_protected[SANDBOX_MAX_PROTECTED];
	size_t		 sh_nprotected;
	/* The host's top-level entries, for a grant of "/". */
	const char	*sh_root_entries[SANDBOX_MAX_ROOT_ENTRIES];
	size_t		 sh_nroot_entries;
	/* A mount's source with symlinks resolved (malloc'd), or NULL. */
	char		*(*sh_resolve)(const char *path);
	int64_t		 sh_tmp_bytes;		/* each tmpfs */
	/* The skeleton's links into /usr (sandbox_usr_links). */
	const char	*sh_links[SANDBOX_MAX_LINKS];
	size_t		 sh_nlinks;
	/* The tool's user and group, named in the generated /etc. */
	unsigned	 sh_uid, sh_gid;
	size_t		 sh_output_bytes;	/* bxtool read --max */
};

struct sandbox_view {
	uint64_t		 v_seq;		/* the Decision record's */
	char			*v_calldir;	/* <runner_dir>/<seq> */
	char			*v_rootfs;	/* <calldir>/root */
	char			*v_egressdir;	/* <calldir>/egress */
	struct sandbox_op	*v_ops;
	size_t			 v_nops;
	char			**v_argv;	/* inside; NULL-terminated */
	size_t			 v_argc;
	/* write_file's content, http_fetch's secret header line, or NULL */
	const char		*v_stdin;
	size_t			 v_stdin_len;
	int64_t			 v_tmp_bytes;
	const char *const	*v_links;	/* the host's sh_links */
	size_t			 v_nlinks;
	unsigned		 v_uid, v_gid;
};

/* Builds the view of spec for call seq; touches nothing on disk. */
int	sandbox_view_build(const struct sandbox_host *,
	    const struct run_spec *, uint64_t seq,
	    struct sandbox_view **ret, struct bx_error *err);
/* The start-up check's view: the helper runs /bin/true, nothing mounted. */
int	sandbox_view_noop(const struct sandbox_host *, uint64_t seq,
	    struct sandbox_view **ret, struct bx_error *err);
void	sandbox_view_free(struct sandbox_view *);

/* The command inside (sandbox_argv.c): the spec's, or argv as given. */
int	sandbox_argv(struct sandbox_view *, const struct sandbox_host *,
	    const struct run_spec *, struct bx_error *err);
int	sandbox_argv_copy(struct sandbox_view *, const char *const *argv,
	    size_t n, struct bx_error *err);

/* One file of the generated /etc, named by sandbox_etc_names. */
struct sandbox_etc_file {
	char		 ef_text[SANDBOX_ETC_TEXT];
	size_t		 ef_len;
};

/* The skeleton's directories, relative, parents first; NULL-terminated. */
extern const char *const sandbox_skeleton_dirs[];
/* The generated /etc's files, by name under /etc. */
extern const char *const sandbox_etc_names[SANDBOX_ETC_FILES];
/* Which links of the skeleton the host directory usr holds targets for. */
size_t	sandbox_usr_links(const char *usr,
	    const char *ret[SANDBOX_MAX_LINKS]);
/* The generated /etc's files; passwd and group name the view's user. */
void	sandbox_etc(const struct sandbox_view *,
	    struct sandbox_etc_file files[SANDBOX_ETC_FILES]);

/*
 * Makes <calldir>. With root_on_disk (podman's --rootfs) also root/,
 * etc/ and cover/ in it, with every mount point the view needs in the
 * skeleton or the generated /etc; bwrap makes all that in its own tmpfs.
 * Removes what it made when it fails.
 */
int	sandbox_dir_prepare(const struct sandbox_view *, bool root_on_disk,
	    struct bx_error *err);
/* Removes <calldir> and all below it, never following a link. */
int	sandbox_dir_remove(const char *calldir, struct bx_error *err);
/* Removes every per-call directory under runner_dir (startup sweep). */
int	sandbox_dir_sweep(const char *runner_dir, size_t *ret_removed,
	    struct bx_error *err);

#endif
