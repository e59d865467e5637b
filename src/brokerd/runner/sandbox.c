/*
 * sandbox.c: the one place a sandbox's view is decided (sandbox.h). Both
 * runtimes render what this file builds, so a path a tool may see under
 * podman is the path it sees under bwrap. Nothing here touches the disk:
 * the host's facts come in through struct sandbox_host.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/sandbox.h"

/* Top-level names the sandbox provides itself; a grant of "/" skips them. */
static const char *const own_entries[] = {
	"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "run",
	"sbin", "sys", "tmp", "usr", ".boxmaker", NULL,
};

/* The host's files under the generated /etc. */
static const char *const etc_binds[] = {
	"/etc/ssl/certs", "/etc/alternatives", NULL,
};

struct builder {
	struct sandbox_view	*b_view;
	const struct sandbox_host *b_host;
	struct bx_error		*b_err;
};

static int
add(struct builder *b, enum sandbox_op_kind kind, bool writable,
    const char *src, const char *dst)
{
	struct sandbox_view *v = b->b_view;
	struct sandbox_op *op;

	if (v->v_nops == SANDBOX_MAX_OPS)
		return bx_fail(b->b_err, "sandbox: more than %d mounts",
		    SANDBOX_MAX_OPS);
	op = &v->v_ops[v->v_nops];
	op->o_kind = kind;
	op->o_writable = writable;
	op->o_src = src != NULL ? strdup(src) : NULL;
	op->o_dst = strdup(dst);
	if ((src != NULL && op->o_src == NULL) || op->o_dst == NULL) {
		free(op->o_src);
		free(op->o_dst);
		return bx_fail(b->b_err, "sandbox: out of memory");
	}
	v->v_nops++;
	return 0;
}

/* Whether path is p or below it, by whole components ("/" holds all). */
static bool
under(const char *p, const char *path)
{
	return args_path_inside(p, path);
}

static bool
is_own_entry(const char *name)
{
	size_t i;

	for (i = 0; own_entries[i] != NULL; i++)
		if (strcmp(name, own_entries[i]) == 0)
			return true;
	return false;
}

static int
add_fixed(struct builder *b)
{
	char etc[4096];
	size_t i;

	snprintf(etc, sizeof(etc), "%s/etc", b->b_view->v_calldir);
	if (add(b, SB_BIND, false, b->b_host->sh_usr, "/usr") == -1 ||
	    add(b, SB_ETC, false, etc, "/etc") == -1 ||
	    add(b, SB_TMPFS, true, NULL, "/tmp") == -1 ||
	    add(b, SB_TMPFS, true, NULL, "/run") == -1 ||
	    add(b, SB_TMPFS, true, NULL, "/var/tmp") == -1 ||
	    add(b, SB_PROC, false, NULL, "/proc") == -1 ||
	    add(b, SB_DEV, false, NULL, "/dev") == -1)
		return -1;
	for (i = 0; etc_binds[i] != NULL; i++)
		if (add(b, SB_BIND, false, etc_binds[i], etc_binds[i]) == -1)
			return -1;
	return 0;
}

/*
 * One mount of the spec. A mount inside one of Boxmaker's own paths shows
 * an empty read-only directory instead; a grant of "/" becomes the host's
 * top-level entries.
 */
static int
add_mount(struct builder *b, const char *path, bool writable)
{
	const struct sandbox_host *h = b->b_host;
	char entry[4096];
	size_t i;

	if (strcmp(path, "/") == 0) {
		for (i = 0; i < h->sh_nroot_entries; i++) {
			if (is_own_entry(h->sh_root_entries[i]))
				continue;
			snprintf(entry, sizeof(entry), "/%s",
			    h->sh_root_entries[i]);
			if (add_mount(b, entry, writable) == -1)
				return -1;
		}
		return 0;
	}
	for (i = 0; i < h->sh_nprotected; i++)
		if (under(h->sh_protected[i], path))
			return add(b, SB_COVER, false, NULL, path);
	return add(b, SB_BIND, writable, path, path);
}

/* Where the host path p, inside the bind of real at dst, shows. */
static void
inside_path(const char *dst, const char *real, const char *p, char *out,
    size_t size)
{
	size_t rlen = strcmp(real, "/") == 0 ? 0 : strlen(real);

	snprintf(out, size, "%s%s", strcmp(dst, "/") == 0 ? "" : dst, p + rlen);
	if (out[0] == '\0')
		snprintf(out, size, "/");
}

/* Whether path is one of Boxmaker's own paths or below one. */
static bool
is_protected(const struct sandbox_host *h, const char *path)
{
	size_t j;

	for (j = 0; j < h->sh_nprotected; j++)
		if (under(h->sh_protected[j], path))
			return true;
	return false;
}

/*
 * Pins each directory between a writable bind and the protected path p
 * below it by binding it onto itself: a mount point cannot be renamed, so
 * a tool cannot move Boxmaker's home (and its cover) out of the way and
 * put a directory of its own at the covered path.
 */
