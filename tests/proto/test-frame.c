/*
 * test-frame.c: the NDJSON frame reader and writer of src/proto/frame.h
 * over socketpairs: several frames per read, one byte per read, the size
 * limit and bounded memory, a caller's lower limit on the buffer (BX_FRAME_FULL
 * until raised), end of stream inside a frame, EINTR, the read
 * and write deadlines, and large writes to a slow reader.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/frame.h"

static void
pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
}

static void
test_two_frames_then_eof(void **state)
{
	struct bx_frame_reader r;
	struct bx_error err;
	const char *line;
	size_t len;
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(bx_frame_write(sv[0], "{\"a\":1}\n{}\n", 11, -1,
	    &err), BX_FRAME_OK);
	close(sv[0]);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_int_equal(len, 7);
	assert_string_equal(line, "{\"a\":1}");
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{}");
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_EOF);
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_EOF);
	bx_frame_reader_free(&r);
	close(sv[1]);
}

/* Bytes waiting unread in a socket. */
static int
ioctl_unread(int fd, int *ret)
{
	return ioctl(fd, FIONREAD, ret);
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Sends all of buf with plain send(2), for the peer side of a test; false
 * once the other end has gone.
 */
static bool
send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

static void
test_partial_at_eof(void **state)
{
	struct bx_frame_reader r;
	struct bx_error err;
	const char *line;
	size_t len;
	int sv[2];

	(void)state;
	pair(sv);
	send_all(sv[0], "{}\n{\"half\":", 11);
	close(sv[0]);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{}");
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_PARTIAL);
	assert_non_null(strstr(err.msg, "inside a frame"));
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_PARTIAL);
	bx_frame_reader_free(&r);
	bx_frame_reader_free(NULL);
	close(sv[1]);
}

struct feeder {
	int		 fd;
	const char	*data;
	size_t		 len;
	int		 pause_ms;	/* between bytes */
};

/* Sends the data one byte per send(2), then closes. */
static void *
feed_bytes(void *arg)
{
	struct feeder *f = arg;
	size_t i;

	for (i = 0; i < f->len; i++) {
		if (!send_all(f->fd, f->data + i, 1))
			break;
		if (f->pause_ms > 0)
			sleep_ms(f->pause_ms);
	}
	close(f->fd);
	return NULL;
}

/* Sends the data in as few send(2) calls as the socket allows, then closes. */
static void *
feed_whole(void *arg)
{
	struct feeder *f = arg;

	send_all(f->fd, f->data, f->len);
	close(f->fd);
	return NULL;
}

static void
test_one_byte_at_a_time(void **state)
{
	static const char data[] = "{\"kind\":\"ok\"}\n\n{\"a\":\"b\\n\"}\n";
	struct feeder f;
	struct bx_frame_reader r;
	struct bx_error err;
	const char *line;
	pthread_t t;
	size_t len;
	int sv[2];

	(void)state;
	pair(sv);
	f.fd = sv[0];
	f.data = data;
	f.len = sizeof(data) - 1;
	f.pause_ms = 1;
	assert_int_equal(pthread_create(&t, NULL, feed_bytes, &f), 0);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{\"kind\":\"ok\"}");
	/* An empty line is a frame; the decoder refuses it. */
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_int_equal(len, 0);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{\"a\":\"b\\n\"}");
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_EOF);
	pthread_join(t, NULL);
	bx_frame_reader_free(&r);
	close(sv[1]);
}

/* A frame of exactly BX_FRAME_MAX bytes, newline included, is accepted. */
static void
test_exact_limit(void **state)
{
	struct bx_frame_reader r;
	struct bx_error err;
	struct feeder f;
	const char *line;
	char *data;
	pthread_t t;
	size_t len;
	int sv[2];

	(void)state;
	data = malloc(BX_FRAME_MAX + 3);
	assert_non_null(data);
	memset(data, 'x', BX_FRAME_MAX - 1);
	data[BX_FRAME_MAX - 1] = '\n';
	memcpy(data + BX_FRAME_MAX, "{}\n", 3);
	pair(sv);
	f.fd = sv[0];
	f.data = data;
	f.len = BX_FRAME_MAX + 3;
	f.pause_ms = 0;
	/* Whole writes, from a thread, since the frame exceeds the buffer. */
	assert_int_equal(pthread_create(&t, NULL, feed_whole, &f), 0);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_int_equal(len, BX_FRAME_MAX - 1);
	assert_true(bx_frame_reader_held(&r) <= BX_FRAME_MAX);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{}");
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_EOF);
	pthread_join(t, NULL);
	bx_frame_reader_free(&r);
	close(sv[1]);
	free(data);
}
/*
 * A line longer than the limit is refused once BX_FRAME_MAX bytes have
 * arrived; the reader never holds more, and reads nothing after.
 */
