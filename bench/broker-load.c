/*
 * broker-load.c: the decision round trip over broker.sock, as loopd sees
 * it, under concurrency and at scale. It starts the real brokerd on a
 * temporary home on a real disk (never tmpfs: the floor is an fdatasync)
 * and measures, in one run:
 *
 *	the floor: one 400-byte line appended and fdatasync'd on the same
 *	file system, median and p99;
 *	a tool_request denied with no_grant (one Decision record) and one
 *	allowed (M3a's production runtime: Decision, state file, Result),
 *	with 1, 4 and 16 concurrent clients, each its own session, against
 *	10 and 1,000 grant files: median and p99 latency of the round trip
 *	(connect to the answer's last byte read), calls per second;
 *	brokerd's CPU time per call (all its threads, the kernel's work
 *	for its syscalls included) and the clients' (this process's, while
 *	they run), and brokerd's peak RSS (VmHWM) per grant set.
 *
 * The machine may be shared, and a disk's fsync time moves with what else
 * runs, so the floor is measured in slices interleaved with the slices of
 * the single-client, 10-grant denial cell: the first ratio compares two
 * figures taken under the same conditions. Each floor append runs on a
 * thread of its own, timed from its write to its fdatasync's return: on a
 * loaded machine a thread that syncs back to back waits for a scheduler
 * tick after each sync, which measures the scheduler, not the disk. That
 * back-to-back figure is printed beside it. Then it checks that the audit
 * log holds exactly one record per denied call and two per allowed one,
 * and prints the two ratios the targets are about (bench/README.md).
 *
 *	bench-broker-load [--brokerd PATH] [--dir DIR] [--seconds S]
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "brokerd/runner/runner.h"
#include "proto/frame.h"
#include "proto/message.h"
#include "timing.h"

#ifndef BENCH_BROKERD
#define BENCH_BROKERD		"build/brokerd"
#endif
#ifndef BENCH_BXCTL
#define BENCH_BXCTL		"build/bxctl"
#endif
/* The prune figure: live grants, and expired ones approve --for wrote. */
#define BENCH_PRUNE_LIVE	10
#define BENCH_PRUNE_EXPIRED	300
#define BENCH_DIR		"/var/tmp"
/* Measured time per cell, and the warm-up before each window of it. */
#define BENCH_SECONDS		1.5
#define BENCH_WARMUP_NS		50000000LL
/* The paired cell runs in this many windows, each after a floor slice. */
#define BENCH_SLICES		10
#define BENCH_FLOOR_RUNS	1000
/* The back-to-back appends in one thread, printed for comparison. */
#define BENCH_FLOOR_SAME_RUNS	200
#define BENCH_LINE		400
#define BENCH_MAX_CLIENTS	16
/* Latency samples one client keeps per cell. */
#define BENCH_MAX_SAMPLES	(1 << 20)
/* How long brokerd gets to start, and to stop, and one call to answer. */
#define BENCH_START_MS		10000
#define BENCH_STOP_MS		10000
#define BENCH_CALL_MS		30000

enum kind { KIND_DENIED, KIND_ALLOWED, KIND_MAX };

static const char *kind_names[KIND_MAX] = { "denied", "allowed" };
static const char *kind_paths[KIND_MAX] = {
	"{\"path\":\"/bench/denied/notes.md\"}",
	"{\"path\":\"/bench/allowed/notes.md\"}",
};
static const int grant_counts[] = { 10, 1000 };
static const int client_counts[] = { 1, 4, 16 };
#define NGRANTS		(sizeof(grant_counts) / sizeof(grant_counts[0]))
#define NCLIENTS	(sizeof(client_counts) / sizeof(client_counts[0]))

struct result {
	size_t	r_calls;
	double	r_median_us;
	double	r_p99_us;
	double	r_cps;
	double	r_cpu_us;	/* brokerd's, per answered call */
	double	r_client_us;	/* the clients', per answered call */
};

/* The floor's file and its two sets of figures. */
struct floor {
	int	 f_fd;
	char	 f_line[BENCH_LINE];
	int64_t	 f_ns;		/* the last fresh thread's time */
	int	 f_errno;
	struct result	f_fresh;
	struct result	f_same;
};

