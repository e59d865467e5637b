/*
 * test-acl.c: bx_acl_allow (src/proto/acl.h) on a directory the test makes:
 * the named entry in the access ACL, the default ACL that hands the entry
 * and the owner's own on to a file made inside, no duplicate entry when
 * done twice, and a plain file refused where inheriting was asked for.
 */
#include <sys/stat.h>
#include <sys/acl.h>

#include <acl/libacl.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/acl.h"

#define JAIL_UID	4242

struct tree {
	char	dir[256];
	char	file[300];
};

static int
setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "%s/bx-acl-XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(t->dir) == NULL)
		return -1;
	snprintf(t->file, sizeof(t->file), "%s/made", t->dir);
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	struct tree *t = *state;

	unlink(t->file);
	rmdir(t->dir);
	free(t);
	return 0;
}

static int
count_entries(const char *path, acl_type_t type)
{
	acl_t acl = acl_get_file(path, type);
	int n;

	assert_non_null(acl);
	n = acl_entries(acl);
	acl_free(acl);
	return n;
}

static void
test_directory_inherits(void **state)
{
	struct tree *t = *state;
	struct bx_error err;
	struct stat st;
	int fd, n;

	assert_int_equal(bx_acl_allow(t->dir, JAIL_UID, BX_ACL_READ |
	    BX_ACL_WRITE | BX_ACL_EXEC, true, &err), 0);
	assert_true(bx_acl_allows(t->dir, JAIL_UID, BX_ACL_READ |
	    BX_ACL_WRITE | BX_ACL_EXEC));
	assert_false(bx_acl_allows(t->dir, JAIL_UID + 1, BX_ACL_READ));
	/* The group entry is the mode's: the mask opens nothing to it. */
	assert_int_equal(stat(t->dir, &st), 0);
	n = count_entries(t->dir, ACL_TYPE_ACCESS);
	assert_int_equal(bx_acl_allow(t->dir, JAIL_UID, BX_ACL_READ |
	    BX_ACL_WRITE | BX_ACL_EXEC, true, &err), 0);
	assert_int_equal(count_entries(t->dir, ACL_TYPE_ACCESS), n);
	/* A file made inside with group bits carries both named entries. */
	assert_true((fd = open(t->file, O_CREAT | O_WRONLY | O_CLOEXEC,
	    0660)) >= 0);
	close(fd);
	assert_true(bx_acl_allows(t->file, JAIL_UID, BX_ACL_READ |
	    BX_ACL_WRITE));
	assert_true(bx_acl_allows(t->file, st.st_uid == JAIL_UID ? 0 :
	    st.st_uid, BX_ACL_READ | BX_ACL_WRITE));
	/* Made 0600, the mask lets neither named entry through. */
	unlink(t->file);
	assert_true((fd = open(t->file, O_CREAT | O_WRONLY | O_CLOEXEC,
	    0600)) >= 0);
	close(fd);
	assert_false(bx_acl_allows(t->file, JAIL_UID, BX_ACL_READ));
}

static void
test_plain_file(void **state)
{
	struct tree *t = *state;
	struct bx_error err;
	int fd;

	assert_true((fd = open(t->file, O_CREAT | O_WRONLY | O_CLOEXEC,
	    0600)) >= 0);
	close(fd);
	assert_int_equal(bx_acl_allow(t->file, JAIL_UID, BX_ACL_READ, true,
	    &err), -1);
	assert_non_null(strstr(err.msg, "not a directory"));
	assert_int_equal(bx_acl_allow(t->file, JAIL_UID, BX_ACL_READ, false,
	    &err), 0);
	assert_true(bx_acl_allows(t->file, JAIL_UID, BX_ACL_READ));
	assert_false(bx_acl_allows(t->file, JAIL_UID, BX_ACL_WRITE));
	assert_int_equal(bx_acl_allow(t->dir, JAIL_UID, BX_ACL_EXEC, false,
	    &err), 0);
	assert_int_equal(bx_acl_allow("/nonexistent/x", JAIL_UID,
	    BX_ACL_READ, false, &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/x"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_directory_inherits, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_plain_file, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
