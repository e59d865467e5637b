/*
 * launch.c: a jailed program's launcher (launch.h). One thread until the
 * jail is built, since the jail is forked from it; then the relay's
 * threads; the main thread waits for signals and for the program's end.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jailrun/launch.h"
#include "jailrun/relay.h"
#include "jailrun/secret.h"
#include "proto/acl.h"

/*
 * Sanitizer settings pass into the jail, for the sanitizer builds' tests.
 * Not TSAN_OPTIONS: it names a suppressions file the jail cannot see, and
 * ThreadSanitizer exits when it cannot read it; without the options it
 * still reports a race and fails the exit status.
 */
static const char *const passed_env[] = {
	"UBSAN_OPTIONS=",
};

/*
 * LeakSanitizer stops the process's threads with ptrace, which the jail's
 * filter refuses, so a sanitized program would abort at exit; its leaks
 * are checked where the tests run the same code unjailed.
 */
#define ASAN_NO_LEAKS	"detect_leaks=0"

#define LEN(a)		(sizeof(a) / sizeof((a)[0]))
#define ENV_MAX		(LEN(passed_env) + 4)

struct launch {
	const struct jail_launch	*l_how;
	struct jail_plan		 l_plan;
	struct relay			*l_relay;
	int				 l_secret;	/* a pipe, or -1 */
	int				 l_exe;
	char				 l_home_env[PATH_MAX + 16];
	char				 l_asan_env[1024];
	char				*l_env[ENV_MAX];
};

static void
say(struct launch *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(struct launch *l, const char *fmt, ...)
{
	char line[BX_ERROR_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	l->l_how->jl_log(l->l_how->jl_log_arg, line);
}

static void
make_env(struct launch *l)
{
	size_t i, n = 0;
	const char *asan;
	char **e;

	snprintf(l->l_home_env, sizeof(l->l_home_env), "BOXMAKER_HOME=%s",
	    l->l_plan.jp_home);
	l->l_env[n++] = JAIL_LAUNCH_ENV_PATH;
	l->l_env[n++] = l->l_home_env;
	if ((asan = getenv("ASAN_OPTIONS")) != NULL) {
		snprintf(l->l_asan_env, sizeof(l->l_asan_env), "ASAN_OPTIONS="
		    "%s%s" ASAN_NO_LEAKS, asan, asan[0] != '\0' ? ":" : "");
		l->l_env[n++] = l->l_asan_env;
	}
	for (e = environ; *e != NULL; e++)
		for (i = 0; i < LEN(passed_env); i++)
			if (strncmp(*e, passed_env[i],
			    strlen(passed_env[i])) == 0 && n < ENV_MAX - 1)
				l->l_env[n++] = *e;
	l->l_env[n] = NULL;
}

/* Everything before the fork: the plan, the relay, the secret's pipe. */
static int
prepare(struct launch *l, struct bx_error *err)
{
	const struct jail_launch *h = l->l_how;
	const struct jail_plan *p = &l->l_plan;
	char *secret = NULL;
	int rc;

	if (h->jl_prepare(h->jl_prepare_arg, &l->l_plan, &secret, err) == -1)
		return -1;
	rc = relay_new(h->jl_relay_name, p->jp_relay, h->jl_url,
	    p->jp_spec.js_id.ji_uid, h->jl_log, h->jl_log_arg, &l->l_relay,
	    err);
	if (rc == 0)
		rc = bx_acl_allow(p->jp_relay, p->jp_spec.js_id.ji_uid,
		    BX_ACL_READ | BX_ACL_WRITE, false, err);
	if (rc == 0 && secret != NULL)
		rc = secret_pass(secret, &l->l_secret, err);
	secret_free(secret);
	if (rc == -1)
		return -1;
	l->l_plan.jp_spec.js_pass_fd = l->l_secret;
	if ((l->l_exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1)
		return bx_fail(err, "cannot open %s's own program "
		    "(/proc/self/exe): %s", h->jl_argv[0], strerror(errno));
	make_env(l);
	return 0;
}

/* SIGTERM and SIGINT go to the program; its end ends the wait. */
static int
wait_for(struct launch *l, pid_t pid, const sigset_t *set)
{
	siginfo_t si;
	int status, sig, asked = 0;
	pid_t r;

	for (;;) {
		sig = sigtimedwait(set, &si, &(struct timespec){
		    JAIL_LAUNCH_STOP_GRACE_S, 0 });
		if (sig == SIGTERM || sig == SIGINT) {
			kill(pid, asked++ == 0 ? SIGTERM : SIGKILL);
			continue;
		}
		if (sig == -1 && errno == EAGAIN && asked > 0)
			kill(pid, SIGKILL);
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	say(l, "the jailed %s ended by signal %d", l->l_how->jl_name,
	    WTERMSIG(status));
	return -WTERMSIG(status);
}

static void
cleanup(struct launch *l)
{
	relay_free(l->l_relay);
	if (l->l_secret != -1)
		close(l->l_secret);
	if (l->l_exe != -1)
		close(l->l_exe);
}

int
jail_launch_run(const struct jail_launch *how)
{
	struct launch l;
	struct bx_error err;
	sigset_t set, old;
	pid_t pid;
	int rc = 1;

	memset(&l, 0, sizeof(l));
	l.l_how = how;
	l.l_secret = l.l_exe = -1;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (prepare(&l, &err) == -1)
		goto fail;
	if (jail_spawn(&l.l_plan.jp_spec, l.l_exe, how->jl_argv, l.l_env,
	    &pid, &err) == -1)
		goto fail;
	if (relay_start(l.l_relay, &err) == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto fail;
	}
	say(&l, "the %s runs in its jail as uid %u (pid %ld); %s is reached "
	    "through %s", how->jl_name, (unsigned)
	    l.l_plan.jp_spec.js_id.ji_uid, (long)pid, how->jl_reached,
	    l.l_plan.jp_relay);
	rc = wait_for(&l, pid, &set);
	goto out;
fail:
	say(&l, "%s", err.msg);
out:
	cleanup(&l);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
