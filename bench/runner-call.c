/*
 * bench-runner-call: what an allowed call costs once it runs in a sandbox.
 * For each runtime (podman, bwrap) it starts the real brokerd on a
 * temporary home and times, over broker.sock, an allowed read_file of a
 * small file and an allowed shell "true", each from connect to the last
 * byte of the answer; and, in the same run, a bare sandbox of the same
 * runtime that runs /usr/bin/true with the host's /usr, started as a
 * program the same way (fork, exec, wait). It prints medians and p99 and
 * the ratio of each call to its bare sandbox. A runtime that is missing is
 * reported and skipped; nothing here is a test.
 *
 * Then BENCH_SESSIONS sessions call read_file at once, and it prints their
 * calls per second against one session's; BENCH_CLIENTS sessions call
 * read_file at once (N calls each) beside as many bare sandboxes at once;
 * and the wait for one of brokerd's BENCH_MAX_RUNNING slots under
 * BENCH_SESSIONS clients, from outside: each calls shell "date +%s%N",
 * and the tool's CLOCK_REALTIME less the client's just before it wrote
 * the request, less the median of the same for one client alone (the
 * runtime's own start), is the wait (bench/README.md says what else is
 * in it). brokerd's CPU per call is its own threads' user and system
 * time over each window, divided by the calls.
 *
 * Run inside the egress test network (tests/egress/testnet.sh), it also
 * times an allowed http_fetch of https://good.test/ok through the call's
 * proxy, against the same fetch by curl outside any sandbox.
 *
 *	bench-runner-call [N]	(N calls of each kind; default 20)
 *	tests/egress/testnet.sh --slot 5 build/tests/egress/tls-host --
 *	    build/bench/bench-runner-call [N]
 *
 * Against a brokerd that already runs (the owner's unit, in the VM test),
 * it times N read_files of FILE, which a grant must allow without asking,
 * each beside a bare sandbox of RUNTIME, and prints the same lines:
 *
 *	bench-runner-call --running BROKER_SOCK RUNTIME FILE [N]
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner-load.h"
#include "timing.h"

#define BENCH_CALLS_MAX	1000
#define BENCH_WAIT_MS	30000
/* Sessions calling at once, each BENCH_PAR_CALLS read_files. */
#define BENCH_SESSIONS	16
#define BENCH_PAR_CALLS	10
/* Clients of the "at once" cell, and brokerd's slots (its default). */
#define BENCH_CLIENTS	4
#define BENCH_MAX_RUNNING	4

struct figures {
	double	median_us;
	double	p99_us;
};

/* $BX_TESTNET_DIR inside the egress test network, else NULL. */
static const char *testnet;

static void
write_text(const char *path, const char *text)
{
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	fputs(text, fp);
	fclose(fp);
}

static void
make_home(const char *top, const char *kind)
{
	char path[4096], text[8192];

	snprintf(path, sizeof(path), "%s/home", top);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/home/grants", top);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/data", top);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/data/a.txt", top);
	write_text(path, "a small file to read\n");
	snprintf(path, sizeof(path), "%s/home/grants/read.toml", top);
	snprintf(text, sizeof(text), "tool = \"read_file\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n[constraints]\n"
	    "paths = [\"%s/data\"]\n", top);
	write_text(path, text);
	snprintf(path, sizeof(path), "%s/home/grants/sh.toml", top);
	write_text(path, "tool = \"shell\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n");
	snprintf(path, sizeof(path), "%s/home/grants/fetch.toml", top);
	write_text(path, "tool = \"http_fetch\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"public\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n[constraints]\n"
	    "hosts = [\"good.test\"]\n");
	snprintf(path, sizeof(path), "%s/home/brokerd.toml", top);
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s/home\"\n\n"
	    "[runner]\nkind = \"%s\"\nbxtool_path = \"%s\"\n"
	    "max_running = %d\n", top, kind, BENCH_BXTOOL, BENCH_MAX_RUNNING);
	if (testnet != NULL)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
		    "\n[egress]\nca_file = \"%s/ca.pem\"\n"
		    "allow_addresses = [\"%s\"]\n", testnet,
		    getenv("BX_TESTNET_ALLOW"));
	write_text(path, text);
}