/* Latencies in ns and the time they were measured over. */
struct pool {
	int64_t	*p_v;
	size_t	 p_n;
	size_t	 p_cap;
	double	 p_seconds;
	size_t	 p_done;	/* every answered call, warm-up included */
	int64_t	 p_client_ns;	/* this process's CPU time in the windows */
};

struct daemon {
	char	d_home[PATH_MAX];
	char	d_sock[PATH_MAX];
	pid_t	d_pid;
	long	d_hwm_kib;
	size_t	d_records;	/* the audit records the calls should have written */
};

struct client {
	const struct daemon	*cl_d;
	enum kind		 cl_kind;
	char			 cl_session[64];
	int64_t			 cl_begin;	/* measured window, monotonic ns */
	int64_t			 cl_end;
	pthread_barrier_t	*cl_start;
	int64_t			*cl_samples;
	size_t			 cl_nsamples;
	size_t			 cl_done;	/* every answered call */
	char			 cl_error[BX_ERROR_MAX];
};

static const char *brokerd_path = BENCH_BROKERD;
static const char *bxctl_path = BENCH_BXCTL;
static double seconds = BENCH_SECONDS;
static atomic_ulong call_counter;

static void
pool_add(struct pool *p, int64_t v)
{
	int64_t *nv;
	size_t cap;

	if (p->p_n == p->p_cap) {
		cap = p->p_cap == 0 ? 1024 : 2 * p->p_cap;
		if ((nv = realloc(p->p_v, cap * sizeof(*nv))) == NULL) {
			fprintf(stderr, "bench-broker-load: out of memory\n");
			exit(1);
		}
		p->p_v = nv;
		p->p_cap = cap;
	}
	p->p_v[p->p_n++] = v;
}

/* The pool's figures; calls per second over the time measured. */
static void
pool_result(struct pool *p, struct result *r)
{
	r->r_calls = p->p_n;
	bench_percentiles(p->p_v, p->p_n, &r->r_median_us, &r->r_p99_us);
	r->r_cps = p->p_seconds > 0 ? p->p_n / p->p_seconds : 0;
	free(p->p_v);
	memset(p, 0, sizeof(*p));
}

/* One 400-byte append and its fdatasync; its time in f_ns. */
static void *
floor_one(void *arg)
{
	struct floor *f = arg;
	int64_t t = bench_now_ns();

	if (write(f->f_fd, f->f_line, sizeof(f->f_line)) !=
	    (ssize_t)sizeof(f->f_line) || fdatasync(f->f_fd) == -1)
		f->f_errno = errno != 0 ? errno : EIO;
	f->f_ns = bench_now_ns() - t;
	return NULL;
}

/* A slice of the floor: appends on fresh threads, then back to back. */
static int
floor_slice(struct floor *f, struct pool *fresh, struct pool *same)
{
	pthread_t t;
	int i;

	for (i = 0; i < BENCH_FLOOR_RUNS / BENCH_SLICES && f->f_errno == 0;
	    i++) {
		if (pthread_create(&t, NULL, floor_one, f) != 0) {
			f->f_errno = EAGAIN;
			break;
		}
		pthread_join(t, NULL);
		pool_add(fresh, f->f_ns);
	}
	for (i = 0; i < BENCH_FLOOR_SAME_RUNS / BENCH_SLICES &&
	    f->f_errno == 0; i++) {
		floor_one(f);
		pool_add(same, f->f_ns);
	}
	if (f->f_errno == 0)
		return 0;
	fprintf(stderr, "bench-broker-load: floor: %s\n",
	    strerror(f->f_errno));
	return -1;
}

/*
 * n grant files: grant-0000 allows read_file under /bench/allowed; the
 * rest, a quarter per tool and modes in turn, cover other directories and
 * hosts, so /bench/denied is no_grant after every one has been read.
 */
