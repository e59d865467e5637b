/*
 * test-hostile-files.c: what a prompt-injected model (or whatever else
 * writes into a granted directory) can put in the way of the file tools
 * and the shell, under the runtime named on the command line: symlink
 * loops, a link swapped for a directory while write_file runs, a FIFO,
 * /dev/zero through a link, a file growing while it is read, odd names
 * and a path of 4,096 bytes; and commands that flood, ignore signals,
 * try to outlive their call or close their output. (The fork bomb, the
 * memory hog and a flood with newlines are test-sandbox's limits case.)
 *
 * Every case is a real tool_request under a real grant, asserts the exact
 * answer, and ends with sb_after_case.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "harness.h"
#include "sandbox-fixture.h"

/* Calls made while a host thread changes the file under them. */
#define RACE_CALLS	12

static void
grant_files(struct sb_fixture *f)
{
	sb_grant_data(f, "read", "read_file");
	sb_grant_data(f, "write", "write_file");
	sb_grant_data(f, "shell", "shell");
}

/* read_file of path; its content (malloc'd). */
static char *
read_path(struct sb_fixture *f, const char *path)
{
	return sb_call_arg(f, "read_file", "path", path);
}

static char *
write_path(struct sb_fixture *f, const char *path, const char *text)
{
	char *args, *content;
	json_t *j;

	j = json_pack("{s:s,s:s}", "path", path, "content", text);
	args = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	(void)sb_call(f, "write_file", args, &content);
	free(args);
	return content;
}

