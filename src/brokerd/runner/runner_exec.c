/*
 * runner_exec.c: one runtime process, from its start (runner_spawn.c) to
 * its reap (runner_exec.h). The poll loop here is the only place a
 * sandbox's bytes enter brokerd, so every buffer it fills has its limit,
 * and every way a call can end early comes back to one kill hook.
 */
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/runner_exec.h"
#include "proto/clock.h"
#include "proto/wipe.h"

static void
close_fd(int *fd)
{
	if (*fd != -1)
		close(*fd);
	*fd = -1;
}

/* The supervisor's state between polls. */
struct watch {
	struct exec_child	*w_c;
	const struct exec_limits *w_lim;
	const struct exec_hooks	*w_hooks;
	struct exec_outcome	*w_o;
	size_t			 w_out_cap;
	size_t			 w_fed;
	bool			 w_killed;
	int64_t			 w_killed_ms;
	bool			 w_sigkilled;	/* past the grace: SIGKILL sent */
	bool			 w_exited;
	int64_t			 w_exited_ms;
	int64_t			 w_tool_ms;	/* the started line, or 0 */
	size_t			 w_scanned;	/* stderr looked at for it */
};

static void
end_early(struct watch *w, enum exec_end why)
{
	/* Once reaped, its pid may be another's: nothing more is sent. */
	if (w->w_killed || w->w_exited)
		return;
	w->w_o->eo_end = why;
	w->w_killed = true;
	w->w_killed_ms = bx_clock_mono_ms();
	if (w->w_hooks->eh_kill != NULL)
		w->w_hooks->eh_kill(w->w_hooks->eh_ctx);
	else
		kill(w->w_c->ec_pid, SIGKILL);
}

/* Reads what is there into buf (len of cap); -1 once it is at its end. */
static int
read_into(int fd, char *buf, size_t *len, size_t cap, bool *over)
{
	char sink[4096];
	ssize_t n;

	if (*len < cap)
		n = read(fd, buf + *len, cap - *len);
	else
		n = read(fd, sink, sizeof(sink));
	if (n == -1)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0)
		return -1;
	if (*len < cap)
		*len += (size_t)n;
	else
		*over = true;
	return 0;
}

/*
 * Drains a runtime's status pipe (bwrap's JSON lines): nothing in it is
 * needed, but its writer must never block on it or meet a closed end.
 */
static void
read_status(struct watch *w)
{
	char buf[512];
	ssize_t n;

	n = read(w->w_c->ec_status, buf, sizeof(buf));
	if (n == 0 || (n == -1 && errno != EINTR && errno != EAGAIN))
		close_fd(&w->w_c->ec_status);
}

static void
feed_stdin(struct watch *w)
{
	const struct exec_limits *l = w->w_lim;
	ssize_t n;

	n = write(w->w_c->ec_stdin, l->el_stdin + w->w_fed,
	    l->el_stdin_len - w->w_fed);
	if (n > 0)
		w->w_fed += (size_t)n;
	if ((n == -1 && errno != EINTR && errno != EAGAIN) ||
	    w->w_fed == l->el_stdin_len)
		close_fd(&w->w_c->ec_stdin);
}

/* When the call is out of time: the start's bound, or the tool's. */
static int64_t
time_up(const struct watch *w)
{
	const struct exec_limits *l = w->w_lim;

	if (l->el_start_timeout_ms > 0 && !w->w_o->eo_started)
		return w->w_c->ec_started_ms + l->el_start_timeout_ms;
	return (w->w_o->eo_started ? w->w_tool_ms : w->w_c->ec_started_ms) +
	    l->el_timeout_ms;
}

/* Whether stderr now holds EXEC_STARTED_LINE: its clock starts then. */
static void
look_for_start(struct watch *w)
{
	struct exec_outcome *o = w->w_o;

	if (w->w_lim->el_start_timeout_ms == 0 || o->eo_started)
		return;
	if (exec_find_started(o->eo_err, o->eo_err_len, w->w_scanned)) {
		o->eo_started = true;
		w->w_tool_ms = bx_clock_mono_ms();
	}
	w->w_scanned = o->eo_err_len;
}

