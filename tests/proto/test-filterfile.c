/*
 * test-filterfile.c: reading a system-call filter program from a file and
 * installing it (proto/filterfile.h). Reading refuses what is not whole
 * instructions or is past the kernel's length; installing is done in a
 * child, which then finds the one system call the program denies denied
 * and the others working.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/filterfile.h"

/* EPERM for getppid, everything else allowed: enough to see it bite. */
static const struct sock_filter deny_getppid[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

/* A pipe holding len bytes of buf, its read end returned. */
static int
pipe_with(const void *buf, size_t len)
{
	int fds[2];

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	assert_int_equal(write(fds[1], buf, len), (ssize_t)len);
	close(fds[1]);
	return fds[0];
}

static int
read_bytes(const void *buf, size_t len, struct bx_filter_prog *prog,
    struct bx_error *err)
{
	int fd = pipe_with(buf, len), rc;

	rc = bx_filter_read(fd, "prog", prog, err);
	close(fd);
	return rc;
}

/* The child's checks passed: it exited 0. */
static void
expect_exit_0(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void
test_read_whole_instructions(void **state)
{
	static struct bx_filter_prog prog;
	struct bx_error err;

	(void)state;
	assert_int_equal(read_bytes(deny_getppid, sizeof(deny_getppid), &prog,
	    &err), 0);
	assert_int_equal(prog.fp_len, 4);
	assert_memory_equal(prog.fp_insns, deny_getppid, sizeof(deny_getppid));
}

static void
test_read_refuses_what_is_not_a_program(void **state)
{
	static struct sock_filter big[BPF_MAXINSNS + 1];
	static struct bx_filter_prog prog;
	struct bx_error err;
	int fd;

	(void)state;
	prog.fp_len = 99;
	assert_int_equal(read_bytes("", 0, &prog, &err), -1);
	assert_string_equal(err.msg, "prog is not a filter program (0 bytes)");
	assert_int_equal(prog.fp_len, 99);
	assert_int_equal(read_bytes(deny_getppid, 7, &prog, &err), -1);
	assert_string_equal(err.msg, "prog is not a filter program (7 bytes)");
	assert_int_equal(prog.fp_len, 99);
	/* BPF_MAXINSNS is the kernel's limit and fits; one more does not. */
	assert_int_equal(read_bytes(big, sizeof(big) - sizeof(big[0]), &prog,
	    &err), 0);
	assert_int_equal(prog.fp_len, BPF_MAXINSNS);
	prog.fp_len = 99;
	assert_int_equal(read_bytes(big, sizeof(big), &prog, &err), -1);
	assert_string_equal(err.msg,
	    "prog is not a filter program (32776 bytes)");
	assert_int_equal(prog.fp_len, 99);
	assert_true((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1);
	assert_int_equal(bx_filter_read(fd, "/", &prog, &err), -1);
	assert_string_equal(err.msg, "cannot read /: Is a directory");
	assert_int_equal(prog.fp_len, 99);
	close(fd);
}

static void
test_install_denies_what_it_says(void **state)
{
	static struct bx_filter_prog prog;
	struct bx_error err;
	pid_t pid;

	(void)state;
	assert_int_equal(read_bytes(deny_getppid, sizeof(deny_getppid), &prog,
	    &err), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		if (bx_filter_install(&prog, &err) == -1)
			_exit(1);
		if (syscall(SYS_getppid) != -1 || errno != EPERM)
			_exit(2);
		if (syscall(SYS_getpid) != getpid())
			_exit(3);
		_exit(0);
	}
	expect_exit_0(pid);
	/* The parent, which installed nothing, is not filtered. */
	assert_int_equal(syscall(SYS_getppid), getppid());
}

static void
test_install_refuses_a_bad_program(void **state)
{
	/* A jump past the end, and no return: the kernel refuses it. */
	static const struct sock_filter jump_out[] = {
		BPF_JUMP(BPF_JMP | BPF_JA, 5, 0, 0),
	};
	static struct bx_filter_prog prog;
	struct bx_error err;
	pid_t pid;

	(void)state;
	assert_int_equal(read_bytes(jump_out, sizeof(jump_out), &prog, &err),
	    0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		if (bx_filter_install(&prog, &err) == 0)
			_exit(1);
		_exit(strcmp(err.msg, "cannot install the system-call filter: "
		    "Invalid argument") == 0 ? 0 : 2);
	}
	expect_exit_0(pid);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_whole_instructions),
		cmocka_unit_test(test_read_refuses_what_is_not_a_program),
		cmocka_unit_test(test_install_denies_what_it_says),
		cmocka_unit_test(test_install_refuses_a_bad_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