static int
write_grants(const char *dir, int n)
{
	static const char *tools[] = { "read_file", "write_file", "shell",
	    "http_fetch" };
	static const char *modes[] = { "auto", "ask", "deny" };
	char path[PATH_MAX];
	FILE *f;
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/grant-%04d.toml", dir, i);
		if ((f = fopen(path, "we")) == NULL)
			return -1;
		fprintf(f, "tool = \"%s\"\nmode = \"%s\"\nmax_taint = "
		    "\"secret\"\nresult_class = \"private\"\nexpires = "
		    "\"2099-01-01T00:00:00.000Z\"\n\n[constraints]\n",
		    i == 0 ? "read_file" : tools[i % 4],
		    i == 0 ? "auto" : modes[i % 3]);
		/* http_fetch takes hosts; every other shell grant has no paths. */
		if (i == 0)
			fprintf(f, "paths = [\"/bench/allowed\"]\n");
		else if (i % 4 == 3)
			fprintf(f, "hosts = [\"h%d.example.com\", "
			    "\"*.h%d.example.org\"]\n", i, i);
		else if (i % 8 != 6)
			fprintf(f, "paths = [\"/data/g%d\", \"/srv/g%d/a\"]\n",
			    i, i);
		if (fclose(f) != 0)
			return -1;
	}
	return 0;
}

/*
 * n expired grants as `bxctl approve --for` writes them (its comment
 * first, ids approved-*), each for a file of its own, expired in 2020:
 * what a year of approving a few reads for an hour leaves behind.
 */
static int
write_expired(const char *dir, int n)
{
	char path[PATH_MAX];
	FILE *f;
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/approved-read-file-%d.toml",
		    dir, 1000 + i);
		if ((f = fopen(path, "we")) == NULL)
			return -1;
		fprintf(f, "# Written by bxctl approve %d --for: approval %d, "
		    "asked by grant notes.\n# It lets the same call through "
		    "without asking until it expires.\ntool = \"read_file\"\n"
		    "mode = \"auto\"\nmax_taint = \"private\"\nresult_class = "
		    "\"private\"\nuntrusted = false\nexpires = "
		    "\"2020-01-01T00:00:00.000Z\"\n\n[constraints]\npaths = "
		    "[\"/home/kyle/notes/n%d.md\"]\n", 1000 + i, 1000 + i, i);
		if (fclose(f) != 0)
			return -1;
	}
	return 0;
}

/* The home, its grants and brokerd.toml, for n grants. */
static int
make_home(const char *dir, int n, struct daemon *d, char *config, size_t len)
{
	char grants[PATH_MAX];
	FILE *f;

	snprintf(d->d_home, sizeof(d->d_home), "%s/g%d", dir, n);
	snprintf(grants, sizeof(grants), "%s/grants", d->d_home);
	snprintf(d->d_sock, sizeof(d->d_sock), "%s/broker.sock", d->d_home);
	snprintf(config, len, "%s/brokerd.toml", d->d_home);
	if (mkdir(d->d_home, 0700) == -1 || mkdir(grants, 0700) == -1 ||
	    write_grants(grants, n) == -1)
		return -1;
	if ((f = fopen(config, "we")) == NULL)
		return -1;
	/*
	 * M3a's refusing runtime: an allowed call is then the decision path
	 * and its records alone (bench-runner-call times the sandboxes).
	 */
	fprintf(f, "[paths]\nhome = \"%s\"\ngrants = \"%s\"\n\n[sockets]\n"
	    "broker = \"%s\"\nadmin = \"%s/admin.sock\"\n\n[runner]\n"
	    "kind = \"refuse\"\n", d->d_home, grants, d->d_sock, d->d_home);
	return fclose(f);
}

/* Starts brokerd serve, its stderr in <home>/brokerd.log; waits for broker.sock. */
static int
daemon_start(struct daemon *d, const char *config)
{
	char log[PATH_MAX];
	int64_t deadline = bench_now_ns() + BENCH_START_MS * 1000000LL;
	int fd, status;

	snprintf(log, sizeof(log), "%s/brokerd.log", d->d_home);
	if ((d->d_pid = fork()) == -1)
		return -1;
	if (d->d_pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd == -1 || dup2(fd, STDERR_FILENO) == -1)
			_exit(127);
		execl(brokerd_path, "brokerd", "serve", "--config", config,
		    (char *)NULL);
		fprintf(stderr, "exec %s: %s\n", brokerd_path, strerror(errno));
		_exit(127);
	}
	while (bench_now_ns() < deadline) {
		if ((fd = bench_dial(d->d_sock)) != -1) {
			close(fd);
			return 0;
		}
		if (waitpid(d->d_pid, &status, WNOHANG) == d->d_pid) {
			fprintf(stderr, "bench-broker-load: brokerd exited "
			    "at startup; see %s\n", log);
			d->d_pid = -1;
			return -1;
		}
		usleep(10000);
	}
	fprintf(stderr, "bench-broker-load: brokerd did not listen on %s\n",
	    d->d_sock);
	return -1;
}