/* Loops, a FIFO and /dev/zero by a link: each refused at once. */
static void
test_links_fifo_devices(void **state)
{
	struct sb_fixture *f = *state;
	char a[PATH_MAX], b[PATH_MAX], p[PATH_MAX], *out;
	struct stat st;

	grant_files(f);
	snprintf(a, sizeof(a), "%s/loop-a", f->data);
	snprintf(b, sizeof(b), "%s/loop-b", f->data);
	assert_int_equal(symlink(b, a), 0);
	assert_int_equal(symlink(a, b), 0);
	out = read_path(f, a);
	sb_expect_failed(f, out, "cannot open %s: Too many levels of "
	    "symbolic links", a);
	free(out);
	snprintf(p, sizeof(p), "%s/fifo", f->data);
	assert_int_equal(mkfifo(p, 0644), 0);
	out = read_path(f, p);
	sb_expect_failed(f, out, "not a regular file: %s", p);
	free(out);
	snprintf(p, sizeof(p), "%s/zero", f->data);
	assert_int_equal(symlink("/dev/zero", p), 0);
	out = read_path(f, p);
	sb_expect_failed(f, out, "not a regular file: %s", p);
	free(out);
	/* write_file replaces the loop's link; its partner is untouched. */
	out = write_path(f, a, "unlooped\n");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	free(out);
	assert_int_equal(lstat(a, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(lstat(b, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	sb_after_case(f);
}

/* brokerd keeps 1023 bytes of bxtool's last status line, "failed " first. */
#define HOSTILE_STATUS_MSG_MAX	(1023 - 7)

struct racer {
	char		path[PATH_MAX];
	char		aside[PATH_MAX];
	char		target[PATH_MAX];
	atomic_bool	stop;
	int		fd;		/* grow(): path, open for appending */
};

/* Swaps path between a link to target and a directory, until stopped. */
static void *
swap(void *arg)
{
	struct racer *r = arg;
	char dir[PATH_MAX + 8];

	snprintf(dir, sizeof(dir), "%s.dir", r->aside);
	while (!atomic_load(&r->stop)) {
		(void)mkdir(dir, 0755);
		(void)symlink(r->target, r->aside);
		(void)rename(r->aside, r->path);
		(void)rmdir(r->path);
		(void)rename(dir, r->path);
		(void)unlink(r->path);
	}
	return NULL;
}

/* Appends lines of "a" to r->fd, until stopped. */
static void *
grow(void *arg)
{
	struct racer *r = arg;

	while (!atomic_load(&r->stop))
		if (write(r->fd, "aaaaaaa\n", 8) != 8)
			break;
	return NULL;
}

/*
 * write_file while its path turns from a link to a directory and back:
 * every answer is one of the three the tool can give, and nothing is ever
 * written through the link into the directory it names.
 */
static void
test_link_swapped_for_directory(void **state)
{
	struct sb_fixture *f = *state;
	struct racer r;
	pthread_t t;
	char wrote[2 * PATH_MAX], isdir[2 * PATH_MAX], rename_dir[2 * PATH_MAX];
	char cmd[2 * PATH_MAX], *out;
	int i;

	grant_files(f);
	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), "%s/work/x", f->data);
	snprintf(r.aside, sizeof(r.aside), "%s/work/.aside", f->data);
	snprintf(r.target, sizeof(r.target), "%s/docs", f->data);
	snprintf(wrote, sizeof(wrote), "wrote 4 bytes to %s", r.path);
	snprintf(isdir, sizeof(isdir), "is a directory: %s", r.path);
	snprintf(rename_dir, sizeof(rename_dir), "cannot rename into place: "
	    "%s: Is a directory", r.path);
	assert_int_equal(pthread_create(&t, NULL, swap, &r), 0);
	for (i = 0; i < RACE_CALLS; i++) {
		out = write_path(f, r.path, "race");
		if (strcmp(out, wrote) != 0 && strcmp(out, isdir) != 0 &&
		    strcmp(out, rename_dir) != 0)
			fail_msg("write_file in the race answered: %s", out);
		sb_expect_record(f, f->calls, f->last.a_status ==
		    BX_STATUS_FAILED, out);
		free(out);
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	/* Nothing went through the link: docs holds nothing. */
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", r.target);
	assert_int_equal(system(cmd), 0);
	sb_after_case(f);
}

/* A file growing while it is read: a prefix of it, cut at the limit. */
static void
test_file_growing(void **state)
{
	struct sb_fixture *f = *state;
	struct racer r;
	pthread_t t;
	bool grew = false;
	char *out;
	int i;

	grant_files(f);
	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), "%s/docs/growing", f->data);
	sb_put(f->data, "docs/growing", "");
	r.fd = open(r.path, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(r.fd != -1);
	assert_int_equal(pthread_create(&t, NULL, grow, &r), 0);
	for (i = 0; i < RACE_CALLS / 3; i++) {
		out = read_path(f, r.path);
		grew |= out[0] != '\0';
		assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
		assert_true(strlen(out) <= SB_OUTPUT_BYTES);
		assert_int_equal(strspn(out, "a\n"), strlen(out));
		assert_true(f->last.a_truncated ==
		    (strlen(out) == SB_OUTPUT_BYTES));
		sb_expect_record(f, f->calls, false, out);
		free(out);
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	close(r.fd);
	/* The reads saw it grow; the host's disk is not filled by it. */
	assert_true(grew);
	assert_int_equal(truncate(r.path, 0), 0);
	sb_after_case(f);
}

/* A newline and bytes that are not UTF-8 in names; a 4,096-byte path. */
static void
test_odd_names(void **state)
{
	struct sb_fixture *f = *state;
	char p[PATH_MAX + 64], *out;
	size_t len;

	grant_files(f);
	snprintf(p, sizeof(p), "%s/docs/new\nline", f->data);
	sb_put(f->data, "docs/new\nline", "text\n");
	out = read_path(f, p);
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_string_equal(out, "text\n");
	free(out);
	sb_put(f->data, "docs/bad\xff\xfename", "x");
	out = sb_shell(f, f->data, "ls docs | grep -a name");
	assert_string_equal(out, "bad\xef\xbf\xbd\xef\xbf\xbdname\n");
	free(out);
	/* 4,096 bytes with no terminating NUL: past PATH_MAX. */
	len = (size_t)snprintf(p, sizeof(p), "%s/docs/", f->data);
	memset(p + len, 'n', 4096 - len);
	p[4096] = '\0';
	/*
	 * Failed, "cannot open PATH: File name too long", but bxtool's status
	 * line holds 1 KiB of it: the path's start is the message.
	 */
	out = read_path(f, p);
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_int_equal(strlen(out), HOSTILE_STATUS_MSG_MAX);
	assert_int_equal(strncmp(out, "cannot open ", 12), 0);
	assert_int_equal(strncmp(out + 12, p, strlen(out) - 12), 0);
	sb_expect_record(f, f->calls, true, out);
	free(out);
	sb_after_case(f);
}

/* Commands that flood, ignore signals, outlive, litter, close output. */
static void
test_hostile_commands(void **state)
{
	struct sb_fixture *f = *state;
	char p[PATH_MAX], *out;

	grant_files(f);
	out = sb_shell(f, f->data, "tr '\\0' x < /dev/zero");
	if (!f->last.a_truncated)
		fail_msg("the flood answered %d: %.300s", f->last.a_status, out);
	assert_int_equal(strlen(out), SB_OUTPUT_BYTES);
	assert_int_equal(strspn(out, "x"), SB_OUTPUT_BYTES);
	sb_expect_record(f, f->calls, false, out);
	free(out);
	out = sb_shell(f, f->data, "trap '' TERM PIPE; echo deaf; "
	    "while :; do :; done");
	assert_string_equal(out, "timed out after 3 s\ndeaf\n");
	sb_expect_record(f, f->calls, true, out);
	free(out);
	out = sb_shell(f, f->data, "trap '' TERM PIPE; yes");
	assert_true(f->last.a_truncated);
	assert_int_equal(strspn(out, "y\n"), SB_OUTPUT_BYTES);
	free(out);
	/*
	 * The daemon's sleep ends with its call (the after-case check); the
	 * command waits until the sleep has started, so that it had one.
	 */
	out = sb_shell(f, f->data, "(setsid sh -c 'sleep 44.5 & echo $! > "
	    "/tmp/daemon' &); until [ -s /tmp/daemon ]; do sleep 0.01; done; "
	    "echo gone");
	assert_string_equal(out, "gone\n");
	free(out);
	assert_int_equal(WEXITSTATUS(system("pgrep -f 'slee[p] 44.5' "
	    ">/dev/null")), 1);
	out = sb_shell(f, f->data, "for i in $(seq 1000); do echo $i > /tmp/f$i; "
	    "done; ls /tmp | wc -l");
	assert_string_equal(out, "1000\n");
	free(out);
	/* It goes on without its output and is waited for. */
	out = sb_shell(f, f->data, "exec >&- 2>&-; sleep 0.5; echo on > on");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_string_equal(out, "");
	free(out);
	snprintf(p, sizeof(p), "%s/on", f->data);
	assert_int_equal(access(p, F_OK), 0);
	sb_after_case(f);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_links_fifo_devices,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_link_swapped_for_directory,
		    sb_setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_file_growing, sb_setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_odd_names, sb_setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_commands,
		    sb_setup, sb_teardown),
	};

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-hostile-files podman|bwrap\n");
		return 2;
	}
	sb_kind = argv[1];
	return cmocka_run_group_tests_name(sb_kind, tests, NULL, NULL);
}
