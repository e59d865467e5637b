/*
 * launcher.c: loopd outside its jail (launcher.h). One thread until the
 * jail is built, since the jail is forked from it; then the relay's
 * threads; the main thread waits for signals and for the turn loop's end.
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

#include "jail/jail.h"
#include "loopd/api_key.h"
#include "loopd/jail_plan.h"
#include "loopd/launcher.h"
#include "loopd/relay.h"
#include "proto/acl.h"
#include "proto/writefile.h"

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
 * filter refuses, so a sanitized turn loop would abort at exit; its leaks
 * are checked where the tests run the same code unjailed (tests/loopd/).
 */
#define ASAN_NO_LEAKS	"detect_leaks=0"

#define LEN(a)		(sizeof(a) / sizeof((a)[0]))
#define ENV_MAX		(LEN(passed_env) + 4)

struct launch {
	const struct loop_config	*l_cfg;
	const char			*l_config_path;
	void				(*l_log)(void *, const char *);
	void				*l_log_arg;
	struct jail_plan		 l_plan;
	struct relay			*l_relay;
	int				 l_key[2];	/* a pipe, or -1 */
	int				 l_exe;
	char				 l_home_env[PATH_MAX + 16];
	char				 l_owner[16];
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
	l->l_log(l->l_log_arg, line);
}

/* The key goes through a pipe: it never touches a file the jail sees. */
static int
pass_key(struct launch *l, struct bx_error *err)
{
	char *key = NULL;
	int rc = -1;

	if (l->l_cfg->lc_api_key_file == NULL)
		return 0;
	if (api_key_load(l->l_cfg->lc_api_key_file, &key, err) == -1)
		return -1;
	if (pipe2(l->l_key, O_CLOEXEC) == -1) {
		bx_fail(err, "pipe: %s", strerror(errno));
		goto out;
	}
	if (bx_write_all(l->l_key[1], key, strlen(key)) == -1) {
		bx_fail(err, "cannot pass the model's key: %s",
		    strerror(errno));
		goto out;
	}
	close(l->l_key[1]);
	l->l_key[1] = -1;
	l->l_plan.jp_spec.js_pass_fd = l->l_key[0];
	rc = 0;
out:
	api_key_free(key);
	return rc;
}

static void
make_env(struct launch *l)
{
	size_t i, n = 0;
	const char *asan;
	char **e;

	snprintf(l->l_home_env, sizeof(l->l_home_env), "BOXMAKER_HOME=%s",
	    l->l_cfg->lc_home);
	l->l_env[n++] = LAUNCHER_ENV_PATH;
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

/* Everything before the fork: the plan, its ACLs, the relay, the key. */
static int
prepare(struct launch *l, struct bx_error *err)
{
	const struct jail_plan *p = &l->l_plan;

	if (jail_plan_make(l->l_cfg, l->l_config_path, &l->l_plan, err) ==
	    -1 || jail_plan_grant(p, err) == -1)
		return -1;
	if (relay_new(p->jp_relay, l->l_cfg->lc_model_url,
	    p->jp_spec.js_id.ji_uid, l->l_log, l->l_log_arg, &l->l_relay,
	    err) == -1)
		return -1;
	if (bx_acl_allow(p->jp_relay, p->jp_spec.js_id.ji_uid, BX_ACL_READ |
	    BX_ACL_WRITE, false, err) == -1)
		return -1;
	if (pass_key(l, err) == -1)
		return -1;
	if ((l->l_exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1)
		return bx_fail(err, "cannot open loopd's own program "
		    "(/proc/self/exe): %s", strerror(errno));
	snprintf(l->l_owner, sizeof(l->l_owner), "%u", (unsigned)getuid());
	make_env(l);
	return 0;
}

/* SIGTERM and SIGINT go to the turn loop; its end ends the wait. */
static int
wait_for(struct launch *l, pid_t pid, const sigset_t *set)
{
	siginfo_t si;
	int status, sig, asked = 0;
	pid_t r;

	for (;;) {
		sig = sigtimedwait(set, &si, &(struct timespec){
		    LAUNCHER_STOP_GRACE_S, 0 });
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
	say(l, "the jailed turn loop ended by signal %d", WTERMSIG(status));
	return -WTERMSIG(status);
}

static void
cleanup(struct launch *l)
{
	relay_free(l->l_relay);
	if (l->l_key[0] != -1)
		close(l->l_key[0]);
	if (l->l_key[1] != -1)
		close(l->l_key[1]);
	if (l->l_exe != -1)
		close(l->l_exe);
}

int
launcher_run(const struct loop_config *cfg, const char *config_path,
    void (*log)(void *, const char *), void *log_arg)
{
	char *argv[] = { "loopd", "serve", "--config", (char *)config_path,
	    "--in-jail", NULL, NULL };
	struct launch l;
	struct bx_error err;
	sigset_t set, old;
	pid_t pid;
	int rc = 1;

	memset(&l, 0, sizeof(l));
	l.l_cfg = cfg;
	l.l_config_path = config_path;
	l.l_log = log;
	l.l_log_arg = log_arg;
	l.l_key[0] = l.l_key[1] = l.l_exe = -1;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (prepare(&l, &err) == -1)
		goto fail;
	argv[5] = l.l_owner;
	if (jail_spawn(&l.l_plan.jp_spec, l.l_exe, argv, l.l_env, &pid,
	    &err) == -1)
		goto fail;
	if (relay_start(l.l_relay, &err) == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto fail;
	}
	say(&l, "the turn loop runs in its jail as uid %u (pid %ld); the "
	    "model is reached through %s", (unsigned)
	    l.l_plan.jp_spec.js_id.ji_uid, (long)pid, l.l_plan.jp_relay);
	rc = wait_for(&l, pid, &set);
	goto out;
fail:
	say(&l, "%s", err.msg);
out:
	cleanup(&l);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