static int
pin_ancestors(struct builder *b, const char *dst, const char *real,
    const char *p)
{
	char anc[4096], at[8192];
	size_t rlen = strcmp(real, "/") == 0 ? 0 : strlen(real), i;

	for (i = rlen + 1; p[i] != '\0'; i++) {
		if (p[i] != '/')
			continue;
		snprintf(anc, sizeof(anc), "%.*s", (int)i, p);
		if (is_protected(b->b_host, anc))
			continue;	/* covered itself */
		inside_path(dst, real, anc, at, sizeof(at));
		if (add(b, SB_BIND, true, anc, at) == -1)
			return -1;
	}
	return 0;
}

/*
 * Guards bind i against Boxmaker's own paths, on its source with symlinks
 * resolved: a source inside one becomes an empty read-only directory; one
 * that holds one gets a cover where it shows (and, writable, its
 * ancestors pinned). The bind then mounts the resolved path, the one that
 * was checked.
 */
static int
guard_bind(struct builder *b, size_t i)
{
	const struct sandbox_host *h = b->b_host;
	struct sandbox_op *op = &b->b_view->v_ops[i];
	char at[8192], *real;
	size_t j;
	int rc = 0;

	if ((real = h->sh_resolve(op->o_src)) == NULL)
		return 0;	/* absent: the bind fails, shows nothing */
	if (is_protected(h, real)) {
		op->o_kind = SB_COVER;
		op->o_writable = false;
		free(op->o_src);
		op->o_src = NULL;
		free(real);
		return 0;
	}
	free(op->o_src);
	op->o_src = real;
	for (j = 0; j < h->sh_nprotected && rc == 0; j++) {
		if (!under(real, h->sh_protected[j]))
			continue;
		inside_path(op->o_dst, real, h->sh_protected[j], at,
		    sizeof(at));
		rc = add(b, SB_COVER, false, NULL, at);
		op = &b->b_view->v_ops[i];
		if (rc == 0 && op->o_writable)
			rc = pin_ancestors(b, op->o_dst, op->o_src,
			    h->sh_protected[j]);
	}
	return rc;
}

/* Components of an absolute path: "/" 0, "/a" 1, "/a/b" 2. */
static size_t
depth(const char *path)
{
	const char *p;
	size_t n = 0;

	if (strcmp(path, "/") == 0)
		return 0;
	for (p = path; *p != '\0'; p++)
		n += *p == '/';
	return n;
}

static int
by_depth(const void *a, const void *b)
{
	const struct sandbox_op *x = a, *y = b;
	size_t dx = depth(x->o_dst), dy = depth(y->o_dst);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (strcmp(x->o_dst, y->o_dst) != 0)
		return strcmp(x->o_dst, y->o_dst);
	/* The same path: the sandbox's own first, so a grant of it wins. */
	return x->o_order < y->o_order ? -1 : x->o_order > y->o_order;
}

/* Drops a cover inside another cover: the outer one already hides it. */
static void
prune_covers(struct sandbox_view *v, size_t first)
{
	size_t i, j, n = first;
	bool inner;

	for (i = first; i < v->v_nops; i++) {
		inner = false;
		for (j = first; j < n && !inner; j++)
			inner = under(v->v_ops[j].o_dst, v->v_ops[i].o_dst);
		if (inner) {
			free(v->v_ops[i].o_src);
			free(v->v_ops[i].o_dst);
			continue;
		}
		v->v_ops[n++] = v->v_ops[i];
	}
	v->v_nops = n;
}

/*
 * Of ops with the same destination (sorted next to each other) keeps the
 * last, the one that would be mounted on top: podman refuses a repeated
 * destination, and what it would hide is never seen anyway. Returns the
 * new count of the first n ops; the rest move down behind them.
 */
static size_t
drop_shadowed(struct sandbox_view *v, size_t n)
{
	size_t i, kept = 0, rest = v->v_nops - n;

	for (i = 0; i < n; i++) {
		if (i + 1 < n &&
		    strcmp(v->v_ops[i].o_dst, v->v_ops[i + 1].o_dst) == 0) {
			free(v->v_ops[i].o_src);
			free(v->v_ops[i].o_dst);
			continue;
		}
		v->v_ops[kept++] = v->v_ops[i];
	}
	memmove(v->v_ops + kept, v->v_ops + n, rest * sizeof(*v->v_ops));
	v->v_nops = kept + rest;
	return kept;
}

/* Moves the ops other than covers to the front; how many there are. */
static size_t
covers_last(struct sandbox_view *v)
{
	struct sandbox_op tmp;
	size_t i, n = 0;

	for (i = 0; i < v->v_nops; i++)
		if (v->v_ops[i].o_kind != SB_COVER) {
			tmp = v->v_ops[n];
			v->v_ops[n++] = v->v_ops[i];
			v->v_ops[i] = tmp;
		}
	return n;
}

