/*
 * harness.h: what test-bxegress runs bxegress through, as brokerd runs
 * it: a Unix socket the test binds and listens on in a mkdtemp
 * directory, a report file opened O_WRONLY|O_APPEND, both passed as
 * descriptors; a raw SOCKS5 client; and the report read line by line, so
 * that each case asserts the exact lines its connections produced.
 *
 * Every function fails the cmocka test when it cannot do its part.
 */
#ifndef BXE_TEST_HARNESS_H
#define BXE_TEST_HARNESS_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

/* The descriptors bxegress gets, above anything the test holds. */
#define H_LISTEN_FD	100
#define H_REPORT_FD	101
/* How long a client or a report line is waited for. */
#define H_WAIT_MS	10000
#define H_PATH_MAX	256
#define H_LINE_MAX	2048
#define H_ARGS_MAX	512

struct proxy {
	pid_t	 p_pid;
	char	 p_dir[H_PATH_MAX];
	char	 p_sock[H_PATH_MAX];
	char	 p_report[H_PATH_MAX];
	char	 p_stderr[H_PATH_MAX];
	int	 p_listen;	/* the test's copy */
	size_t	 p_seen;	/* report bytes already checked */
};

/* The bxegress under test ($BX_BUILD_ROOT/src/bxegress/bxegress). */
const char *h_bxegress(void);

/*
 * Starts bxegress with the descriptors and args (NULL-ended: the options
 * after --listen-fd and --report-fd, then -- and the patterns).
 */
void	proxy_start(struct proxy *p, const char *const *args);
/* The usual instance: timeouts of 2 s, 1 MiB, good.test and *.good.test. */
void	proxy_start_default(struct proxy *p);
/* SIGTERM, then its exit status (-1 if it died of a signal). */
int	proxy_stop(struct proxy *p);
/*
 * SIGTERM; then asserts exit status 0, no report line more than those
 * checked, nothing on its stderr, and frees p.
 */
void	proxy_stop_clean(struct proxy *p);
/* Removes the directory and what is in it. */
void	proxy_free(struct proxy *p);

/* Runs bxegress with args alone, no descriptors; its exit status. */
int	h_run_status(const char *const *args, int listen_fd, int report_fd,
	    char *err, size_t errsize);

int	client_connect(const struct proxy *p);
void	client_send(int fd, const void *buf, size_t len);
/* Sends buf one byte per send, with a short pause between. */
void	client_send_slowly(int fd, const void *buf, size_t len);
/* Reads exactly len bytes. */
void	client_read_exact(int fd, void *buf, size_t len);
/* Reads until EOF (or a reset) within H_WAIT_MS; the bytes read. */
size_t	client_read_all(int fd, void *buf, size_t size);
/* Whether fd has nothing to read and is not at EOF after ms. */
bool	client_silent(int fd, int ms);

/* Sends req, reads to EOF and compares with want and the report line. */
void	exchange(struct proxy *p, const void *req, size_t reqlen,
	    const void *want, size_t wantlen, const char *line);

/* The next report line (without its newline), waited for. */
void	report_next(struct proxy *p, char *line, size_t size);
void	report_expect(struct proxy *p, const char *want);
/* No new line within ms. */
void	report_expect_none(struct proxy *p, int ms);

/* greeting 05 01 00 + CONNECT to name:port, into out; its length. */
size_t	socks_request(unsigned char *out, const char *name, size_t namelen,
	    unsigned port);

#endif