/* brokerd's peak resident set, from /proc/PID/status. */
static long
daemon_hwm(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* This process's CPU time so far in ns, every thread. */
static int64_t
self_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* SIGTERM, and brokerd must stop cleanly (exit 0) in time. */
static int
daemon_stop(struct daemon *d)
{
	int64_t deadline = bench_now_ns() + BENCH_STOP_MS * 1000000LL;
	int status;

	if (d->d_pid <= 0)
		return -1;
	kill(d->d_pid, SIGTERM);
	while (bench_now_ns() < deadline) {
		if (waitpid(d->d_pid, &status, WNOHANG) == d->d_pid) {
			d->d_pid = -1;
			return WIFEXITED(status) && WEXITSTATUS(status) == 0 ?
			    0 : -1;
		}
		usleep(10000);
	}
	kill(d->d_pid, SIGKILL);
	waitpid(d->d_pid, &status, 0);
	d->d_pid = -1;
	return -1;
}

/* Lines in the .jsonl files of <home>/audit: one per record. */
static long
audit_lines(const char *home)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], buf[65536];
	struct dirent *e;
	long lines = 0;
	ssize_t n, i;
	DIR *dp;
	int fd;

	snprintf(dir, sizeof(dir), "%s/audit", home);
	if ((dp = opendir(dir)) == NULL)
		return -1;
	while ((e = readdir(dp)) != NULL) {
		if (strstr(e->d_name, ".jsonl") == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			for (i = 0; i < n; i++)
				lines += buf[i] == '\n';
		close(fd);
	}
	closedir(dp);
	return lines;
}

/* The answer line of cl's call callid is the expected one: 0, else -1. */
static int
check_answer(const struct client *cl, const char *callid, const char *line,
    size_t len, struct bx_error *err)
{
	const struct bx_tool_response *r;
	struct bx_msg *ans;
	int rc = -1;

	if (bx_msg_decode(line, len, &ans, err) == -1)
		return -1;
	r = &ans->tool_response;
	if (ans->kind != BX_MSG_TOOL_RESPONSE || !bx_msg_is_final(ans) ||
	    (cl->cl_kind == KIND_DENIED && (r->status != BX_STATUS_DENIED ||
	    r->reason != BX_DENY_NO_GRANT)) ||
	    (cl->cl_kind == KIND_ALLOWED && (r->status != BX_STATUS_FAILED ||
	    strcmp(r->message, RUNNER_REFUSE_MESSAGE) != 0)))
		bx_fail(err, "call %s: not the expected answer: %.*s", callid,
		    (int)len, line);
	else
		rc = 0;
	bx_msg_free(ans);
	return rc;
}

/*
 * One tool_request on its own connection; 0 if the answer is the expected
 * one. Its round trip, from connect to the answer's last byte, goes to
 * *ret_ns: the request is encoded before and the answer checked after,
 * since that is the client's work, not the broker's.
 */
