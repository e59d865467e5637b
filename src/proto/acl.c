/*
 * acl.c: named-user ACL entries through libacl (acl.h).
 */
#include <sys/stat.h>
#include <sys/acl.h>

#include <acl/libacl.h>
#include <errno.h>
#include <string.h>

#include "proto/acl.h"

static int
set_perms(acl_entry_t entry, unsigned perms)
{
	acl_permset_t set;

	if (acl_get_permset(entry, &set) == -1 || acl_clear_perms(set) == -1)
		return -1;
	if ((perms & BX_ACL_READ) && acl_add_perm(set, ACL_READ) == -1)
		return -1;
	if ((perms & BX_ACL_WRITE) && acl_add_perm(set, ACL_WRITE) == -1)
		return -1;
	if ((perms & BX_ACL_EXEC) && acl_add_perm(set, ACL_EXECUTE) == -1)
		return -1;
	return acl_set_permset(entry, set);
}

/* uid's named entry in *acl, made if there is none. */
static int
find_user(acl_t *acl, uid_t uid, acl_entry_t *ret)
{
	acl_entry_t entry;
	acl_tag_t tag;
	uid_t *q;
	int id = ACL_FIRST_ENTRY, found;

	while ((found = acl_get_entry(*acl, id, &entry)) == 1) {
		id = ACL_NEXT_ENTRY;
		if (acl_get_tag_type(entry, &tag) == -1)
			return -1;
		if (tag != ACL_USER)
			continue;
		if ((q = acl_get_qualifier(entry)) == NULL)
			return -1;
		found = *q == uid;
		acl_free(q);
		if (found) {
			*ret = entry;
			return 0;
		}
	}
	if (found == -1 || acl_create_entry(acl, &entry) == -1 ||
	    acl_set_tag_type(entry, ACL_USER) == -1 ||
	    acl_set_qualifier(entry, &uid) == -1)
		return -1;
	*ret = entry;
	return 0;
}

static int
add_entry(acl_t *acl, uid_t uid, unsigned perms)
{
	acl_entry_t entry;

	if (find_user(acl, uid, &entry) == -1)
		return -1;
	return set_perms(entry, perms);
}

/* path's ACL of type, or one made from its mode when it has none. */
static acl_t
get_acl(const char *path, acl_type_t type, mode_t mode)
{
	acl_t acl;

	if ((acl = acl_get_file(path, type)) == NULL)
		return NULL;
	if (type == ACL_TYPE_DEFAULT && acl_entries(acl) == 0) {
		acl_free(acl);
		acl = acl_from_mode(mode);
	}
	return acl;
}

static int
allow_one(const char *path, acl_type_t type, const struct stat *st,
    uid_t uid, unsigned perms)
{
	acl_t acl;
	int rc = -1;

	if ((acl = get_acl(path, type, st->st_mode)) == NULL)
		return -1;
	if (add_entry(&acl, uid, perms) == -1)
		goto out;
	if (type == ACL_TYPE_DEFAULT && uid != st->st_uid &&
	    add_entry(&acl, st->st_uid, BX_ACL_READ | BX_ACL_WRITE |
	    BX_ACL_EXEC) == -1)
		goto out;
	if (acl_calc_mask(&acl) == -1 || acl_set_file(path, type, acl) == -1)
		goto out;
	rc = 0;
out:
	acl_free(acl);
	return rc;
}

int
bx_acl_allow(const char *path, uid_t uid, unsigned perms, bool inherit,
    struct bx_error *err)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return bx_fail(err, "%s: %s", path, strerror(errno));
	if (inherit && !S_ISDIR(st.st_mode))
		return bx_fail(err, "%s is not a directory, so it cannot pass "
		    "an ACL on to what is made in it", path);
	if (allow_one(path, ACL_TYPE_ACCESS, &st, uid, perms) == -1 ||
	    (inherit && allow_one(path, ACL_TYPE_DEFAULT, &st, uid,
	    perms) == -1))
		return bx_fail(err, "%s: cannot give uid %u an ACL entry: %s%s",
		    path, (unsigned)uid, strerror(errno), errno == EOPNOTSUPP ?
		    " (the file system has no POSIX ACLs)" : "");
	return 0;
}

/* The permissions of entry as bits of BX_ACL_*. */
static unsigned
perms_of(acl_entry_t entry)
{
	acl_permset_t set;
	unsigned p = 0;

	if (acl_get_permset(entry, &set) == -1)
		return 0;
	if (acl_get_perm(set, ACL_READ) == 1)
		p |= BX_ACL_READ;
	if (acl_get_perm(set, ACL_WRITE) == 1)
		p |= BX_ACL_WRITE;
	if (acl_get_perm(set, ACL_EXECUTE) == 1)
		p |= BX_ACL_EXEC;
	return p;
}

bool
bx_acl_allows(const char *path, uid_t uid, unsigned perms)
{
	acl_entry_t entry;
	acl_tag_t tag;
	acl_t acl;
	uid_t *q;
	unsigned mask = BX_ACL_READ | BX_ACL_WRITE | BX_ACL_EXEC, named = 0;
	int id = ACL_FIRST_ENTRY;

	if ((acl = acl_get_file(path, ACL_TYPE_ACCESS)) == NULL)
		return false;
	while (acl_get_entry(acl, id, &entry) == 1) {
		id = ACL_NEXT_ENTRY;
		if (acl_get_tag_type(entry, &tag) == -1)
			continue;
		if (tag == ACL_MASK)
			mask = perms_of(entry);
		if (tag != ACL_USER || (q = acl_get_qualifier(entry)) == NULL)
			continue;
		if (*q == uid)
			named = perms_of(entry);
		acl_free(q);
	}
	acl_free(acl);
	return (named & mask & perms) == perms;
}
