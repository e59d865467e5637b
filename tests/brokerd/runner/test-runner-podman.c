/*
 * test-runner-podman.c: the start-up sweep of runner_podman.c against a
 * fake podman (a shell script in a temporary directory) whose `ps` lists
 * the containers in a file and whose `rm` removes them, or leaves one
 * listed for as many removals as a second file says: the race a real
 * podman showed when a killed call's container was stopped by our rm while
 * its own --rm cleanup ran.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/runner/runner_impl.h"
#include "grants-fixture.h"

#define HOME_ID	"0123456789abcdef"

static const char fake_podman[] =
    "#!/bin/sh\n"
    "d=${0%/*}\n"
    "echo \"$*\" >> \"$d/calls\"\n"
    "[ \"$1\" = --cgroup-manager=cgroupfs ] || exit 126\n"
    "shift\n"
    "case $1 in\n"
    "ps)\n"
    "  [ -e \"$d/ps-fails\" ] && exit 125\n"
    "  cat \"$d/listed\" ;;\n"
    "rm)\n"
    "  name=$6\n"
    "  stays=$(cat \"$d/stays-$name\" 2>/dev/null || echo 0)\n"
    "  if [ \"$stays\" -gt 0 ]; then\n"
    "    echo $((stays - 1)) > \"$d/stays-$name\"\n"
    "  else\n"
    "    grep -vx \"$name\" \"$d/listed\" > \"$d/listed.new\"\n"
    "    mv \"$d/listed.new\" \"$d/listed\"\n"
    "  fi ;;\n"
    "esac\n"
    "exit 0\n";

struct fake {
	char			*f_dir;
	char			 f_program[4096];
	struct backend_settings	 f_bs;
};

static void
put(const struct fake *f, const char *name, const char *text)
{
	fixture_text(f->f_dir, name, text);
}

/* The file's whole text (malloc'd), or NULL if it is not there. */
static char *
slurp(const struct fake *f, const char *name)
{
	char path[4096], *text;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->f_dir, name);
	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	assert_non_null(text = calloc(1, 8192));
	n = fread(text, 1, 8191, fp);
	text[n] = '\0';
	fclose(fp);
	return text;
}

static int
setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->f_dir = fixture_dir();
	snprintf(f->f_program, sizeof(f->f_program), "%s/podman", f->f_dir);
	put(f, "podman", fake_podman);
	assert_int_equal(chmod(f->f_program, 0700), 0);
	put(f, "listed", "");
	f->f_bs.bs_program = f->f_program;
	f->f_bs.bs_home_id = HOME_ID;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fake *f = *state;

	fixture_remove(f->f_dir);
	free(f->f_dir);
	free(f);
	return 0;
}

static void
expect_file(const struct fake *f, const char *name, const char *want)
{
	char *got = slurp(f, name);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

#define PS	"--cgroup-manager=cgroupfs ps -a -q --filter label=boxmaker.home=" HOME_ID "\n"
#define RM(n)	"--cgroup-manager=cgroupfs rm -f -t 0 -i " n "\n"

static void
test_nothing_listed_removes_nothing(void **state)
{
	struct fake *f = *state;
	struct bx_error err;
	size_t removed = 99;

	assert_int_equal(podman_sweep(&f->f_bs, &removed, &err), 0);
	assert_int_equal(removed, 0);
	expect_file(f, "calls", PS);
}

static void
test_every_listed_container_is_removed(void **state)
{
	struct fake *f = *state;
	struct bx_error err;
	size_t removed = 0;

	put(f, "listed", "aaa\nbbb\n");
	assert_int_equal(podman_sweep(&f->f_bs, &removed, &err), 0);
	assert_int_equal(removed, 2);
	expect_file(f, "listed", "");
	expect_file(f, "calls", PS RM("aaa") RM("bbb") PS);
}

static void
test_one_still_listed_goes_in_the_next_round(void **state)
{
	struct fake *f = *state;
	struct bx_error err;
	size_t removed = 0;

	put(f, "listed", "aaa\nbbb\n");
	put(f, "stays-bbb", "1\n");
	assert_int_equal(podman_sweep(&f->f_bs, &removed, &err), 0);
	assert_int_equal(removed, 2);
	expect_file(f, "listed", "");
	expect_file(f, "calls", PS RM("aaa") RM("bbb") PS RM("bbb") PS);
}

static void
test_one_that_never_goes_fails_the_start(void **state)
{
	struct fake *f = *state;
	struct bx_error err;
	size_t removed = 99;

	put(f, "listed", "ccc\n");
	put(f, "stays-ccc", "1000\n");
	assert_int_equal(podman_sweep(&f->f_bs, &removed, &err), -1);
	assert_int_equal(removed, 99);
	assert_string_equal(err.msg, "podman rm -f did not remove container "
	    "ccc (and perhaps others) in 5 rounds; remove them with podman "
	    "rm -f");
	expect_file(f, "calls", PS RM("ccc") PS RM("ccc") PS RM("ccc") PS
	    RM("ccc") PS RM("ccc") PS);
}

static void
test_a_failing_ps_fails_the_start(void **state)
{
	struct fake *f = *state;
	struct bx_error err;
	size_t removed = 99;

	put(f, "ps-fails", "");
	put(f, "listed", "aaa\n");
	assert_int_equal(podman_sweep(&f->f_bs, &removed, &err), -1);
	assert_int_equal(removed, 99);
	assert_string_equal(err.msg, "podman ps -a --filter "
	    "label=boxmaker.home=" HOME_ID " failed (wait status 32000)");
	/* Nothing is removed on a listing that failed. */
	expect_file(f, "calls", PS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_nothing_listed_removes_nothing),
		T(test_every_listed_container_is_removed),
		T(test_one_still_listed_goes_in_the_next_round),
		T(test_one_that_never_goes_fails_the_start),
		T(test_a_failing_ps_fails_the_start),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