static int
call_once(struct client *cl, int64_t *ret_ns, struct bx_error *err)
{
	struct bx_frame_reader rd;
	struct bx_msg *req;
	const char *line;
	char callid[32], *text = NULL;
	size_t len, text_len;
	int64_t t0;
	int fd, rc = -1;

	snprintf(callid, sizeof(callid), "c%lu",
	    atomic_fetch_add(&call_counter, 1));
	if ((req = bx_msg_tool_request(cl->cl_session, callid, "read_file",
	    kind_paths[cl->cl_kind])) == NULL)
		return bx_fail(err, "call %s: out of memory", callid);
	if (bx_msg_encode(req, &text, &text_len, err) == -1) {
		bx_msg_free(req);
		return -1;
	}
	bx_msg_free(req);
	t0 = bench_now_ns();
	if ((fd = bench_dial(cl->cl_d->d_sock)) == -1) {
		free(text);
		return bx_fail(err, "connect %s: %s", cl->cl_d->d_sock,
		    strerror(errno));
	}
	bx_frame_reader_init(&rd, fd);
	if (bx_frame_write(fd, text, text_len, BENCH_CALL_MS, err) !=
	    BX_FRAME_OK || bx_frame_read(&rd, BENCH_CALL_MS, &line, &len,
	    err) != BX_FRAME_OK)
		goto out;
	*ret_ns = bench_now_ns() - t0;
	rc = check_answer(cl, callid, line, len, err);
out:
	free(text);
	bx_frame_reader_free(&rd);
	close(fd);
	return rc;
}

/* A client: calls back to back until the window ends, timing those inside it. */
static void *
client_run(void *arg)
{
	struct client *cl = arg;
	struct bx_error err;
	int64_t t0, rtt = 0;

	pthread_barrier_wait(cl->cl_start);
	for (;;) {
		t0 = bench_now_ns();
		if (t0 >= cl->cl_end)
			break;
		if (call_once(cl, &rtt, &err) == -1) {
			snprintf(cl->cl_error, sizeof(cl->cl_error), "%s",
			    err.msg);
			break;
		}
		cl->cl_done++;
		if (t0 >= cl->cl_begin && t0 + rtt <= cl->cl_end &&
		    cl->cl_nsamples < BENCH_MAX_SAMPLES)
			cl->cl_samples[cl->cl_nsamples++] = rtt;
	}
	return NULL;
}

/* n clients of kind k against d for one window; their latencies go to p. */
static int
cell_window(struct daemon *d, int grants, enum kind k, int n, double window,
    struct pool *p)
{
	struct client cl[BENCH_MAX_CLIENTS];
	pthread_t t[BENCH_MAX_CLIENTS];
	pthread_barrier_t start;
	int64_t begin;
	bool failed = false;
	size_t j;
	int i;

	memset(cl, 0, sizeof(cl));
	p->p_client_ns -= self_cpu_ns();
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	begin = bench_now_ns() + BENCH_WARMUP_NS;
	for (i = 0; i < n; i++) {
		cl[i].cl_d = d;
		cl[i].cl_kind = k;
		snprintf(cl[i].cl_session, sizeof(cl[i].cl_session),
		    "bench-%d-%s-%d-%d", grants, kind_names[k], n, i);
		cl[i].cl_begin = begin;
		cl[i].cl_end = begin + (int64_t)(window * 1e9);
		cl[i].cl_start = &start;
		cl[i].cl_samples = malloc(BENCH_MAX_SAMPLES *
		    sizeof(*cl[i].cl_samples));
		if (cl[i].cl_samples == NULL ||
		    pthread_create(&t[i], NULL, client_run, &cl[i]) != 0) {
			fprintf(stderr, "bench-broker-load: cannot start "
			    "client %d\n", i);
			exit(1);
		}
	}
	pthread_barrier_wait(&start);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	p->p_client_ns += self_cpu_ns();
	for (i = 0; i < n; i++) {
		if (cl[i].cl_error[0] != '\0' && !failed) {
			fprintf(stderr, "bench-broker-load: %d grants, %s, "
			    "client %d: %s\n", grants, kind_names[k], i,
			    cl[i].cl_error);
			failed = true;
		}
		d->d_records += cl[i].cl_done * (k == KIND_DENIED ? 1 : 2);
		p->p_done += cl[i].cl_done;
		for (j = 0; j < cl[i].cl_nsamples; j++)
			pool_add(p, cl[i].cl_samples[j]);
		free(cl[i].cl_samples);
	}
	p->p_seconds += window;
	return failed ? -1 : 0;
}

/*
 * One cell. The single-client cell of the first grant set is run in
 * slices, each after a slice of the floor (f, else NULL), so that both are
 * measured under the same load; every other cell runs in one window.
 */
