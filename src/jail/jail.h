/*
 * jail.h: the jail of loopd's turn loop and of the Mattermost bridge
 * (roles.md section 3; jailrun/ plans it and launches each): a program
 * started in user, mount, pid, network, ipc and uts namespaces of its
 * own, as a uid and gid that are neither the caller's nor root
 * (proto/jailid.h), in a root of its own, with no capability,
 * no_new_privs and the system-call filter of jail/filter.h. The caller
 * stays outside and reads nothing the program writes; the jail suite
 * (tests/jail/) puts an attacker program in the same jail as loopd's turn
 * loop. (The jail's hostname, JAIL_HOSTNAME, is the same for every
 * program.)
 *
 * The root holds only:
 *
 *	/usr and the merged-/usr links (bin, lib, lib64, sbin)  read-only
 *	/etc: the loader's cache and what TLS reads (JAIL_ETC)   read-only
 *	/dev: null, zero, full, random, urandom                  device nodes
 *	/proc of its own pid namespace, a private /tmp (JAIL_TMP_SIZE)
 *	each bind of the spec, at the same path as outside
 *
 * Everything else is absent: the rest of the caller's files, /sys, /run,
 * /home. The network namespace holds only loopback, left down. The ids
 * are mapped one to one: the caller's own uid and gid (so the set-up can
 * reach the caller's files, and a peer check inside sees the caller as
 * itself) and the jail's; nothing else, so root outside is nobody inside
 * for a caller who is not root. Without root, newuidmap(1) and
 * newgidmap(1) write the maps from /etc/subuid and /etc/subgid.
 *
 * The program is exec'd from a descriptor, so it need not be under /usr.
 * It is its namespace's pid 1, and gets SIGKILL when the caller dies.
 *
 * Ownership: the caller owns the spec and everything it points to; a
 * spawn allocates nothing the caller frees. The child is the caller's to
 * wait for.
 */
#ifndef JAIL_JAIL_H
#define JAIL_JAIL_H

#include <sys/types.h>

#include <stddef.h>

#include "proto/error.h"
#include "proto/jailid.h"

#define JAIL_MAX_BINDS		16
#define JAIL_TMP_SIZE		"64m"
#define JAIL_HOSTNAME		"loopd-jail"

/* jb_flags */
#define JAIL_BIND_WRITE		0x1	/* read-write; else read-only */
#define JAIL_BIND_OPTIONAL	0x2	/* left out when the path is missing */

struct jail_bind {
	const char	*jb_path;	/* absolute; the same path inside */
	unsigned	 jb_flags;
};

struct jail_spec {
	uid_t			 js_uid;	/* the caller's: getuid() */
	gid_t			 js_gid;	/* the caller's: getgid() */
	struct bx_jail_id	 js_id;		/* what the program runs as */
	const struct jail_bind	*js_binds;
	size_t			 js_nbinds;	/* at most JAIL_MAX_BINDS */
	/* Absolute paths; needed only when js_uid is not 0. */
	const char		*js_newuidmap;
	const char		*js_newgidmap;
	int			 js_pass_fd;	/* -1, or the program's fd 3 */
};

/*
 * Starts the program open at exec_fd in a new jail, with argv and envp
 * (envp is the whole environment: nothing of the caller's is passed), and
 * returns once it is exec'd. On failure nothing is left running and err
 * names the step that failed and, where the machine lacks something, what
 * fixes it. Call it while the process has one thread: the child is forked
 * from it.
 */
int	jail_spawn(const struct jail_spec *spec, int exec_fd,
	    char *const argv[], char *const envp[], pid_t *ret_pid,
	    struct bx_error *err);

#endif