/* The wait of one poll: until the next deadline that applies. */
static int
next_wait(const struct watch *w, int64_t now)
{
	int64_t until;

	if (w->w_exited)
		until = w->w_exited_ms + EXEC_DRAIN_MS;
	else if (w->w_sigkilled)
		return 1000;	/* only the pidfd can end this wait */
	else if (w->w_killed)
		until = w->w_killed_ms + EXEC_KILL_GRACE_MS;
	else
		until = time_up(w);
	return until <= now ? 0 : until - now > 1000 ? 1000 : (int)(until - now);
}

static void
on_deadline(struct watch *w, int64_t now)
{
	if (w->w_exited)
		return;
	if (!w->w_killed && now >= time_up(w))
		end_early(w, EXEC_TIMED_OUT);
	else if (w->w_killed && !w->w_sigkilled &&
	    now >= w->w_killed_ms + EXEC_KILL_GRACE_MS) {
		kill(w->w_c->ec_pid, SIGKILL);
		w->w_sigkilled = true;
	}
}

static void
on_output(struct watch *w, short rev)
{
	struct exec_outcome *o = w->w_o;
	bool over = false;

	if (!(rev & (POLLIN | POLLHUP | POLLERR)))
		return;
	if (read_into(w->w_c->ec_stdout, o->eo_out, &o->eo_out_len,
	    w->w_out_cap, &over) == -1)
		close_fd(&w->w_c->ec_stdout);
	if (o->eo_out_len > w->w_lim->el_output_bytes)
		end_early(w, EXEC_CAPPED);
	if (w->w_killed && o->eo_out_len >= w->w_out_cap)
		close_fd(&w->w_c->ec_stdout);
}

static bool
child_gone(struct watch *w)
{
	int status;

	if (w->w_exited)
		return true;
	if (waitpid(w->w_c->ec_pid, &status, WNOHANG) != w->w_c->ec_pid)
		return false;
	w->w_o->eo_wait_status = status;
	w->w_exited = true;
	w->w_exited_ms = bx_clock_mono_ms();
	return true;
}

/* Handles what one poll found on the call's descriptors. */
static void
on_events(struct watch *w, const struct pollfd *p)
{
	struct exec_child *c = w->w_c;

	on_output(w, p[0].revents);
	if (p[1].revents & (POLLIN | POLLHUP | POLLERR) &&
	    read_into(c->ec_stderr, w->w_o->eo_err, &w->w_o->eo_err_len,
	    EXEC_ERR_MAX, &w->w_o->eo_err_lost) == -1)
		close_fd(&c->ec_stderr);
	look_for_start(w);
	if (p[2].revents & (POLLIN | POLLHUP | POLLERR))
		read_status(w);
	if (p[3].revents & (POLLOUT | POLLERR | POLLHUP))
		feed_stdin(w);
	if (p[4].revents & (POLLHUP | POLLERR | POLLNVAL))
		end_early(w, EXEC_HUNG_UP);
	if (p[5].revents != 0)
		(void)child_gone(w);
	if (p[6].revents != 0)
		w->w_hooks->eh_on_watch(w->w_hooks->eh_watch_ctx);
}

/* One poll over every descriptor still open. */
static int
poll_once(struct watch *w, struct bx_error *err)
{
	struct exec_child *c = w->w_c;
	const struct exec_hooks *h = w->w_hooks;
	struct pollfd p[7];
	int64_t now = bx_clock_mono_ms();
	int n;

	p[0] = (struct pollfd){ c->ec_stdout, POLLIN, 0 };
	p[1] = (struct pollfd){ c->ec_stderr, POLLIN, 0 };
	p[2] = (struct pollfd){ c->ec_status, POLLIN, 0 };
	p[3] = (struct pollfd){ c->ec_stdin, POLLOUT, 0 };
	p[4] = (struct pollfd){ w->w_killed ? -1 : w->w_lim->el_hangup_fd,
	    0, 0 };
	p[5] = (struct pollfd){ w->w_exited ? -1 : c->ec_pidfd, POLLIN, 0 };
	p[6] = (struct pollfd){ h->eh_on_watch == NULL ? -1 : h->eh_watch_fd,
	    POLLIN, 0 };
	n = poll(p, 7, next_wait(w, now));
	if (n == -1 && errno != EINTR)
		return bx_fail(err, "runner: poll: %s", strerror(errno));
	/* What arrived is read first: a started line may move the deadline. */
	if (n > 0)
		on_events(w, p);
	on_deadline(w, bx_clock_mono_ms());
	return 0;
}