static int
cell_run(struct daemon *d, int grants, enum kind k, int n, struct floor *f,
    struct result *r)
{
	struct pool p = { 0 }, fresh = { 0 }, same = { 0 };
	int64_t cpu0, cpu1;
	int i, slices = f != NULL ? BENCH_SLICES : 1;

	cpu0 = bench_cpu_ns(d->d_pid);
	for (i = 0; i < slices; i++) {
		if (f != NULL && floor_slice(f, &fresh, &same) == -1)
			goto fail;
		if (cell_window(d, grants, k, n, seconds / slices, &p) == -1)
			goto fail;
	}
	if (p.p_n == 0) {
		fprintf(stderr, "bench-broker-load: %d grants, %s, %d "
		    "clients: no call finished in the window\n", grants,
		    kind_names[k], n);
		goto fail;
	}
	cpu1 = bench_cpu_ns(d->d_pid);
	r->r_cpu_us = cpu0 == -1 || cpu1 == -1 ? 0 :
	    (cpu1 - cpu0) / 1000.0 / p.p_done;
	r->r_client_us = p.p_client_ns / 1000.0 / p.p_done;
	pool_result(&p, r);
	if (f != NULL) {
		pool_result(&fresh, &f->f_fresh);
		pool_result(&same, &f->f_same);
	}
	return 0;
fail:
	free(p.p_v);
	free(fresh.p_v);
	free(same.p_v);
	return -1;
}

/* The *.toml files in dir. */
static int
count_grant_files(const char *dir)
{
	struct dirent *e;
	DIR *dp;
	size_t len;
	int n = 0;

	if ((dp = opendir(dir)) == NULL)
		return -1;
	while ((e = readdir(dp)) != NULL)
		if ((len = strlen(e->d_name)) > 5 &&
		    strcmp(e->d_name + len - 5, ".toml") == 0)
			n++;
	closedir(dp);
	return n;
}

/* `bxctl grants prune --config config`, the owner's command; its status. */
static int
run_prune(const char *config, const char *log)
{
	int fd, status;
	pid_t pid;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd == -1 || dup2(fd, STDOUT_FILENO) == -1)
			_exit(127);
		execl(bxctl_path, "bxctl", "grants", "prune", "--config",
		    config, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) == -1)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * The prune figure: denials with BENCH_PRUNE_LIVE live grants and
 * BENCH_PRUNE_EXPIRED expired ones of bxctl's, 1 and 16 clients; then
 * bxctl grants prune; then the same cells on the same brokerd (it reads
 * the directory at every call).
 */
static int
prune_run(const char *dir, struct result res[2][2], int files[2])
{
	static const int clients[2] = { 1, BENCH_MAX_CLIENTS };
	struct daemon d;
	char config[PATH_MAX], grants[PATH_MAX], log[PATH_MAX];
	char top[PATH_MAX];
	int phase, ci, rc = -1;

	memset(&d, 0, sizeof(d));
	d.d_pid = -1;
	/* Beside the 10-grant home, which has the same name in dir. */
	snprintf(top, sizeof(top), "%s/prune", dir);
	if (mkdir(top, 0700) == -1 ||
	    make_home(top, BENCH_PRUNE_LIVE, &d, config, sizeof(config)) == -1)
		goto fail_errno;
	snprintf(grants, sizeof(grants), "%s/grants", d.d_home);
	snprintf(log, sizeof(log), "%s/prune.out", d.d_home);
	if (write_expired(grants, BENCH_PRUNE_EXPIRED) == -1)
		goto fail_errno;
	if (daemon_start(&d, config) == -1)
		goto out;
	for (phase = 0; phase < 2; phase++) {
		if ((files[phase] = count_grant_files(grants)) == -1)
			goto fail_errno;
		for (ci = 0; ci < 2; ci++)
			if (cell_run(&d, files[phase], KIND_DENIED,
			    clients[ci], NULL, &res[phase][ci]) == -1)
				goto out;
		if (phase == 0 && run_prune(config, log) != 0) {
			fprintf(stderr, "bench-broker-load: bxctl grants prune "
			    "failed; see %s\n", log);
			goto out;
		}
	}
	rc = daemon_stop(&d);
	d.d_pid = -1;
	goto out;
fail_errno:
	fprintf(stderr, "bench-broker-load: %s: %s\n", d.d_home,
	    strerror(errno));
out:
	if (d.d_pid > 0)
		daemon_stop(&d);
	return rc;
}