static pid_t
brokerd_start(const char *top, char *sock, size_t size)
{
	char config[4096], errs[4096];
	int64_t until = bench_now_ns() + (int64_t)BENCH_WAIT_MS * 1000000;
	pid_t pid;
	int fd;

	snprintf(config, sizeof(config), "%s/home/brokerd.toml", top);
	snprintf(errs, sizeof(errs), "%s/brokerd.err", top);
	snprintf(sock, size, "%s/home/run/loop-broker/broker.sock", top);
	if ((pid = fork()) == 0) {
		if ((fd = open(errs, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
			dup2(fd, 2);
		execl(BENCH_BROKERD, "brokerd", "serve", "--config", config,
		    (char *)NULL);
		_exit(127);
	}
	while (bench_now_ns() < until) {
		if ((fd = bench_dial(sock)) != -1) {
			close(fd);
			return pid;
		}
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break;
		usleep(20000);
	}
	fprintf(stderr, "bench-runner-call: brokerd did not serve; see %s\n",
	    errs);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* What the jobs of a cell of several clients at once share. */
struct cell {
	const char	*c_sock;
	const char	*c_top;
	const char	*c_tag;		/* the sessions' names begin with it */
	char *const	*c_bare;
};

/* An allowed read_file by client c, its own session. */
static int64_t
job_read(void *ctx, unsigned c, size_t i)
{
	struct cell *cl = ctx;
	char frame[8192];

	snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
	    "\"session\":\"%s%u\",\"call\":\"r%zu\",\"tool\":\"read_file\","
	    "\"arguments\":\"{\\\"path\\\":\\\"%s/data/a.txt\\\"}\"}\n",
	    cl->c_tag, c, i, cl->c_top);
	return load_call(cl->c_sock, frame, NULL, NULL, 0);
}

static int64_t
job_bare(void *ctx, unsigned c, size_t i)
{
	struct cell *cl = ctx;

	(void)c;
	(void)i;
	return load_run(cl->c_bare);
}

/*
 * An allowed shell call that prints CLOCK_REALTIME as the tool starts:
 * the ns from the client's write of the request to that moment.
 */
static int64_t
job_start(void *ctx, unsigned c, size_t i)
{
	struct cell *cl = ctx;
	char frame[8192], answer[4096], *at;
	int64_t sent;

	snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
	    "\"session\":\"%s%u\",\"call\":\"d%zu\",\"tool\":\"shell\","
	    "\"arguments\":\"{\\\"command\\\":\\\"date +%%s%%N\\\"}\"}\n",
	    cl->c_tag, c, i);
	if (load_call(cl->c_sock, frame, &sent, answer, sizeof(answer)) == -1)
		return -1;
	if ((at = strstr(answer, "\"content\":\"")) == NULL)
		return -1;
	return strtoll(at + strlen("\"content\":\""), NULL, 10) - sent;
}

/* brokerd's CPU time per call over a window, in us (-1: unreadable). */
static double
cpu_per_call(pid_t pid, int64_t cpu0, size_t calls)
{
	int64_t cpu1 = bench_cpu_ns(pid);

	if (cpu0 < 0 || cpu1 < 0 || calls == 0)
		return -1;
	return (double)(cpu1 - cpu0) / 1000.0 / (double)calls;
}

/* BENCH_SESSIONS sessions' read_files at once: calls per second, or -1. */
static double
sessions_at_once(struct cell *cl)
{
	static int64_t t[BENCH_SESSIONS * BENCH_PAR_CALLS];
	int64_t t0 = bench_now_ns();

	cl->c_tag = "par";
	if (load_at_once(BENCH_SESSIONS, BENCH_PAR_CALLS, job_read, cl,
	    t) == -1)
		return -1;
	return BENCH_SESSIONS * BENCH_PAR_CALLS * 1e9 /
	    (double)(bench_now_ns() - t0);
}

/* The figures of the cells beyond the one-at-a-time calls. */
struct more {
	int			 m_ok4, m_ok_start, m_ok_wait;
	struct load_figures	 m_read4, m_bare4, m_start1, m_wait;
	double			 m_cpu1, m_cpu4, m_cpu16;
	size_t			 m_calls1;
};

/* BENCH_CLIENTS read_files at once, then as many bare sandboxes. */
static void
four_at_once(struct cell *cl, size_t n, pid_t brokerd, struct more *m)
{
	static int64_t t[BENCH_CLIENTS * BENCH_CALLS_MAX];
	int64_t cpu0 = bench_cpu_ns(brokerd);

	cl->c_tag = "four";
	m->m_ok4 = load_at_once(BENCH_CLIENTS, n, job_read, cl, t) == 0 &&
	    load_figures(t, BENCH_CLIENTS * n, &m->m_read4) == 0;
	m->m_cpu4 = cpu_per_call(brokerd, cpu0, BENCH_CLIENTS * n);
	m->m_ok4 = m->m_ok4 &&
	    load_at_once(BENCH_CLIENTS, n, job_bare, cl, t) == 0 &&
	    load_figures(t, BENCH_CLIENTS * n, &m->m_bare4) == 0;
}

/*
 * The slot wait under BENCH_SESSIONS clients: each call's send to tool
 * start less the median of one client's alone (the runtime's own start),
 * what is below zero counted as zero.
 */
static void
slot_wait(struct cell *cl, size_t n, pid_t brokerd, struct more *m)
{
	static int64_t one[BENCH_CALLS_MAX];
	static int64_t t[BENCH_SESSIONS * BENCH_PAR_CALLS];
	int64_t cpu0, own;
	size_t i;

	cl->c_tag = "alone";
	if (load_at_once(1, n, job_start, cl, one) == -1 ||
	    load_figures(one, n, &m->m_start1) == -1)
		return;
	m->m_ok_start = 1;
	own = (int64_t)(m->m_start1.lf_median_us * 1000);
	cl->c_tag = "slot";
	cpu0 = bench_cpu_ns(brokerd);
	if (load_at_once(BENCH_SESSIONS, BENCH_PAR_CALLS, job_start, cl,
	    t) == -1)
		return;
	m->m_cpu16 = cpu_per_call(brokerd, cpu0,
	    BENCH_SESSIONS * BENCH_PAR_CALLS);
	for (i = 0; i < BENCH_SESSIONS * BENCH_PAR_CALLS; i++)
		t[i] = t[i] > own ? t[i] - own : 0;
	m->m_ok_wait = load_figures(t, BENCH_SESSIONS * BENCH_PAR_CALLS,
	    &m->m_wait) == 0;
}

static void
print_more(const char *kind, const struct more *m)
{
	printf("%-7s brokerd CPU: its own threads' user and system time per "
	    "call (bwrap, podman and the tool not counted)\n", kind);
	printf("%-7s 1 at a time  brokerd CPU %6.0f us per call (%zu calls: "
	    "read_file, shell)\n", kind, m->m_cpu1, m->m_calls1);
	if (!m->m_ok4)
		printf("%-7s %d at once: a call or bare sandbox failed\n", kind,
		    BENCH_CLIENTS);
	else
		printf("%-7s %d at once    read_file median %8.0f us  p99 %8.0f "
		    "us; bare true median %8.0f us  p99 %8.0f us; ratio %.2f; "
		    "brokerd CPU %.0f us per call\n", kind, BENCH_CLIENTS,
		    m->m_read4.lf_median_us, m->m_read4.lf_p99_us,
		    m->m_bare4.lf_median_us, m->m_bare4.lf_p99_us,
		    m->m_read4.lf_median_us / m->m_bare4.lf_median_us,
		    m->m_cpu4);
	if (m->m_ok_start)
		printf("%-7s send to tool start, 1 client (shell date +%%s%%N):"
		    " median %8.0f us  p99 %8.0f us\n", kind,
		    m->m_start1.lf_median_us, m->m_start1.lf_p99_us);
	if (!m->m_ok_wait) {
		printf("%-7s slot wait: a call failed\n", kind);
		return;
	}
	printf("%-7s slot wait, %d clients, max_running %d (send to tool start "
	    "less 1 client's median, floor 0): median %8.0f us  p99 %8.0f us  "
	    "max %8.0f us  mean %8.0f us  max/mean %.2f (goal <= 2); "
	    "brokerd CPU %.0f us per call\n", kind, BENCH_SESSIONS,
	    BENCH_MAX_RUNNING, m->m_wait.lf_median_us, m->m_wait.lf_p99_us,
	    m->m_wait.lf_max_us, m->m_wait.lf_mean_us,
	    m->m_wait.lf_max_us / m->m_wait.lf_mean_us, m->m_cpu16);
}
static int
figures(int64_t *v, size_t n, struct figures *f)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] < 0)
			return -1;
	bench_percentiles(v, n, &f->median_us, &f->p99_us);
	return 0;
}

