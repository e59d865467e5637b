/*
 * jailid.c: the jail's uid and gid, from the password database for root
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
 * uid; *ret_last is then the range's last id.
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

/*
 * The last id of name's first range in file, or the one below it for the
 * bridge's jail (below 1): never loopd's, and so the range must hold both.
 */
static int
last_of_range(const char *file, const char *name, uid_t uid, unsigned below,
    uint64_t *ret, struct bx_error *err)
{
	const char *jail = below == 0 ? "loopd's jail" : "the bridge's jail";
	char uid_text[16], *text, *line, *end;
	uint64_t last = 0, count = 0;
	bool found = false;
	size_t len;

	if (bx_readfile(file, BX_SUBID_FILE_MAX, &text, &len, NULL, err) == -1)
		return bx_error_prefix(err, "%s needs a range of subordinate "
		    "ids for %s (" FIX_RANGE "; " BX_RUNBOOK_JAIL ")", jail,
		    name, name);
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
		    BX_RUNBOOK_JAIL, file, name, jail, name);
	if (count <= below)
		return bx_fail(err, "%s: %s's first range holds %llu id; the "
		    "bridge's jail takes the one below its last, which is "
		    "loopd's: give %s a larger range (" FIX_RANGE "); "
		    BX_RUNBOOK_JAIL, file, name, (unsigned long long)count,
		    name, name);
	last -= below;
	if (last == 0 || last == uid)
		return bx_fail(err, "%s: %s's range gives id %llu, which "
		    "cannot be %s (it is root's or %s's own); "
		    BX_RUNBOOK_JAIL, file, name, (unsigned long long)last,
		    jail, name);
	*ret = last;
	return 0;
}

static int
identity_from(enum bx_jail_role role, const char *name, uid_t uid,
    const char *subuid_file, const char *subgid_file, struct bx_jail_id *ret,
    struct bx_error *err)
{
	unsigned below = role == BX_JAIL_BRIDGE ? 1 : 0;
	uint64_t juid, jgid;

	if (last_of_range(subuid_file, name, uid, below, &juid, err) == -1 ||
	    last_of_range(subgid_file, name, uid, below, &jgid, err) == -1)
		return -1;
	ret->ji_uid = (uid_t)juid;
	ret->ji_gid = (gid_t)jgid;
	return 0;
}

int
bx_jail_identity_from(const char *name, uid_t uid, const char *subuid_file,
    const char *subgid_file, struct bx_jail_id *ret, struct bx_error *err)
{
	return identity_from(BX_JAIL_LOOP, name, uid, subuid_file,
	    subgid_file, ret, err);
}

static int
system_user(const char *user, const char *jail, struct bx_jail_id *ret,
    struct bx_error *err)
{
	struct passwd *pw;

	errno = 0;
	if ((pw = getpwnam(user)) == NULL)
		return bx_fail(err, "there is no user %s, the uid %s runs as "
		    "when its program is root's: " FIX_USER "; "
		    BX_RUNBOOK_JAIL, user, jail, user);
	if (pw->pw_uid == 0 || pw->pw_gid == 0)
		return bx_fail(err, "the user %s has uid %u and gid %u; %s "
		    "must not be root: give it ids of its own; "
		    BX_RUNBOOK_JAIL, user, (unsigned)pw->pw_uid,
		    (unsigned)pw->pw_gid, jail);
	ret->ji_uid = pw->pw_uid;
	ret->ji_gid = pw->pw_gid;
	return 0;
}

/* Root's bridge: its own system user, whose uid is never loopd's. */
static int
bridge_system_user(struct bx_jail_id *ret, struct bx_error *err)
{
	struct bx_jail_id loop, bridge;

	if (system_user(BX_JAIL_BRIDGE_USER, "the bridge's jail", &bridge,
	    err) == -1)
		return -1;
	if (system_user(BX_JAIL_USER, "loopd's jail", &loop, NULL) == 0 &&
	    loop.ji_uid == bridge.ji_uid)
		return bx_fail(err, "the users %s and %s have the same uid %u; "
		    "the bridge's jail must not be loopd's: give it a uid of "
		    "its own; " BX_RUNBOOK_JAIL, BX_JAIL_BRIDGE_USER,
		    BX_JAIL_USER, (unsigned)bridge.ji_uid);
	*ret = bridge;
	return 0;
}

int
bx_jail_identity_of(enum bx_jail_role role, uid_t uid, struct bx_jail_id *ret,
    struct bx_error *err)
{
	struct passwd *pw;
	char name[256];

	if (uid == 0)
		return role == BX_JAIL_BRIDGE ? bridge_system_user(ret, err) :
		    system_user(BX_JAIL_USER, "loopd's jail", ret, err);
	if ((pw = getpwuid(uid)) == NULL)
		return bx_fail(err, "uid %u has no entry in the password "
		    "database, so /etc/subuid cannot name its range for "
		    "%s; " BX_RUNBOOK_JAIL, (unsigned)uid,
		    role == BX_JAIL_BRIDGE ? "the bridge's jail" :
		    "loopd's jail");
	snprintf(name, sizeof(name), "%s", pw->pw_name);
	return identity_from(role, name, uid, BX_SUBUID_FILE, BX_SUBGID_FILE,
	    ret, err);
}

int
bx_jail_identity(uid_t uid, struct bx_jail_id *ret, struct bx_error *err)
{
	return bx_jail_identity_of(BX_JAIL_LOOP, uid, ret, err);
}