static void
print_prune(struct result res[2][2], const int files[2])
{
	static const char *phase_names[2] = { "before", "after" };
	int phase, ci;

	printf("broker-load: prune: %d live grants and %d expired ones of "
	    "approve --for, then bxctl grants prune\n", BENCH_PRUNE_LIVE,
	    BENCH_PRUNE_EXPIRED);
	printf("broker-load: %-6s %6s %7s %8s %10s %10s %9s %7s\n", "prune",
	    "files", "clients", "calls", "median_us", "p99_us", "calls/s",
	    "cpu_us");
	for (phase = 0; phase < 2; phase++)
		for (ci = 0; ci < 2; ci++)
			printf("broker-load: %-6s %6d %7d %8zu %10.0f %10.0f "
			    "%9.0f %7.0f\n", phase_names[phase], files[phase],
			    ci == 0 ? 1 : BENCH_MAX_CLIENTS,
			    res[phase][ci].r_calls, res[phase][ci].r_median_us,
			    res[phase][ci].r_p99_us, res[phase][ci].r_cps,
			    res[phase][ci].r_cpu_us);
}

/* Every cell for one grant set, on one brokerd. */
static int
grants_run(const char *dir, int gi, struct floor *f,
    struct result res[KIND_MAX][NCLIENTS], long *hwm_kib)
{
	struct daemon d;
	char config[PATH_MAX];
	long lines;
	size_t ci;
	int k, rc = -1;

	memset(&d, 0, sizeof(d));
	d.d_pid = -1;
	if (make_home(dir, grant_counts[gi], &d, config, sizeof(config)) == -1) {
		fprintf(stderr, "bench-broker-load: %s: %s\n", d.d_home,
		    strerror(errno));
		return -1;
	}
	if (daemon_start(&d, config) == -1)
		goto out;
	for (k = 0; k < KIND_MAX; k++)
		for (ci = 0; ci < NCLIENTS; ci++)
			if (cell_run(&d, grant_counts[gi], k,
			    client_counts[ci], gi == 0 && k == KIND_DENIED &&
			    ci == 0 ? f : NULL, &res[k][ci]) == -1)
				goto out;
	*hwm_kib = daemon_hwm(d.d_pid);
	if (daemon_stop(&d) == -1) {
		fprintf(stderr, "bench-broker-load: brokerd did not stop "
		    "cleanly; see %s/brokerd.log\n", d.d_home);
		goto out;
	}
	if ((lines = audit_lines(d.d_home)) != (long)d.d_records) {
		fprintf(stderr, "bench-broker-load: %s/audit holds %ld "
		    "records, the calls should have written %zu\n", d.d_home,
		    lines, d.d_records);
		goto out;
	}
	rc = 0;
out:
	if (d.d_pid > 0)
		daemon_stop(&d);
	return rc;
}