static void
test_too_large(void **state)
{
	struct bx_frame_reader r;
	struct bx_error err;
	struct feeder f;
	const char *line;
	size_t len, total = 8 * (size_t)BX_FRAME_MAX;
	char *data;
	pthread_t t;
	int sv[2], unread = 0;

	(void)state;
	data = malloc(total);
	assert_non_null(data);
	memset(data, 'x', total);
	data[total - 1] = '\n';
	pair(sv);
	f.fd = sv[0];
	f.data = data;
	f.len = total;
	f.pause_ms = 0;
	assert_int_equal(pthread_create(&t, NULL, feed_whole, &f), 0);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_TOO_LARGE);
	assert_non_null(strstr(err.msg, "1048576"));
	assert_true(bx_frame_reader_held(&r) <= BX_FRAME_MAX);
	assert_true(bx_frame_reader_pending(&r) <= BX_FRAME_MAX);
	/* The rest of the stream was left in the socket. */
	sleep_ms(50);
	assert_int_equal(ioctl_unread(sv[1], &unread), 0);
	assert_true(unread > 0);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_TOO_LARGE);
	assert_true(bx_frame_reader_held(&r) <= BX_FRAME_MAX);
	bx_frame_reader_free(&r);
	close(sv[1]);		/* the feeder's send fails and it stops */
	pthread_join(t, NULL);
	free(data);
}

/*
 * BX_FRAME_MAX bytes before the newline is one too many, whatever limit
 * (0: none set) the reader was given.
 */
static void
one_past(size_t limit)
{
	struct bx_frame_reader r;
	struct bx_error err;
	struct feeder f;
	const char *line;
	char *data;
	pthread_t t;
	size_t len;
	int sv[2];

	data = malloc(BX_FRAME_MAX + 1);
	assert_non_null(data);
	memset(data, 'x', BX_FRAME_MAX);
	data[BX_FRAME_MAX] = '\n';
	pair(sv);
	f.fd = sv[0];
	f.data = data;
	f.len = BX_FRAME_MAX + 1;
	f.pause_ms = 0;
	assert_int_equal(pthread_create(&t, NULL, feed_whole, &f), 0);
	bx_frame_reader_init(&r, sv[1]);
	if (limit != 0)
		bx_frame_reader_limit(&r, limit);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_TOO_LARGE);
	assert_true(bx_frame_reader_held(&r) <= BX_FRAME_MAX);
	bx_frame_reader_free(&r);
	close(sv[1]);
	pthread_join(t, NULL);
	free(data);
}

static void
test_one_past_limit(void **state)
{
	(void)state;
	one_past(0);
}

/* A limit above a frame is no limit: still BX_FRAME_MAX. */
static void
test_one_past_limit_with_a_higher_limit(void **state)
{
	(void)state;
	one_past(4 * (size_t)BX_FRAME_MAX);
}

static volatile sig_atomic_t	signals_seen;

static void
on_signal(int sig)
{
	(void)sig;
	signals_seen++;
}

struct interrupter {
	pthread_t	 target;
	int		 fd;		/* -1: only interrupt */
	const char	*data;
	size_t		 len;
};

/* Interrupts the target thread many times, then sends the data. */
static void *
interrupt(void *arg)
{
	struct interrupter *in = arg;
	int i;

	for (i = 0; i < 20; i++) {
		pthread_kill(in->target, SIGUSR1);
		sleep_ms(2);
	}
	if (in->fd != -1)
		send_all(in->fd, in->data, in->len);
	return NULL;
}

static void
catch_sigusr1(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: calls see EINTR */
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
}

