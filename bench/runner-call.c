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
 * calls per second against one session's.
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
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/frame.h"
#include "timing.h"

#define BENCH_CALLS_MAX	1000
#define BENCH_WAIT_MS	30000
/* Sessions calling at once, each BENCH_PAR_CALLS read_files. */
#define BENCH_SESSIONS	16
#define BENCH_PAR_CALLS	10

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
	    "[runner]\nkind = \"%s\"\nbxtool_path = \"%s\"\n", top, kind,
	    BENCH_BXTOOL);
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

/* One tool_request, from connect to the answer's last byte; -1 on error. */
static int64_t
call_once(const char *sock, const char *frame)
{
	struct bx_frame_reader r;
	const char *line;
	size_t len;
	int64_t t0 = bench_now_ns(), t;
	int fd, ok;

	if ((fd = bench_dial(sock)) == -1)
		return -1;
	bx_frame_reader_init(&r, fd);
	ok = write(fd, frame, strlen(frame)) == (ssize_t)strlen(frame) &&
	    bx_frame_read(&r, BENCH_WAIT_MS, &line, &len, NULL) == BX_FRAME_OK;
	t = bench_now_ns() - t0;
	if (ok && strstr(line, "\"status\":\"result\"") == NULL) {
		fprintf(stderr, "bench-runner-call: %.*s\n", (int)len, line);
		ok = 0;
	}
	bx_frame_reader_free(&r);
	close(fd);
	return ok ? t : -1;
}

struct par_session {
	pthread_t	 ps_thread;
	const char	*ps_sock;
	const char	*ps_top;
	unsigned	 ps_id;
	int		 ps_failed;
};

static void *
par_run(void *arg)
{
	struct par_session *ps = arg;
	char frame[8192];
	unsigned i;

	for (i = 0; i < BENCH_PAR_CALLS; i++) {
		snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
		    "\"session\":\"par%u\",\"call\":\"p%u\",\"tool\":"
		    "\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"%s/data/"
		    "a.txt\\\"}\"}\n", ps->ps_id, i, ps->ps_top);
		ps->ps_failed += call_once(ps->ps_sock, frame) == -1;
	}
	return NULL;
}

/* BENCH_SESSIONS sessions' read_files at once: calls per second, or -1. */
static double
sessions_at_once(const char *sock, const char *top)
{
	struct par_session ps[BENCH_SESSIONS];
	int64_t t0 = bench_now_ns();
	int failed = 0;
	unsigned i;

	for (i = 0; i < BENCH_SESSIONS; i++) {
		ps[i].ps_sock = sock;
		ps[i].ps_top = top;
		ps[i].ps_id = i;
		ps[i].ps_failed = 0;
		if (pthread_create(&ps[i].ps_thread, NULL, par_run, &ps[i]))
			return -1;
	}
	for (i = 0; i < BENCH_SESSIONS; i++) {
		pthread_join(ps[i].ps_thread, NULL);
		failed += ps[i].ps_failed;
	}
	if (failed > 0)
		return -1;
	return BENCH_SESSIONS * BENCH_PAR_CALLS * 1e9 /
	    (double)(bench_now_ns() - t0);
}

static int64_t
run_once(char *const argv[])
{
	int64_t t0 = bench_now_ns();
	int status, null;
	pid_t pid;

	if ((pid = fork()) == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid == -1 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return bench_now_ns() - t0;
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
	double par_rate;
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
	for (i = 0; i < n; i++) {
		snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
		    "\"session\":\"bench\",\"call\":\"r%zu\",\"tool\":"
		    "\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"%s/data/"
		    "a.txt\\\"}\"}\n", i, top);
		read_ns[i] = call_once(sock, frame);
		snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
		    "\"session\":\"bench\",\"call\":\"s%zu\",\"tool\":"
		    "\"shell\",\"arguments\":\"{\\\"command\\\":\\\"true\\\"}\"}"
		    "\n", i);
		shell_ns[i] = call_once(sock, frame);
		bare_ns[i] = run_once(argv);
		if (testnet == NULL)
			continue;
		snprintf(frame, sizeof(frame), "{\"kind\":\"tool_request\","
		    "\"session\":\"bench\",\"call\":\"f%zu\",\"tool\":"
		    "\"http_fetch\",\"arguments\":\"{\\\"url\\\":\\\""
		    "https://good.test/ok\\\"}\"}\n", i);
		fetch_ns[i] = call_once(sock, frame);
		curl_ns[i] = run_once(curl_argv(top));
	}
	par_rate = sessions_at_once(sock, top);
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
		read_ns[i] = call_once(sock, frame);
		bare_ns[i] = run_once(argv);
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
