/*
 * jailid.c: a jail's uid and gid, from the password database for root
 * and from /etc/subuid and /etc/subgid for anyone else (jailid.h).
 */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/jailid.h"
#include "proto/readfile.h"

#define FIX_RANGE	"sudo usermod --add-subuids 100000-165535 " \
			"--add-subgids 100000-165535 %s"
#define FIX_USER	"sudo useradd --system --user-group --no-create-home " \
			"--home-dir /nonexistent --shell /usr/sbin/nologin %s"

/* Each jail's system user, how messages name it, and its place in a range. */
struct role {
	const char	*r_user;
	const char	*r_prog;	/* "loopd" */
	const char	*r_jail;	/* "loopd's jail" */
	unsigned	 r_below_last;	/* 0: the range's last id; 1: the one below */
};

static const struct role roles[] = {
	[BX_JAIL_LOOP] = { BX_JAIL_USER, "loopd", "loopd's jail", 0 },
	[BX_JAIL_BRIDGE] = { BX_JAIL_BRIDGE_USER, "bxbridge",
	    "the bridge's jail", 1 },
};

const char *
bx_jail_user(enum bx_jail_role role)
{
	return roles[role].r_user;
}

/* A decimal id of at most 32 bits, the whole of [s, end). */
static bool
parse_id(const char *s, const char *end, uint64_t *ret)
{
	uint64_t v = 0;

	if (s == end || end - s > 10)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*ret = v;
	return true;
}

/*
 * Whether line (without its newline) is "who:start:count" for name or
 * uid; *ret_last is then the range's last id and *ret_count its size.
 */
static bool
match_range(const char *line, const char *end, const char *name,
    const char *uid_text, uint64_t *ret_last, uint64_t *ret_count)
{
	const char *c1, *c2;
	uint64_t start, count;
	size_t who;

	if ((c1 = memchr(line, ':', (size_t)(end - line))) == NULL ||
	    (c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1))) == NULL)
		return false;
	who = (size_t)(c1 - line);
	if (!((strlen(name) == who && memcmp(line, name, who) == 0) ||
	    (strlen(uid_text) == who && memcmp(line, uid_text, who) == 0)))
		return false;
	if (!parse_id(c1 + 1, c2, &start) || !parse_id(c2 + 1, end, &count) ||
	    count == 0 || start + count - 1 >= UINT32_MAX)
		return false;
	*ret_last = start + count - 1;
	*ret_count = count;
	return true;
}

/* role's id in name's first range in file: its last, or one below. */
static int
id_in_range(const struct role *r, const char *file, const char *name,
    uid_t uid, uint64_t *ret, struct bx_error *err)
{
	char uid_text[16], *text, *line, *end;
	uint64_t last = 0, count = 0, id;
	bool found = false;
	size_t len;

	if (bx_readfile(file, BX_SUBID_FILE_MAX, &text, &len, NULL, err) == -1)
		return bx_error_prefix(err, "%s needs a range of subordinate "
		    "ids for %s (" FIX_RANGE "; " BX_RUNBOOK_JAIL ")",
		    r->r_jail, name, name);
	snprintf(uid_text, sizeof(uid_text), "%u", (unsigned)uid);
	for (line = text; !found && line < text + len; line = end + 1) {
		if ((end = memchr(line, '\n', len - (size_t)(line - text))) ==
		    NULL)
			end = text + len;
		found = match_range(line, end, name, uid_text, &last, &count);
	}
	free(text);
	if (!found)
		return bx_fail(err, "%s gives %s no range of subordinate ids, "
		    "which %s takes its uid and gid from: " FIX_RANGE "; "
		    BX_RUNBOOK_JAIL, file, name, r->r_jail, name);
	/* The bridge's id is never loopd's: the range must hold both. */
	if (count <= r->r_below_last)
		return bx_fail(err, "%s: %s's first range holds %llu id, and "
		    "%s takes the one below its last, which loopd's jail "
		    "takes: give %s a range of its own (" FIX_RANGE "); "
		    BX_RUNBOOK_JAIL, file, name, (unsigned long long)count,
		    r->r_jail, name, name);
	id = last - r->r_below_last;
	if (id == 0 || id == uid)
		return bx_fail(err, "%s: %s's range gives id %llu, which "
		    "cannot be %s (it is root's or %s's own); "
		    BX_RUNBOOK_JAIL, file, name, (unsigned long long)id,
		    r->r_jail, name);
	*ret = id;
	return 0;
}

int
bx_jail_identity_from(enum bx_jail_role role, const char *name, uid_t uid,
    const char *subuid_file, const char *subgid_file, struct bx_jail_id *ret,
    struct bx_error *err)
{
	const struct role *r = &roles[role];
	uint64_t juid, jgid;

	if (id_in_range(r, subuid_file, name, uid, &juid, err) == -1 ||
	    id_in_range(r, subgid_file, name, uid, &jgid, err) == -1)
		return -1;
	ret->ji_uid = (uid_t)juid;
	ret->ji_gid = (gid_t)jgid;
	return 0;
}

static int
system_user(const struct role *r, struct bx_jail_id *ret,
    struct bx_error *err)
{
	struct passwd *pw;

	errno = 0;
	if ((pw = getpwnam(r->r_user)) == NULL)
		return bx_fail(err, "there is no user %s, the uid %s runs as "
		    "when %s is root's: " FIX_USER "; " BX_RUNBOOK_JAIL,
		    r->r_user, r->r_jail, r->r_prog, r->r_user);
	if (pw->pw_uid == 0 || pw->pw_gid == 0)
		return bx_fail(err, "the user %s has uid %u and gid %u; %s "
		    "must not be root: give it ids of its own; "
		    BX_RUNBOOK_JAIL, r->r_user, (unsigned)pw->pw_uid,
		    (unsigned)pw->pw_gid, r->r_jail);
	ret->ji_uid = pw->pw_uid;
	ret->ji_gid = pw->pw_gid;
	return 0;
}

int
bx_jail_identity_of(enum bx_jail_role role, uid_t uid,
    struct bx_jail_id *ret, struct bx_error *err)
{
	const struct role *r = &roles[role];
	struct passwd *pw;
	char name[256];

	if (uid == 0)
		return system_user(r, ret, err);
	if ((pw = getpwuid(uid)) == NULL)
		return bx_fail(err, "uid %u has no entry in the password "
		    "database, so /etc/subuid cannot name its range for "
		    "%s; " BX_RUNBOOK_JAIL, (unsigned)uid, r->r_jail);
	snprintf(name, sizeof(name), "%s", pw->pw_name);
	return bx_jail_identity_from(role, name, uid, BX_SUBUID_FILE,
	    BX_SUBGID_FILE, ret, err);
}

int
bx_jail_identity(uid_t uid, struct bx_jail_id *ret, struct bx_error *err)
{
	return bx_jail_identity_of(BX_JAIL_LOOP, uid, ret, err);
}