static void
bare_argv(const char *kind, const char *skel, char **argv)
{
	static char rootfs[4096];
	size_t n = 0;

	snprintf(rootfs, sizeof(rootfs), "%s", skel);
	if (strcmp(kind, "podman") == 0) {
		/* podman's default OCI runtime, as brokerd's calls get. */
		const char *const p[] = { "/usr/bin/podman", "run", "--rm",
		    "--pull=never", "--network=none",
		    "--no-hosts", "--read-only", "--init",
		    "--log-driver=passthrough", "--cap-drop=all",
		    "--security-opt=no-new-privileges",
		    "--ulimit=nofile=1024:1024", "--ulimit=nproc=128:128",
		    "-v", "/usr:/usr:ro", "--rootfs", rootfs, "/usr/bin/true",
		    NULL };
		for (; p[n] != NULL; n++)
			argv[n] = (char *)p[n];
	} else {
		const char *const b[] = { "/usr/bin/bwrap", "--unshare-all",
		    "--unshare-user", "--disable-userns", "--die-with-parent",
		    "--new-session", "--clearenv", "--cap-drop", "ALL",
		    "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib64",
		    "/lib64", "--symlink", "usr/lib", "/lib", "--proc", "/proc",
		    "--dev", "/dev", "--tmpfs", "/tmp", "/usr/bin/true", NULL };
		for (; b[n] != NULL; n++)
			argv[n] = (char *)b[n];
	}
	argv[n] = NULL;
}

