/*
 * hostile-client.c: the clients and checks test-hostile.c's scenarios
 * share (see hostile.h).
 */
#include <sys/socket.h>

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "hostile.h"

void
hc_keep(struct hostile *h, int fd)
{
	if (h->h_nfds == h->h_capfds) {
		h->h_capfds = h->h_capfds == 0 ? 2048 : h->h_capfds * 2;
		assert_non_null(h->h_fds = realloc(h->h_fds,
		    h->h_capfds * sizeof(*h->h_fds)));
	}
	h->h_fds[h->h_nfds++] = fd;
}

long
hc_count_dir(const char *fmt, pid_t pid)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), fmt, (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A well-behaved loopd call and owner request; the slower, in ms. */
int64_t
hc_good_client(struct hostile *h, const char *scenario)
{
	struct rh_answer a;
	struct rh_call c;
	struct bx_msg *ans;
	char call[32];
	int64_t start, worst = 0, took;
	int i;

	for (i = 0; i < HOSTILE_SAMPLES; i++) {
		snprintf(call, sizeof(call), "good-%u", h->h_calls++);
		start = rh_now_ms();
		if (rh_call_start(&c, h->h_home.broker, "good", call,
		    RH_ARGS_DENY) == -1)
			fail_msg("%s: the good client cannot connect", scenario);
		if (rh_call_next(&c, HOSTILE_ANSWER_MS, &a) != RH_FINAL ||
		    a.a_reason != BX_DENY_DENIED_BY_GRANT)
			fail_msg("%s: the good client was not answered "
			    "(%s)", scenario, a.a_got == RH_ERROR ?
			    a.a_message : "no answer in time");
		rh_call_close(&c);
		took = rh_now_ms() - start;
		worst = took > worst ? took : worst;
		start = rh_now_ms();
		if (rh_admin(h->h_home.admin, bx_msg_new(BX_MSG_APPROVALS),
		    &ans, HOSTILE_ANSWER_MS) == -1 ||
		    ans->kind != BX_MSG_APPROVAL_LIST)
			fail_msg("%s: the owner was not answered", scenario);
		bx_msg_free(ans);
		took = rh_now_ms() - start;
		worst = took > worst ? took : worst;
	}
	assert_true(worst < HOSTILE_ANSWER_MS);
	return worst;
}

void
hc_report(struct hostile *h, const char *scenario, int64_t worst)
{
	long hwm = rh_vm_kib(h->h_home.brokerd, "VmHWM");
	long rss = rh_vm_kib(h->h_home.brokerd, "VmRSS");

	h->h_worst_ms = worst > h->h_worst_ms ? worst : h->h_worst_ms;
	printf("hostile: %-42s good client answered in <= %3lld ms; brokerd "
	    "VmRSS %ld KiB, VmHWM %ld KiB\n", scenario, (long long)worst, rss,
	    hwm);
	assert_true(hwm > 0 && hwm < HOSTILE_RSS_MAX_KIB);
}

int
hc_dial(struct hostile *h, const char *path)
{
	int fd = rh_dial(path);

	if (fd == -1)
		fail_msg("connect %s: %s", path, strerror(errno));
	(void)h;
	return fd;
}

/* Sends len bytes, or as many as the kernel takes without waiting. */
size_t
hc_send_some(int fd, const char *buf, size_t len)
{
	size_t sent = 0;
	ssize_t n;

	while (sent < len) {
		n = send(fd, buf + sent, len - sent, MSG_NOSIGNAL |
		    MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	return sent;
}

void
hc_send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* brokerd closed it: that is its right */
		buf += n;
		len -= (size_t)n;
	}
}

/* The first frame brokerd answers on fd, decoded; NULL if none came. */
struct bx_msg *
hc_answer_of(int fd)
{
	struct bx_frame_reader r;
	struct bx_msg *m = NULL;
	const char *line;
	size_t len;

	bx_frame_reader_init(&r, fd);
	if (bx_frame_read(&r, RH_WAIT_MS, &line, &len, NULL) == BX_FRAME_OK)
		bx_msg_decode(line, len, &m, NULL);
	bx_frame_reader_free(&r);
	return m;
}

void
hc_expect_error(int fd, enum bx_code code, const char *what)
{
	struct bx_msg *m = hc_answer_of(fd);

	if (m == NULL || m->kind != BX_MSG_ERROR || m->error.code != code)
		fail_msg("%s: not answered error %s", what, bx_code_name(code));
	bx_msg_free(m);
}

/*
 * Reads what comes on each of n connections (answers, errors) until brokerd
 * closes it, for at most ms in all; how many were still open then.
 */
size_t
hc_still_open(const int *fds, size_t n, int ms)
{
	int64_t until = rh_now_ms() + ms;
	struct pollfd pfd;
	char buf[4096];
	size_t i, open = 0;
	int left;

	for (i = 0; i < n; i++) {
		pfd.fd = fds[i];
		pfd.events = POLLIN;
		for (;;) {
			left = (int)(until - rh_now_ms());
			if (left <= 0 || poll(&pfd, 1, left) <= 0) {
				open++;
				break;
			}
			if (recv(fds[i], buf, sizeof(buf), 0) <= 0)
				break;
		}
	}
	return open;
}

/*
 * Inodes of the connected Unix sockets whose address is path: in
 * /proc/net/unix, a socket accepted on a listener shows the listener's
 * path, and state 03 (connected) until it is closed. Appended to *inodes.
 */
static void
accepted_on(const char *path, unsigned long **inodes, size_t *n)
{
	char line[PATH_MAX + 128];
	unsigned long inode;
	unsigned st;
	int off;
	FILE *fp;

	assert_non_null(fp = fopen("/proc/net/unix", "r"));
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		off = 0;
		if (sscanf(line, "%*s %*s %*s %*s %*s %x %lu %n", &st, &inode,
		    &off) != 2 || off == 0 || st != 3 ||
		    strcmp(line + off, path) != 0)
			continue;
		assert_non_null(*inodes = realloc(*inodes, (*n + 1) *
		    sizeof(**inodes)));
		(*inodes)[(*n)++] = inode;
	}
	fclose(fp);
}

long
hc_connections(const struct hostile *h)
{
	char dir[64], path[PATH_MAX], target[64];
	unsigned long *inodes = NULL, inode;
	size_t n = 0, i;
	struct dirent *e;
	ssize_t len;
	long count = 0;
	DIR *d;

	accepted_on(h->h_home.broker, &inodes, &n);
	accepted_on(h->h_home.admin, &inodes, &n);
	snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)h->h_home.brokerd);
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((len = readlink(path, target, sizeof(target) - 1)) <= 0)
			continue;
		target[len] = '\0';
		if (sscanf(target, "socket:[%lu]", &inode) != 1)
			continue;
		for (i = 0; i < n; i++)
			count += inodes[i] == inode;
	}
	closedir(d);
	free(inodes);
	return count;
}

void
hc_await_no_connections(const struct hostile *h)
{
	int64_t until = rh_now_ms() + RH_WAIT_MS;
	long n;

	while ((n = hc_connections(h)) > 0 && rh_now_ms() < until)
		rh_sleep_ms(10);
	if (n > 0)
		fail_msg("brokerd still holds %ld client connections after %d "
		    "ms", n, RH_WAIT_MS);
}