static void
test_a_limit_holds_the_buffer_until_raised(void **state)
{
	struct bx_frame_reader r;
	struct bx_error err;
	const char *line;
	size_t len, n = 3 * BX_FRAME_INITIAL;
	char *data;
	int sv[2];

	(void)state;
	pair(sv);
	assert_non_null(data = malloc(n + 1));
	memset(data, 'a', n);
	data[n] = '\n';
	/* Everything but the newline first. */
	assert_int_equal(bx_frame_write(sv[0], data, n, 5000, &err),
	    BX_FRAME_OK);
	bx_frame_reader_init(&r, sv[1]);
	bx_frame_reader_limit(&r, 2 * BX_FRAME_INITIAL);
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_FULL);
	assert_int_equal(bx_frame_reader_held(&r), 2 * BX_FRAME_INITIAL);
	assert_int_equal(bx_frame_reader_pending(&r), 2 * BX_FRAME_INITIAL);
	/* Not final, and it does not read past the limit. */
	assert_int_equal(bx_frame_read(&r, 0, &line, &len, &err),
	    BX_FRAME_FULL);
	assert_int_equal(bx_frame_reader_held(&r), 2 * BX_FRAME_INITIAL);
	/* Below the first buffer counts as the first buffer; never shrinks. */
	bx_frame_reader_limit(&r, 1);
	assert_int_equal(bx_frame_read(&r, 0, &line, &len, &err),
	    BX_FRAME_FULL);
	assert_int_equal(bx_frame_reader_held(&r), 2 * BX_FRAME_INITIAL);
	bx_frame_reader_limit(&r, (size_t)-1);
	assert_int_equal(bx_frame_write(sv[0], data + n, 1, 5000, &err),
	    BX_FRAME_OK);
	assert_int_equal(bx_frame_read(&r, 5000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_int_equal(len, n);
	assert_int_equal(line[0], 'a');
	assert_int_equal(line[n - 1], 'a');
	bx_frame_reader_free(&r);
	close(sv[0]);
	close(sv[1]);
	free(data);
}

static void
test_eintr(void **state)
{
	struct bx_frame_reader r;
	struct interrupter in;
	struct bx_error err;
	const char *line;
	pthread_t t;
	size_t len;
	int sv[2];

	(void)state;
	catch_sigusr1();
	signals_seen = 0;
	pair(sv);
	in.target = pthread_self();
	in.fd = sv[0];
	in.data = "{\"after\":\"signals\"}\n";
	in.len = strlen(in.data);
	assert_int_equal(pthread_create(&t, NULL, interrupt, &in), 0);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{\"after\":\"signals\"}");
	pthread_join(t, NULL);
	assert_true(signals_seen > 0);
	bx_frame_reader_free(&r);
	close(sv[0]);
	close(sv[1]);
}

/* The deadline keeps what has arrived; a later call goes on from it. */
static void
test_read_deadline(void **state)
{
	struct bx_frame_reader r;
	struct bx_error err;
	const char *line;
	size_t len;
	int sv[2];

	(void)state;
	pair(sv);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 20, &line, &len, &err),
	    BX_FRAME_TIMEOUT);
	assert_int_equal(bx_frame_read(&r, 0, &line, &len, &err),
	    BX_FRAME_TIMEOUT);
	send_all(sv[0], "{\"kind\":", 8);
	assert_int_equal(bx_frame_read(&r, 20, &line, &len, &err),
	    BX_FRAME_TIMEOUT);
	assert_non_null(strstr(err.msg, "no complete frame"));
	assert_int_equal(bx_frame_reader_pending(&r), 8);
	send_all(sv[0], "\"ok\"}\n{}\n", 9);
	assert_int_equal(bx_frame_read(&r, 30000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{\"kind\":\"ok\"}");
	/* Already buffered: no wait needed, even with a zero deadline. */
	assert_int_equal(bx_frame_read(&r, 0, &line, &len, &err),
	    BX_FRAME_OK);
	assert_string_equal(line, "{}");
	assert_int_equal(bx_frame_reader_pending(&r), 0);
	bx_frame_reader_free(&r);
	close(sv[0]);
	close(sv[1]);
}

/* A peer trickling bytes cannot stretch the deadline: it covers the frame. */
static void
test_deadline_covers_frame(void **state)
{
	static char data[200];
	struct bx_frame_reader r;
	struct bx_error err;
	struct feeder f;
	const char *line;
	pthread_t t;
	size_t len;
	int sv[2];

	(void)state;
	memset(data, 'x', sizeof(data) - 1);
	data[sizeof(data) - 1] = '\n';
	pair(sv);
	f.fd = sv[0];
	f.data = data;
	f.len = sizeof(data);
	f.pause_ms = 10;	/* 2 s for the whole frame */
	assert_int_equal(pthread_create(&t, NULL, feed_bytes, &f), 0);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 100, &line, &len, &err),
	    BX_FRAME_TIMEOUT);
	assert_true(bx_frame_reader_pending(&r) < sizeof(data));
	bx_frame_reader_free(&r);
	close(sv[1]);
	pthread_join(t, NULL);
}

struct slow_reader {
	int	 fd;
	char	*got;
	size_t	 len;
	size_t	 cap;
};

/* Reads everything in small pieces with pauses, until end of stream. */
static void *
read_slowly(void *arg)
{
	struct slow_reader *sr = arg;
	ssize_t n;

	for (;;) {
		n = read(sr->fd, sr->got + sr->len,
		    sr->cap - sr->len < 4096 ? sr->cap - sr->len : 4096);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sr->len += (size_t)n;
		if (sr->len % (64 * 1024) < 4096)
			sleep_ms(1);
	}
	return NULL;
}

