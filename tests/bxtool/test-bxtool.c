/*
 * test-bxtool.c: bxtool run directly on the host in a temporary directory,
 * its stdout, stderr and exit status compared exactly: usage errors, that
 * it is linked statically, and read. The cases of write and run are in
 * cases-write.c and cases-run.c; each group is listed in cases.h.
 */
#include <sys/stat.h>

#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cases.h"
#include "spawn.h"

/* Whether meson linked bxtool statically (not under the sanitizers). */
static int want_static;

static void
test_usage(void **state)
{
	static const char *const bad[][6] = {
		{ NULL }, { "list", NULL }, { "read", "x", NULL },
		{ "read", "--max", "10", NULL },
		{ "read", "--max", "0", "x", NULL },
		{ "read", "--max", "1048577", "x", NULL },
		{ "read", "--max", "-1", "x", NULL },
		{ "read", "--max", "1k", "x", NULL },
		{ "read", "--max", "", "x", NULL },
		{ "read", "--max", "10", "x", "y", NULL },
		{ "write", NULL }, { "write", "a", "b", NULL },
		{ "run", NULL }, { "run", "/bin/true", NULL },
		{ "run", "--", NULL }, { "run", "--cwd", "/tmp", NULL },
		{ "run", "--cwd", NULL }, { "run", "--", "", NULL },
	};
	struct spawn s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		spawn_run(&s, bad[i], NULL, 0, 0);
		assert_int_equal(spawn_exit_code(&s), 2);
		assert_int_equal(s.s_outlen, 0);
		assert_int_equal(strncmp(s.s_stderr, "usage: ", 7), 0);
		assert_null(strstr(s.s_stderr, "started"));
		spawn_free(&s);
	}
}

/* No program interpreter: nothing of the sandbox's root is needed. */
static void
test_linked_statically(void **state)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd, i;

	(void)state;
	if (!want_static)
		skip();
	assert_true((fd = open(spawn_bxtool(), O_RDONLY | O_CLOEXEC)) != -1);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	assert_memory_equal(eh.e_ident, ELFMAG, SELFMAG);
	assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
	for (i = 0; i < eh.e_phnum; i++) {
		assert_int_equal(pread(fd, &ph, sizeof(ph),
		    (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)),
		    sizeof(ph));
		assert_int_not_equal(ph.p_type, PT_INTERP);
		assert_int_not_equal(ph.p_type, PT_DYNAMIC);
	}
	close(fd);
}

/* bxtool read --max MAX PATH, compared with want and final. */
static void
expect_read(const char *path, const char *max, const char *want,
    size_t wantlen, const char *final)
{
	const char *args[] = { "read", "--max", max, path, NULL };
	struct spawn s;

	spawn_run(&s, args, NULL, 0, 0);
	expect_bytes(&s, 0, want, wantlen, final);
	spawn_free(&s);
}

static void
test_read_text(void **state)
{
	static const char text[] = "h\xc3\xa9llo\t w\xf0\x9f\x98\x80rld\n";
	char path[CASE_PATH_MAX];

	(void)state;
	make_file(at(path, "text"), text, sizeof(text) - 1, 0644);
	expect_read(path, "1048576", text, sizeof(text) - 1, "ok");
	expect_read(path, "19", text, sizeof(text) - 1, "ok");
	make_file(at(path, "empty"), "", 0, 0644);
	expect_read(path, "1", "", 0, "ok");
}

static void
test_read_not_utf8(void **state)
{
	static const char *const bad[] = {
		"ab\xc3\x28",		/* a bad continuation */
		"\xc0\xaf",		/* overlong */
		"\xed\xa0\x80",		/* a surrogate */
		"\xf4\x90\x80\x80",	/* past U+10FFFF */
		"\xff",
		"end\xe2\x82",		/* cut short by the file's end */
	};
	char path[CASE_PATH_MAX], final[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_file(at(path, "bad"), bad[i], strlen(bad[i]), 0644);
		snprintf(final, sizeof(final), "failed not UTF-8 text (%zu "
		    "bytes)", strlen(bad[i]));
		expect_read(path, "100", "", 0, final);
	}
	/* NUL is UTF-8 but not text: refused, never cut short silently. */
	make_file(at(path, "nul"), "a\0b", 3, 0644);
	expect_read(path, "100", "", 0, "failed not UTF-8 text (3 bytes)");
}

