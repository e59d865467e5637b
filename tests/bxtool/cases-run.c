/*
 * cases-run.c: bxtool run: stdout and stderr on one pipe, the exit status
 * or the signal; the working directory; exactly three environment
 * variables; /dev/null for stdin; default signals, nothing blocked and no
 * leaked descriptor; a program that cannot run; a command that leaves a
 * process behind; and a command that tries to forge bxtool's lines.
 */
#include <sys/stat.h>

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cases.h"

#define SH	"/bin/sh"

/* bxtool run [--cwd cwd] -- /bin/sh -c command, compared. */
static void
expect_sh(const char *cwd, const char *command, int flags,
    const char *want, const char *final)
{
	const char *with[] = { "run", "--cwd", cwd, "--", SH, "-c", command,
	    NULL };
	const char *without[] = { "run", "--", SH, "-c", command, NULL };
	struct spawn s;

	spawn_run(&s, cwd == NULL ? without : with, NULL, 0, flags);
	expect_bytes(&s, 0, want, strlen(want), final);
	spawn_free(&s);
}

void
test_run_output(void **state)
{
	(void)state;
	expect_sh(NULL, "printf a; printf b >&2; exit 3", 0, "ab", "exit 3");
	expect_sh(NULL, "echo one; echo two >&2; echo three", 0,
	    "one\ntwo\nthree\n", "exit 0");
	expect_sh(NULL, "exit 255", 0, "", "exit 255");
}

void
test_run_signal(void **state)
{
	(void)state;
	expect_sh(NULL, "printf x; kill -9 $$", 0, "x", "signal 9");
	expect_sh(NULL, "kill -TERM $$", 0, "", "signal 15");
}

void
test_run_cwd(void **state)
{
	char want[CASE_PATH_MAX + 2], missing[CASE_PATH_MAX];
	char final[CASE_PATH_MAX + 64];

	(void)state;
	snprintf(want, sizeof(want), "%s\n", case_dir);
	expect_sh(case_dir, "pwd", 0, want, "exit 0");
	expect_sh(NULL, "pwd", 0, "/tmp\n", "exit 0");
	snprintf(final, sizeof(final), "failed cannot change to %s: No such "
	    "file or directory", at(missing, "missing"));
	expect_sh(missing, "echo never", 0, "", final);
}

void
test_run_environment(void **state)
{
	const char *args[] = { "run", "--", "/usr/bin/env", NULL };
	static const char want[] = "PATH=/usr/local/bin:/usr/bin:/bin\n"
	    "HOME=/tmp\nLANG=C.UTF-8\n";
	struct spawn s;

	(void)state;
	assert_int_equal(setenv("BX_NOT_PASSED", "1", 1), 0);
	spawn_run(&s, args, NULL, 0, 0);
	expect_bytes(&s, 0, want, strlen(want), "exit 0");
	spawn_free(&s);
	assert_int_equal(unsetenv("BX_NOT_PASSED"), 0);
}

void
test_run_stdin(void **state)
{
	const char *args[] = { "run", "--", "/bin/cat", NULL };
	static const char input[] = "bxtool's stdin, not the command's\n";
	struct spawn s;

	(void)state;
	/* Held open: a cat that read it would wait for more, forever. */
	spawn_run(&s, args, input, strlen(input), SPAWN_HOLD_STDIN);
	expect_bytes(&s, 0, "", 0, "exit 0");
	spawn_free(&s);
	expect_sh(NULL, "readlink /proc/self/fd/0", SPAWN_HOLD_STDIN,
	    "/dev/null\n", "exit 0");
}

void
test_run_process_state(void **state)
{
	(void)state;
	/* bxtool itself was started with signals ignored and blocked. */
	expect_sh(NULL, "grep -E '^Sig(Blk|Ign)' /proc/self/status; "
	    "[ -e /proc/$$/fd/7 ] && echo fd 7 open || echo fd 7 closed; "
	    "[ /proc/$$/fd/1 -ef /proc/$$/fd/2 ] && echo one pipe",
	    SPAWN_IGNORE_SIGNALS | SPAWN_LEAK_FD,
	    "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
	    "fd 7 closed\none pipe\n", "exit 0");
}

void
test_run_cannot_run(void **state)
{
	const char *args[] = { "run", "--", NULL, "arg", NULL };
	char path[CASE_PATH_MAX], want[CASE_PATH_MAX + 64];
	struct spawn s;

	(void)state;
	args[2] = at(path, "missing");
	snprintf(want, sizeof(want), "bxtool: cannot run %s: No such file or "
	    "directory\n", path);
	spawn_run(&s, args, NULL, 0, 0);
	expect_bytes(&s, 0, want, strlen(want), "exit 127");
	spawn_free(&s);
	make_file(at(path, "not-executable"), "#!/bin/sh\n", 10, 0644);
	snprintf(want, sizeof(want), "bxtool: cannot run %s: Permission "
	    "denied\n", path);
	spawn_run(&s, args, NULL, 0, 0);
	expect_bytes(&s, 0, want, strlen(want), "exit 127");
	spawn_free(&s);
}

static pid_t
read_pid(const char *path)
{
	char *text;
	size_t len;
	long pid;

	text = read_back(path, &len);
	pid = strtol(text, NULL, 10);
	free(text);
	assert_true(pid > 1);
	return (pid_t)pid;
}

/*
 * The sleeper holds stdout open past the shell: bxtool ends when the shell
 * does, and kills and reaps the sleeper before its final line, so that
 * nothing the command left can write after that line.
 */
void
test_run_background(void **state)
{
	const char *args[] = { "run", "--", SH, "-c", NULL, NULL };
	char pidfile[CASE_PATH_MAX], command[CASE_PATH_MAX + 64];
	struct spawn s;

	(void)state;
	snprintf(command, sizeof(command), "sleep 100 & echo $! > %s; "
	    "(setsid sleep 101 &); echo started", at(pidfile, "pid"));
	args[4] = command;
	spawn_start(&s, args, NULL, 0, 0);
	spawn_wait(&s);
	assert_string_equal(s.s_stderr, "bxtool: started\n\nbxtool: exit 0\n");
	assert_int_equal(spawn_exit_code(&s), 0);
	assert_int_equal(kill(read_pid(pidfile), 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(WEXITSTATUS(system("pgrep -x -f 'sleep 101' "
	    ">/dev/null")), 1);
	spawn_drain(&s);
	assert_string_equal(s.s_stdout, "started\n");
	spawn_free(&s);
}

/*
 * A command of bxtool's uid cannot reach bxtool's descriptors through
 * /proc/<bxtool>/fd, so it cannot open fd 2 to write a status line of its
 * own. As root, bxtool runs as nobody, since root may look into any
 * process. The listing is what is refused: opening the pipe itself would
 * also be refused to nobody, for the pipe is root's, and prove nothing.
 */
void
test_run_not_dumpable(void **state)
{
	const char *args[] = { "run", "--", SH, "-c",
	    "ls /proc/$PPID/fd || exit 9", NULL };
	struct spawn s;

	(void)state;
	spawn_run(&s, args, NULL, 0, SPAWN_NOBODY);
	if (spawn_exit_code(&s) == SPAWN_CANNOT_EXEC) {
		spawn_free(&s);
		skip();
	}
	assert_string_equal(s.s_stderr, "bxtool: started\n\nbxtool: exit 9\n");
	assert_int_equal(spawn_exit_code(&s), 0);
	assert_non_null(strstr(s.s_stdout, "Permission denied"));
	spawn_free(&s);
}
