/*
 * jail_mounts.c: the jail's root (jail.h), built in the child's own mount
 * namespace. Every tree the root shows is first cloned with open_tree(2)
 * from the caller's view, while every path still means what it means
 * outside (a bind of a path under /tmp, say); only then is a tmpfs put
 * over /tmp to hold the new root, each clone moved into place, and the
 * root pivoted into. A clone's flags (read-only, nosuid, nodev) are set
 * before it is moved, recursively, so no submount stays writable.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jail/jail_impl.h"

/* Where the new root is built before the pivot. */
#define BASE		"/tmp"
#define MAX_TREES	(JAIL_MAX_BINDS + 32)

/* What /etc shows: the loader's cache and what libcurl's TLS reads. */
static const char *const etc_names[] = {
	"/etc/ld.so.cache", "/etc/ssl", "/etc/ca-certificates",
	"/etc/nsswitch.conf", "/etc/localtime",
};

static const char *const dev_names[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
};

/* The top-level names that are links into /usr on a merged-/usr system. */
static const char *const usr_links[] = {
	"bin", "sbin", "lib", "lib32", "lib64", "libx32",
};

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* A tree cloned from outside, and where it goes inside. */
struct tree {
	const char	*t_path;
	int		 t_fd;
	bool		 t_dir;
};

struct trees {
	struct tree	ts_tree[MAX_TREES];
	size_t		ts_n;
};

static int
why_errno(char *why, const char *step, const char *path)
{
	snprintf(why, JAIL_WHY_MAX, "%s %s: %s", step, path, strerror(errno));
	return -1;
}

/* Clones path's tree with attr set on all of it; optional: skip if gone. */
static int
clone_tree(struct trees *ts, const char *path, unsigned long long attr,
    bool optional, char *why)
{
	struct mount_attr ma;
	struct stat st;
	int fd;

	if (ts->ts_n == MAX_TREES) {
		errno = E2BIG;
		return why_errno(why, "clone", path);
	}
	fd = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_RECURSIVE);
	if (fd == -1 && optional && errno == ENOENT)
		return 0;
	if (fd == -1)
		return why_errno(why, "clone", path);
	memset(&ma, 0, sizeof(ma));
	ma.attr_set = attr;
	if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma,
	    sizeof(ma)) == -1 || fstat(fd, &st) == -1) {
		why_errno(why, "set the flags of", path);
		close(fd);
		return -1;
	}
	ts->ts_tree[ts->ts_n].t_path = path;
	ts->ts_tree[ts->ts_n].t_fd = fd;
	ts->ts_tree[ts->ts_n].t_dir = S_ISDIR(st.st_mode);
	ts->ts_n++;
	return 0;
}

static int
clone_all(const struct jail_spec *spec, struct trees *ts, char *why)
{
	const unsigned long long ro = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV;
	const struct jail_bind *b;
	size_t i;

	if (clone_tree(ts, "/usr", ro, false, why) == -1)
		return -1;
	for (i = 0; i < LEN(etc_names); i++)
		if (clone_tree(ts, etc_names[i], ro | MOUNT_ATTR_NOEXEC, true,
		    why) == -1)
			return -1;
	for (i = 0; i < LEN(dev_names); i++)
		if (clone_tree(ts, dev_names[i], MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NOEXEC, false, why) == -1)
			return -1;
	for (i = 0; i < spec->js_nbinds; i++) {
		b = &spec->js_binds[i];
		if (clone_tree(ts, b->jb_path, MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
		    (b->jb_flags & JAIL_BIND_WRITE ? 0 : MOUNT_ATTR_RDONLY),
		    (b->jb_flags & JAIL_BIND_OPTIONAL) != 0, why) == -1)
			return -1;
	}
	return 0;
}

/* Makes the directories of rel (relative to the new root) down to its end. */
static int
make_dirs(const char *rel, bool last, char *why)
{
	char path[4096];
	size_t i;

	if (snprintf(path, sizeof(path), "%s", rel) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return why_errno(why, "make", rel);
	}
	for (i = 1; path[i] != '\0'; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			return why_errno(why, "make", path);
		path[i] = '/';
	}
	if (last && mkdir(path, 0755) == -1 && errno != EEXIST)
		return why_errno(why, "make", path);
	return 0;
}