static void
test_read_truncated(void **state)
{
	/* "a€b": the euro sign is three bytes, 1 to 3. */
	static const char text[] = "a\xe2\x82\xac" "b";
	char path[CASE_PATH_MAX], *big;

	(void)state;
	make_file(at(path, "text"), text, 5, 0644);
	expect_read(path, "1", "a", 1, "truncated");
	expect_read(path, "2", "a", 1, "truncated");
	expect_read(path, "3", "a", 1, "truncated");
	expect_read(path, "4", "a\xe2\x82\xac", 4, "truncated");
	expect_read(path, "5", text, 5, "ok");
	/* What follows the limit is not returned, so not judged... */
	make_file(path, "a\xe2\x82\xff", 4, 0644);
	expect_read(path, "3", "a", 1, "truncated");
	/* ...but what comes before it is. */
	make_file(path, "a\xe2\x28\x80", 4, 0644);
	expect_read(path, "3", "", 0, "failed not UTF-8 text (4 bytes)");
	assert_non_null(big = malloc(CASE_BIG + 10));
	memset(big, 'x', CASE_BIG + 10);
	make_file(path, big, CASE_BIG + 10, 0644);
	expect_read(path, "1048576", big, CASE_BIG, "truncated");
	free(big);
}

static void
test_read_refused(void **state)
{
	char path[CASE_PATH_MAX], final[CASE_PATH_MAX + 64];

	(void)state;
	/* A FIFO without a writer: a read would wait forever. */
	assert_int_equal(mkfifo(at(path, "fifo"), 0644), 0);
	snprintf(final, sizeof(final), "failed not a regular file: %s", path);
	expect_read(path, "10", "", 0, final);
	snprintf(final, sizeof(final), "failed is a directory: %s", case_dir);
	expect_read(case_dir, "10", "", 0, final);
	at(path, "missing");
	snprintf(final, sizeof(final), "failed no such file: %s", path);
	expect_read(path, "10", "", 0, final);
	/* Control characters of a name do not reach brokerd's lines. */
	at(path, "a\nb\x1b" "c\x7f" "d\xc2\x85" "e\xff");
	snprintf(final, sizeof(final), "failed no such file: %s/a?b?c?d?e?",
	    case_dir);
	expect_read(path, "10", "", 0, final);
}

static void
test_read_permission_denied(void **state)
{
	const char *args[] = { "read", "--max", "10", NULL, NULL };
	char path[CASE_PATH_MAX], want[CASE_PATH_MAX + 64];
	struct spawn s;

	(void)state;
	/* The directory is 0700: nobody cannot look inside. */
	make_file(at(path, "secret"), "x", 1, 0600);
	args[3] = path;
	spawn_run(&s, args, NULL, 0, SPAWN_NOBODY);
	if (spawn_exit_code(&s) == SPAWN_CANNOT_EXEC ||
	    (geteuid() != 0 && access(path, R_OK) == 0)) {
		spawn_free(&s);
		skip();
	}
	snprintf(want, sizeof(want), "bxtool: started\n\nbxtool: failed "
	    "permission denied: %s\n", path);
	assert_string_equal(s.s_stderr, want);
	spawn_free(&s);
}

/* bxtool survives a reader that went away, and still says how it ended. */
static void
test_read_no_reader(void **state)
{
	const char *args[] = { "read", "--max", "100", NULL, NULL };
	char path[CASE_PATH_MAX];
	struct spawn s;

	(void)state;
	make_file(at(path, "text"), "some text\n", 10, 0644);
	args[3] = path;
	spawn_run(&s, args, NULL, 0, SPAWN_NO_READER);
	expect_bytes(&s, 0, "", 0, "failed cannot write the content: "
	    "Broken pipe");
	spawn_free(&s);
}

/* Without its status lines, bxtool does nothing and says so by exit 1. */
static void
test_no_status_reader(void **state)
{
	const char *args[] = { "write", NULL, NULL };
	char path[CASE_PATH_MAX];
	struct spawn s;

	(void)state;
	args[1] = at(path, "f");
	spawn_run(&s, args, "content", 7, SPAWN_NO_STATUS_READER);
	assert_int_equal(spawn_exit_code(&s), 1);
	assert_int_equal(s.s_outlen, 0);
	assert_int_equal(access(path, F_OK), -1);
	spawn_free(&s);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_linked_statically),
		case_test(test_read_text),
		case_test(test_read_not_utf8),
		case_test(test_read_truncated),
		case_test(test_read_refused),
		case_test(test_read_permission_denied),
		case_test(test_read_no_reader),
		case_test(test_no_status_reader),
		CASES_WRITE,
		CASES_RUN,
		CASES_FETCH,
	};

	want_static = argc > 1 && strcmp(argv[1], "static") == 0;
	/* bxtool must set its own: files made under 077 would be 0600. */
	umask(077);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