/*
 * curl on the host, outside any sandbox, to the same test host, trusting
 * the same CAs the sandbox's curl gets: the system's and the test CA.
 */
static char **
curl_argv(const char *top)
{
	static char ca[4096];
	static char *argv[] = { "/usr/bin/curl", "-q", "-sS", "--cacert", ca,
	    "-o", "/dev/null", "https://good.test/ok", NULL };
	char cmd[12288];

	snprintf(ca, sizeof(ca), "%s/bundle.pem", top);
	if (access(ca, R_OK) == -1) {
		snprintf(cmd, sizeof(cmd), "cat /etc/ssl/certs/ca-certificates.crt"
		    " '%s/ca.pem' > '%s'", testnet, ca);
		if (system(cmd) != 0)
			fprintf(stderr, "bench-runner-call: cannot make %s\n", ca);
	}
	return argv;
}

static void
print_fetch(const char *kind, int64_t *fetch_ns, int64_t *curl_ns, size_t n)
{
	struct figures ff, fc;

	if (figures(fetch_ns, n, &ff) == -1 || figures(curl_ns, n, &fc) == -1) {
		printf("%-7s http_fetch failed (or curl outside did)\n", kind);
		return;
	}
	printf("%-7s curl outside median %8.0f us  p99 %8.0f us\n", kind,
	    fc.median_us, fc.p99_us);
	printf("%-7s http_fetch  median %8.0f us  p99 %8.0f us  "
	    "ratio %.2f\n", kind, ff.median_us, ff.p99_us,
	    ff.median_us / fc.median_us);
}