static void
print_table(const struct floor *f,
    struct result res[NGRANTS][KIND_MAX][NCLIENTS],
    const long *hwm)
{
	double r1, r2[KIND_MAX];
	size_t g, ci;
	int k;

	const struct result *fl = &f->f_fresh;

	printf("broker-load: floor: 400-byte append + fdatasync: median "
	    "%.0f us, p99 %.0f us (%zu runs, each on a fresh thread, "
	    "interleaved with the single-client 10-grant denials)\n",
	    fl->r_median_us, fl->r_p99_us, fl->r_calls);
	printf("broker-load: the same back to back in one thread: median "
	    "%.0f us, p99 %.0f us (%zu runs)\n", f->f_same.r_median_us,
	    f->f_same.r_p99_us, f->f_same.r_calls);
	printf("broker-load: %6s %-8s %7s %8s %10s %10s %9s %7s %9s\n",
	    "grants", "call", "clients", "calls", "median_us", "p99_us",
	    "calls/s", "cpu_us", "client_us");
	for (g = 0; g < NGRANTS; g++)
		for (k = 0; k < KIND_MAX; k++)
			for (ci = 0; ci < NCLIENTS; ci++)
				printf("broker-load: %6d %-8s %7d %8zu %10.0f "
				    "%10.0f %9.0f %7.0f %9.0f\n", grant_counts[g],
				    kind_names[k], client_counts[ci],
				    res[g][k][ci].r_calls,
				    res[g][k][ci].r_median_us,
				    res[g][k][ci].r_p99_us,
				    res[g][k][ci].r_cps,
				    res[g][k][ci].r_cpu_us,
				    res[g][k][ci].r_client_us);
	for (g = 0; g < NGRANTS; g++)
		printf("broker-load: brokerd peak RSS (VmHWM), %d grants: "
		    "%ld KiB\n", grant_counts[g], hwm[g]);
	r1 = res[0][KIND_DENIED][0].r_median_us / fl->r_median_us;
	for (k = 0; k < KIND_MAX; k++)
		r2[k] = res[0][k][NCLIENTS - 1].r_cps / res[0][k][0].r_cps;
	printf("broker-load: ratio 1: single-client denial median / floor, "
	    "10 grants: %.2f (target <= 1.5: %s)\n", r1,
	    r1 <= 1.5 ? "met" : "missed");
	printf("broker-load: ratio 2: 16-client / 1-client calls per second, "
	    "10 grants: denied %.2f, allowed %.2f (target >= 4: %s)\n",
	    r2[KIND_DENIED], r2[KIND_ALLOWED],
	    r2[KIND_DENIED] >= 4 && r2[KIND_ALLOWED] >= 4 ? "met" : "missed");
}

/* Refuses tmpfs (and ramfs): an fsync there is a no-op, not a floor. */
static int
check_disk(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) == -1) {
		fprintf(stderr, "bench-broker-load: %s: %s\n", dir,
		    strerror(errno));
		return -1;
	}
	if (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC) {
		fprintf(stderr, "bench-broker-load: %s is in memory; give "
		    "--dir a directory on a real disk\n", dir);
		return -1;
	}
	return 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: bench-broker-load [--brokerd PATH] "
	    "[--bxctl PATH] [--dir DIR] [--seconds S]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	static struct result res[NGRANTS][KIND_MAX][NCLIENTS];
	struct result pruned[2][2];
	int prune_files[2];
	struct floor fl;
	const char *parent = BENCH_DIR;
	char dir[PATH_MAX], floorpath[PATH_MAX];
	long hwm[NGRANTS];
	size_t g;
	int i, rc = 1;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--brokerd") == 0 && i + 1 < argc)
			brokerd_path = argv[++i];
		else if (strcmp(argv[i], "--bxctl") == 0 && i + 1 < argc)
			bxctl_path = argv[++i];
		else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
			parent = argv[++i];
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else
			return usage();
	}
	if (seconds <= 0 || seconds > 60)
		return usage();
	if (check_disk(parent) == -1)
		return 1;
	snprintf(dir, sizeof(dir), "%s/bench-broker-load.XXXXXX", parent);
	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "bench-broker-load: %s: %s\n", dir,
		    strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	snprintf(floorpath, sizeof(floorpath), "%s/floor.jsonl", dir);
	memset(&fl, 0, sizeof(fl));
	memset(fl.f_line, 'x', sizeof(fl.f_line) - 1);
	fl.f_line[sizeof(fl.f_line) - 1] = '\n';
	fl.f_fd = open(floorpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0600);
	if (fl.f_fd == -1) {
		fprintf(stderr, "bench-broker-load: %s: %s\n", floorpath,
		    strerror(errno));
		goto out;
	}
	for (g = 0; g < NGRANTS; g++)
		if (grants_run(dir, (int)g, &fl, res[g], &hwm[g]) == -1)
			goto out;
	if (prune_run(dir, pruned, prune_files) == -1)
		goto out;
	print_table(&fl, res, hwm);
	print_prune(pruned, prune_files);
	rc = 0;
out:
	if (fl.f_fd != -1)
		close(fl.f_fd);
	bench_rmtree(dir);
	return rc;
}
