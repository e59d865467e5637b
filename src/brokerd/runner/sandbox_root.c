/*
 * sandbox_root.c: what a sandbox's own "/" holds before any mount (the
 * skeleton's directories, its links into /usr) and the files of the
 * generated /etc. One description, two renderings: sandbox_dir.c makes it
 * on disk for podman's --rootfs; runner_bwrap.c has bwrap make it in the
 * tmpfs that is bwrap's own root, so a bwrap call writes nothing of it to
 * the home's file system (issue 27).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/sandbox.h"

const char *const sandbox_skeleton_dirs[] = {
	"usr", "etc", "tmp", "proc", "dev", "sys", "run", "var", "var/tmp",
	".boxmaker", NULL,
};

const char *const sandbox_etc_names[SANDBOX_ETC_FILES] = {
	"passwd", "group", "hosts", "nsswitch.conf", "resolv.conf", "hostname",
};

/* Top-level names that are links into /usr on a merged-/usr system. */
static const char *const usr_links[SANDBOX_MAX_LINKS] = {
	"bin", "lib", "lib64", "sbin",
};

size_t
sandbox_usr_links(const char *usr, const char *ret[SANDBOX_MAX_LINKS])
{
	char path[4096];
	size_t i, n = 0;

	/* Only the links whose target the sandbox's /usr holds. */
	for (i = 0; i < SANDBOX_MAX_LINKS; i++) {
		snprintf(path, sizeof(path), "%s/%s", usr, usr_links[i]);
		if (access(path, F_OK) == 0)
			ret[n++] = usr_links[i];
	}
	return n;
}

void
sandbox_etc(const struct sandbox_view *v,
    struct sandbox_etc_file files[SANDBOX_ETC_FILES])
{
	char tool[128] = "", tgroup[64] = "";
	size_t i;

	/* In sandbox_etc_names' order. The tool's user is named. */
	if (v->v_uid != 0 && v->v_uid != 65534)
		snprintf(tool, sizeof(tool), "tool:x:%u:%u:boxmaker tool:/tmp:"
		    "/bin/sh\n", v->v_uid, v->v_gid);
	if (v->v_gid != 0 && v->v_gid != 65534)
		snprintf(tgroup, sizeof(tgroup), "tool:x:%u:\n", v->v_gid);
	snprintf(files[0].ef_text, SANDBOX_ETC_TEXT,
	    "root:x:0:0:root:/tmp:/bin/sh\n%s"
	    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
	    tool);
	snprintf(files[1].ef_text, SANDBOX_ETC_TEXT,
	    "root:x:0:\n%snogroup:x:65534:\n", tgroup);
	snprintf(files[2].ef_text, SANDBOX_ETC_TEXT,
	    "127.0.0.1\tlocalhost\n::1\tlocalhost\n");
	snprintf(files[3].ef_text, SANDBOX_ETC_TEXT,
	    "passwd: files\ngroup: files\nhosts: files\n");
	files[4].ef_text[0] = '\0';
	snprintf(files[5].ef_text, SANDBOX_ETC_TEXT, SANDBOX_HOSTNAME "\n");
	for (i = 0; i < SANDBOX_ETC_FILES; i++)
		files[i].ef_len = strlen(files[i].ef_text);
}