/* The bare sandbox's skeleton root, top/skel. */
static void
make_skel(const char *top)
{
	const char *d[] = { "usr", "proc", "dev", "tmp", "etc", "run" };
	char p[4200];
	size_t i;

	snprintf(p, sizeof(p), "%s/skel", top);
	mkdir(p, 0755);
	for (i = 0; i < 6; i++) {
		snprintf(p, sizeof(p), "%s/skel/%s", top, d[i]);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/skel/lib64", top);
	symlink("usr/lib64", p);
	snprintf(p, sizeof(p), "%s/skel/lib", top);
	symlink("usr/lib", p);
}

static void
runtime_run(const char *kind, size_t n)
{
	static int64_t read_ns[BENCH_CALLS_MAX], shell_ns[BENCH_CALLS_MAX];
	static int64_t bare_ns[BENCH_CALLS_MAX], fetch_ns[BENCH_CALLS_MAX];
	static int64_t curl_ns[BENCH_CALLS_MAX];
	char top[] = "/var/lib/bench-runner-XXXXXX", sock[4096], skel[4096];
	char frame[8192], *argv[40];
	struct figures fr, fs, fb;
	struct cell cl;
	struct more m;
	double par_rate;
	int64_t cpu0;
	size_t i;
	pid_t pid;

	if (mkdtemp(top) == NULL) {
		perror("mkdtemp");
		return;
	}
	make_home(top, kind);
	make_skel(top);
	snprintf(skel, sizeof(skel), "%s/skel", top);
	if ((pid = brokerd_start(top, sock, sizeof(sock))) == -1) {
		printf("%-7s skipped: brokerd did not start (is %s installed?)\n",
		    kind, kind);
		bench_rmtree(top);
		return;
	}
	bare_argv(kind, skel, argv);
	memset(&m, 0, sizeof(m));
	cpu0 = bench_cpu_ns(pid);
	for (i = 0; i < n; i++) {
		snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
		    "\"session\":\"bench\",\"call\":\"r%zu\",\"tool\":"
		    "\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"%s/data/"
		    "a.txt\\\"}\"}\n", i, top);
		read_ns[i] = load_call(sock, frame, NULL, NULL, 0);
		snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
		    "\"session\":\"bench\",\"call\":\"s%zu\",\"tool\":"
		    "\"shell\",\"arguments\":\"{\\\"command\\\":\\\"true\\\"}\"}"
		    "\n", i);
		shell_ns[i] = load_call(sock, frame, NULL, NULL, 0);
		bare_ns[i] = load_run(argv);
		if (testnet == NULL)
			continue;
		snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
		    "\"session\":\"bench\",\"call\":\"f%zu\",\"tool\":"
		    "\"http_fetch\",\"arguments\":\"{\\\"url\\\":\\\""
		    "https://good.test/ok\\\"}\"}\n", i);
		fetch_ns[i] = load_call(sock, frame, NULL, NULL, 0);
		curl_ns[i] = load_run(curl_argv(top));
	}
	m.m_calls1 = (testnet != NULL ? 3 : 2) * n;
	m.m_cpu1 = cpu_per_call(pid, cpu0, m.m_calls1);
	cl.c_sock = sock;
	cl.c_top = top;
	cl.c_bare = argv;
	par_rate = sessions_at_once(&cl);
	four_at_once(&cl, n, pid, &m);
	slot_wait(&cl, n, pid, &m);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	if (figures(read_ns, n, &fr) == -1 || figures(shell_ns, n, &fs) == -1 ||
	    figures(bare_ns, n, &fb) == -1)
		printf("%-7s failed: a call or the bare sandbox did not "
		    "succeed (home kept: %s)\n", kind, top);
	else {
		printf("%-7s bare true   median %8.0f us  p99 %8.0f us\n", kind,
		    fb.median_us, fb.p99_us);
		printf("%-7s read_file   median %8.0f us  p99 %8.0f us  "
		    "ratio %.2f\n", kind, fr.median_us, fr.p99_us,
		    fr.median_us / fb.median_us);
		printf("%-7s shell true  median %8.0f us  p99 %8.0f us  "
		    "ratio %.2f\n", kind, fs.median_us, fs.p99_us,
		    fs.median_us / fb.median_us);
		if (par_rate < 0)
			printf("%-7s %d sessions at once: a call failed\n",
			    kind, BENCH_SESSIONS);
		else
			printf("%-7s %d sessions at once: %.1f read_files/s, "
			    "%.2f x one session's %.1f/s\n", kind,
			    BENCH_SESSIONS, par_rate,
			    par_rate * fr.median_us / 1e6, 1e6 / fr.median_us);
		if (testnet != NULL)
			print_fetch(kind, fetch_ns, curl_ns, n);
		print_more(kind, &m);
		bench_rmtree(top);
	}
}