static bool
pipes_open(const struct exec_child *c)
{
	return c->ec_stdout != -1 || c->ec_stderr != -1 || c->ec_status != -1;
}

int
exec_supervise(struct exec_child *c, const struct exec_limits *lim,
    const struct exec_hooks *hooks, struct exec_outcome *ret,
    struct bx_error *err)
{
	struct exec_outcome o;
	struct watch w;
	int status = 0, rc = -1;

	memset(&o, 0, sizeof(o));
	memset(&w, 0, sizeof(w));
	w.w_c = c;
	w.w_lim = lim;
	w.w_hooks = hooks;
	w.w_o = &o;
	w.w_out_cap = lim->el_output_bytes + 1;
	o.eo_end = EXEC_EXITED;
	if ((o.eo_out = malloc(w.w_out_cap)) == NULL ||
	    (o.eo_err = malloc(EXEC_ERR_MAX + 1)) == NULL) {
		bx_fail(err, "runner: out of memory");
		end_early(&w, EXEC_EXITED);
		goto reap;
	}
	if (lim->el_stdin == NULL || lim->el_stdin_len == 0)
		close_fd(&c->ec_stdin);
	while (pipes_open(c) || !child_gone(&w)) {
		if (w.w_exited && bx_clock_mono_ms() >= w.w_exited_ms + EXEC_DRAIN_MS)
			break;
		if (poll_once(&w, err) == -1) {
			end_early(&w, EXEC_EXITED);
			goto reap;
		}
		if (c->ec_pidfd == -1)
			(void)child_gone(&w);
	}
	rc = 0;
reap:
	if (!w.w_exited) {
		if (rc == -1)
			kill(c->ec_pid, SIGKILL);
		while (waitpid(c->ec_pid, &status, 0) == -1 && errno == EINTR)
			continue;
		o.eo_wait_status = status;
	}
	exec_live_lock();
	exec_live_swap(c->ec_pid, 0);
	exec_live_unlock();
	close_fd(&c->ec_stdin);
	close_fd(&c->ec_stdout);
	close_fd(&c->ec_stderr);
	close_fd(&c->ec_status);
	close_fd(&c->ec_pidfd);
	o.eo_elapsed_ms = bx_clock_mono_ms() - c->ec_started_ms;
	if (rc == 0) {
		o.eo_err[o.eo_err_len] = '\0';
		*ret = o;
	} else
		exec_outcome_clear(&o);
	return rc;
}

void
exec_outcome_clear(struct exec_outcome *o)
{
	if (o == NULL)
		return;
	/* A call's output may echo a secret it sent (runner_redact.h). */
	bx_wipe_free(o->eo_out, o->eo_out_len);
	bx_wipe_free(o->eo_err, o->eo_err_len);
	memset(o, 0, sizeof(*o));
}

int
exec_command(char *const argv[], int64_t timeout_ms, size_t max,
    char **ret_out, struct bx_error *err)
{
	struct exec_spawn sp;
	struct exec_child c;
	struct exec_limits lim;
	struct exec_hooks hooks;
	struct exec_outcome o;
	int status;

	memset(&sp, 0, sizeof(sp));
	memset(&lim, 0, sizeof(lim));
	memset(&hooks, 0, sizeof(hooks));
	sp.es_argv = argv;
	sp.es_status_read = -1;
	lim.el_timeout_ms = timeout_ms;
	lim.el_output_bytes = ret_out != NULL ? max : EXEC_DISCARD_MAX;
	lim.el_hangup_fd = -1;
	if (exec_start(&sp, &c, err) == -1 ||
	    exec_supervise(&c, &lim, &hooks, &o, err) == -1)
		return -1;
	if (o.eo_end == EXEC_TIMED_OUT) {
		exec_outcome_clear(&o);
		return bx_fail(err, "%s did not end within %lld ms", argv[0],
		    (long long)timeout_ms);
	}
	if (ret_out != NULL) {
		o.eo_out[o.eo_out_len > max ? max : o.eo_out_len] = '\0';
		*ret_out = o.eo_out;
		o.eo_out = NULL;
	}
	status = o.eo_wait_status;
	exec_outcome_clear(&o);
	return status;
}