static void
small_buffers(int fd)
{
	int size = 4096;

	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size,
	    sizeof(size)), 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size,
	    sizeof(size)), 0);
}

/*
 * A whole 1 MiB frame through small socket buffers to a slow reader, with
 * the writer interrupted by signals; blocking and non-blocking.
 */
static void
write_large(bool nonblocking)
{
	struct slow_reader sr;
	struct interrupter in;
	struct bx_error err;
	pthread_t t, ti;
	char *data;
	size_t i;
	int sv[2];

	catch_sigusr1();
	data = malloc(BX_FRAME_MAX);
	assert_non_null(data);
	for (i = 0; i < BX_FRAME_MAX - 1; i++)
		data[i] = (char)('a' + i % 26);
	data[BX_FRAME_MAX - 1] = '\n';
	pair(sv);
	small_buffers(sv[0]);
	small_buffers(sv[1]);
	if (nonblocking)
		assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	sr.fd = sv[1];
	sr.cap = BX_FRAME_MAX + 1;
	sr.len = 0;
	sr.got = malloc(sr.cap);
	assert_non_null(sr.got);
	assert_int_equal(pthread_create(&t, NULL, read_slowly, &sr), 0);
	in.target = pthread_self();
	in.fd = -1;
	assert_int_equal(pthread_create(&ti, NULL, interrupt, &in), 0);
	assert_int_equal(bx_frame_write(sv[0], data, BX_FRAME_MAX, 60000,
	    &err), BX_FRAME_OK);
	pthread_join(ti, NULL);
	close(sv[0]);
	pthread_join(t, NULL);
	assert_int_equal(sr.len, BX_FRAME_MAX);
	assert_memory_equal(sr.got, data, BX_FRAME_MAX);
	close(sv[1]);
	free(sr.got);
	free(data);
}

static void
test_write_large_blocking(void **state)
{
	(void)state;
	write_large(false);
}

static void
test_write_large_nonblocking(void **state)
{
	(void)state;
	write_large(true);
}

static void
test_write_refusals(void **state)
{
	struct bx_error err = { "" };
	char *data;
	int sv[2], p[2];

	(void)state;
	data = malloc(BX_FRAME_MAX + 1);
	assert_non_null(data);
	memset(data, 'x', BX_FRAME_MAX + 1);
	pair(sv);

	/* Too large: refused before anything is written. */
	assert_int_equal(bx_frame_write(sv[0], data, BX_FRAME_MAX + 1, -1,
	    &err), BX_FRAME_TOO_LARGE);

	/* A peer that never reads: the deadline ends the write. */
	small_buffers(sv[0]);
	assert_int_equal(bx_frame_write(sv[0], data, BX_FRAME_MAX, 50, &err),
	    BX_FRAME_TIMEOUT);
	assert_non_null(strstr(err.msg, "of 1048576 bytes"));

	/* A closed peer: an error, not SIGPIPE. */
	close(sv[1]);
	assert_int_equal(bx_frame_write(sv[0], "{}\n", 3, 1000, &err),
	    BX_FRAME_IO);
	assert_non_null(strstr(err.msg, "write"));
	close(sv[0]);

	/* Not a socket: write(2) is used. */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(bx_frame_write(p[1], "{}\n", 3, 1000, &err),
	    BX_FRAME_OK);
	assert_int_equal(read(p[0], data, 16), 3);
	assert_memory_equal(data, "{}\n", 3);
	close(p[0]);
	close(p[1]);
	free(data);
}

static void
test_status_names(void **state)
{
	(void)state;
	assert_string_equal(bx_frame_status_name(BX_FRAME_TOO_LARGE),
	    "frame too large");
	assert_string_equal(bx_frame_status_name(BX_FRAME_FULL),
	    "buffer at its limit");
	assert_string_equal(bx_frame_status_name(BX_FRAME_STATUS_MAX), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_frames_then_eof),
		cmocka_unit_test(test_partial_at_eof),
		cmocka_unit_test(test_one_byte_at_a_time),
		cmocka_unit_test(test_exact_limit),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_one_past_limit),
		cmocka_unit_test(test_a_limit_holds_the_buffer_until_raised),
		cmocka_unit_test(test_one_past_limit_with_a_higher_limit),
		cmocka_unit_test(test_eintr),
		cmocka_unit_test(test_read_deadline),
		cmocka_unit_test(test_deadline_covers_frame),
		cmocka_unit_test(test_write_large_blocking),
		cmocka_unit_test(test_write_large_nonblocking),
		cmocka_unit_test(test_write_refusals),
		cmocka_unit_test(test_status_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