/* Moves a cloned tree to its path under the new root (the cwd). */
static int
place(const struct tree *t, char *why)
{
	const char *rel = t->t_path + 1;
	int fd;

	if (make_dirs(rel, t->t_dir, why) == -1)
		return -1;
	if (!t->t_dir) {
		fd = open(rel, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		    0600);
		if (fd == -1)
			return why_errno(why, "make", t->t_path);
		close(fd);
	}
	if (move_mount(t->t_fd, "", AT_FDCWD, rel,
	    MOVE_MOUNT_F_EMPTY_PATH) == -1)
		return why_errno(why, "mount", t->t_path);
	return 0;
}

/* The merged-/usr links, as the caller's root has them. */
static int
link_usr(char *why)
{
	char from[32], to[256];
	ssize_t n;
	size_t i;

	for (i = 0; i < LEN(usr_links); i++) {
		snprintf(from, sizeof(from), "/%s", usr_links[i]);
		if ((n = readlink(from, to, sizeof(to) - 1)) == -1)
			continue;
		to[n] = '\0';
		if (symlink(to, usr_links[i]) == -1)
			return why_errno(why, "link", from);
	}
	return 0;
}

static int
make_dev(char *why)
{
	static const char *const fds[][2] = {
		{ "/proc/self/fd", "dev/fd" }, { "/proc/self/fd/0", "dev/stdin" },
		{ "/proc/self/fd/1", "dev/stdout" },
		{ "/proc/self/fd/2", "dev/stderr" },
	};
	size_t i;

	if (mkdir("dev", 0755) == -1 || mount("tmpfs", "dev", "tmpfs",
	    MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") == -1)
		return why_errno(why, "mount a tmpfs on", "/dev");
	for (i = 0; i < LEN(fds); i++)
		if (symlink(fds[i][0], fds[i][1]) == -1)
			return why_errno(why, "link", fds[i][1]);
	return 0;
}

/* The jail's own /proc and /tmp. */
static int
make_proc_tmp(char *why)
{
	if (mkdir("proc", 0555) == -1 || mount("proc", "proc", "proc",
	    MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
		return why_errno(why, "mount", "/proc");
	if (mkdir("tmp", 01777) == -1 || mount("tmpfs", "tmp", "tmpfs",
	    MS_NOSUID | MS_NODEV, "mode=1777,size=" JAIL_TMP_SIZE) == -1)
		return why_errno(why, "mount a tmpfs on", "/tmp");
	return 0;
}

/* The new root, then the pivot; the old root is detached at once. */
static int
build(struct trees *ts, char *why)
{
	struct mount_attr ma;
	size_t i;

	if (mount("tmpfs", BASE, "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755,size=1m") == -1)
		return why_errno(why, "mount the root's tmpfs on", BASE);
	if (chdir(BASE) == -1)
		return why_errno(why, "enter", BASE);
	if (mkdir("etc", 0755) == -1)
		return why_errno(why, "make", "/etc");
	/* /tmp first: a bind under /tmp (a test's home) lands on it. */
	if (link_usr(why) == -1 || make_dev(why) == -1 ||
	    make_proc_tmp(why) == -1)
		return -1;
	for (i = 0; i < ts->ts_n; i++)
		if (place(&ts->ts_tree[i], why) == -1)
			return -1;
	if (syscall(SYS_pivot_root, ".", ".") == -1)
		return why_errno(why, "pivot into", BASE);
	if (umount2(".", MNT_DETACH) == -1 || chdir("/") == -1)
		return why_errno(why, "detach", "the old root");
	memset(&ma, 0, sizeof(ma));
	ma.attr_set = MOUNT_ATTR_RDONLY;
	if (mount_setattr(AT_FDCWD, "/", 0, &ma, sizeof(ma)) == -1 ||
	    mount_setattr(AT_FDCWD, "/dev", 0, &ma, sizeof(ma)) == -1)
		return why_errno(why, "make read-only", "/");
	return 0;
}

int
jail_mounts(const struct jail_spec *spec, char why[JAIL_WHY_MAX])
{
	struct trees ts;
	size_t i;
	int rc = -1;

	why[0] = '\0';
	ts.ts_n = 0;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		why_errno(why, "make private", "/");
		return -1;
	}
	if (clone_all(spec, &ts, why) == 0 && build(&ts, why) == 0)
		rc = 0;
	for (i = 0; i < ts.ts_n; i++)
		close(ts.ts_tree[i].t_fd);
	return rc;
}