/* Binds by depth, then the covers by depth, then the helper. */
static int
arrange(struct builder *b)
{
	struct sandbox_view *v = b->b_view;
	size_t i, n;

	for (i = 0; i < v->v_nops; i++)
		v->v_ops[i].o_order = i;
	n = covers_last(v);
	/* The call's own directory (the proxy's) lies in the home. */
	for (i = 0; i < n; i++)
		if (v->v_ops[i].o_kind == SB_BIND &&
		    !under(v->v_calldir, v->v_ops[i].o_src) &&
		    guard_bind(b, i) == -1)
			return -1;
	for (i = 0; i < v->v_nops; i++)
		v->v_ops[i].o_order = i;
	n = covers_last(v);
	qsort(v->v_ops, n, sizeof(*v->v_ops), by_depth);
	qsort(v->v_ops + n, v->v_nops - n, sizeof(*v->v_ops), by_depth);
	n = drop_shadowed(v, n);
	prune_covers(v, n);
	return add(b, SB_HELPER, false, b->b_host->sh_bxtool, SANDBOX_BXTOOL);
}

/* A view with its directories named and its fixed mounts; no command yet. */
static struct sandbox_view *
view_new(struct builder *b, const struct sandbox_host *h, uint64_t seq,
    struct bx_error *err)
{
	struct sandbox_view *v;

	if ((v = calloc(1, sizeof(*v))) == NULL ||
	    (v->v_ops = calloc(SANDBOX_MAX_OPS, sizeof(*v->v_ops))) == NULL) {
		free(v);
		bx_fail(err, "sandbox: out of memory");
		return NULL;
	}
	v->v_seq = seq;
	v->v_tmp_bytes = h->sh_tmp_bytes;
	v->v_links = h->sh_links;
	v->v_nlinks = h->sh_nlinks;
	v->v_uid = h->sh_uid;
	v->v_gid = h->sh_gid;
	b->b_view = v;
	b->b_host = h;
	b->b_err = err;
	if (asprintf(&v->v_calldir, "%s/%" PRIu64, h->sh_runner_dir,
	    seq) == -1)
		v->v_calldir = NULL;
	else if (asprintf(&v->v_rootfs, "%s/root", v->v_calldir) == -1)
		v->v_rootfs = NULL;
	else if (asprintf(&v->v_egressdir, "%s/egress", v->v_calldir) == -1)
		v->v_egressdir = NULL;
	if (v->v_egressdir == NULL) {
		bx_fail(err, "sandbox: out of memory");
		sandbox_view_free(v);
		return NULL;
	}
	if (add_fixed(b) == -1) {
		sandbox_view_free(v);
		return NULL;
	}
	return v;
}

int
sandbox_view_build(const struct sandbox_host *h, const struct run_spec *spec,
    uint64_t seq, struct sandbox_view **ret, struct bx_error *err)
{
	struct sandbox_view *v;
	struct builder b;
	size_t i;
	int rc = -1;

	if ((v = view_new(&b, h, seq, err)) == NULL)
		return -1;
	if (sandbox_argv(v, h, spec, err) == -1)
		goto out;
	for (i = 0; i < run_spec_nmounts(spec); i++)
		if (add_mount(&b, run_spec_mount_path(spec, i),
		    run_spec_mount_writable(spec, i)) == -1)
			goto out;
	if (arrange(&b) == -1)
		goto out;
	/* The proxy's directory, after the helper, over anything a grant had. */
	if (run_spec_has_egress(spec) && add(&b, SB_BIND, false,
	    v->v_egressdir, SANDBOX_EGRESS_DIR) == -1)
		goto out;
	*ret = v;
	v = NULL;
	rc = 0;
out:
	sandbox_view_free(v);
	return rc;
}

int
sandbox_view_noop(const struct sandbox_host *h, uint64_t seq,
    struct sandbox_view **ret, struct bx_error *err)
{
	static const char *const argv[] = {
		SANDBOX_BXTOOL, "run", "--cwd", "/", "--", "/bin/true",
	};
	struct sandbox_view *v;
	struct builder b;

	if ((v = view_new(&b, h, seq, err)) == NULL)
		return -1;
	if (sandbox_argv_copy(v, argv, sizeof(argv) / sizeof(argv[0]),
	    err) == -1 ||
	    arrange(&b) == -1) {
		sandbox_view_free(v);
		return -1;
	}
	*ret = v;
	return 0;
}

void
sandbox_view_free(struct sandbox_view *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->v_nops; i++) {
		free(v->v_ops[i].o_src);
		free(v->v_ops[i].o_dst);
	}
	for (i = 0; v->v_argv != NULL && i < v->v_argc; i++)
		free(v->v_argv[i]);
	free(v->v_argv);
	free(v->v_ops);
	free(v->v_rootfs);
	free(v->v_egressdir);
	free(v->v_calldir);
	free(v);
}