/* --running: read_files of file over sock, each beside a bare sandbox. */
static int
running_run(const char *sock, const char *kind, const char *file, size_t n)
{
	static int64_t read_ns[BENCH_CALLS_MAX], bare_ns[BENCH_CALLS_MAX];
	char top[4096], skel[4200], frame[8192], *argv[40];
	struct figures fr, fb;
	size_t i;

	snprintf(top, sizeof(top), "%s/bench-runner-XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(top) == NULL) {
		perror("bench-runner-call: mkdtemp");
		return 1;
	}
	make_skel(top);
	snprintf(skel, sizeof(skel), "%s/skel", top);
	bare_argv(kind, skel, argv);
	for (i = 0; i < n; i++) {
		snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
		    "\"session\":\"bench\",\"call\":\"r%zu\",\"tool\":"
		    "\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"%s\\\"}"
		    "\"}\n", i, file);
		read_ns[i] = load_call(sock, frame, NULL, NULL, 0);
		bare_ns[i] = load_run(argv);
	}
	bench_rmtree(top);
	if (figures(read_ns, n, &fr) == -1 || figures(bare_ns, n, &fb) == -1) {
		printf("%-7s failed: a call or the bare sandbox did not "
		    "succeed\n", kind);
		return 1;
	}
	printf("%-7s bare true   median %8.0f us  p99 %8.0f us\n", kind,
	    fb.median_us, fb.p99_us);
	printf("%-7s read_file   median %8.0f us  p99 %8.0f us  ratio %.2f\n",
	    kind, fr.median_us, fr.p99_us, fr.median_us / fb.median_us);
	return 0;
}

static size_t
count(const char *arg)
{
	size_t n = arg != NULL ? strtoul(arg, NULL, 10) : 20;

	if (n == 0 || n > BENCH_CALLS_MAX) {
		fprintf(stderr, "usage: bench-runner-call [N, 1 to %d]\n"
		    "       bench-runner-call --running BROKER_SOCK podman|bwrap "
		    "FILE [N]\n", BENCH_CALLS_MAX);
		exit(2);
	}
	return n;
}

int
main(int argc, char **argv)
{
	size_t n;

	if (argc >= 5 && strcmp(argv[1], "--running") == 0)
		return running_run(argv[2], argv[3], argv[4],
		    count(argc > 5 ? argv[5] : NULL));
	n = count(argc > 1 ? argv[1] : NULL);
	testnet = getenv("BX_TESTNET_DIR");
	printf("bench-runner-call: %zu calls of each kind, alternating with "
	    "a bare sandbox%s\n", n, testnet != NULL ? " (and http_fetch with "
	    "curl outside)" : "");
	runtime_run("bwrap", n);
	runtime_run("podman", n);
	return 0;
}
