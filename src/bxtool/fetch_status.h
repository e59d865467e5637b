/*
 * fetch_status.h: what bxtool fetch reads out of the bytes curl hands it,
 * which a remote server of the model's choosing (within the grant)
 * controls: the final response's status in curl's header dump, and in
 * curl's stderr the code of bxtool's --write-out line and curl's own error
 * line. Pure functions over buffers, no I/O: fetch.c reads, these parse.
 */
#ifndef BXT_FETCH_STATUS_H
#define BXT_FETCH_STATUS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * How much of a header line is kept: a status line's code and the byte
 * after it must lie within it ("HTTP/1.1 200 " is 13 bytes).
 */
#define FETCH_HEAD_MAX		32
/* curl's --write-out line on its stderr: the marker, then the code. */
#define FETCH_CODE_MARK		"bxtool-curl-code: "
/* With a secret, a second line: the redirect's target curl did not follow. */
#define FETCH_REDIRECT_MARK	"bxtool-curl-redirect: "

enum fetch_head_state {
	FETCH_HEAD_STATUS,	/* before the next response's status line */
	FETCH_HEAD_BLOCK,	/* in a response's header block */
	FETCH_HEAD_DONE,	/* past the final response's block */
	FETCH_HEAD_STATE_MAX
};

/*
 * A header dump being read, in pieces of any size: the dump is never
 * held whole, so its size needs no limit.
 */
struct fetch_head {
	char			fh_line[FETCH_HEAD_MAX];  /* the line's start */
	size_t			fh_len;		/* bytes kept */
	bool			fh_cut;		/* the line is longer */
	enum fetch_head_state	fh_state;
	int			fh_code;	/* the last status, or 0 */
	/*
	 * The last response's block has a Content-Encoding that is not
	 * identity (or one too long to read whole, which counts as such).
	 */
	bool			fh_encoded;
};

void	fetch_head_init(struct fetch_head *h);
void	fetch_head_feed(struct fetch_head *h, const char *buf, size_t len);
/* The final response's status, 100 to 599, or 0 without one. */
int	fetch_head_status(const struct fetch_head *h);
/* Whether the final response said a Content-Encoding other than identity. */
bool	fetch_head_encoded(const struct fetch_head *h);

/*
 * The code of the last --write-out line in err[0..*len), 100 to 599, or
 * 0. The line is taken out of err (and *len made shorter), so that what
 * is left is curl's own words.
 */
int	fetch_curl_code(char *err, size_t *len);

/*
 * The target of the last --write-out redirect line in err[0..*len), copied
 * into out (size bytes, NUL-ended): 1 when there is one, 0 when curl named
 * none, -1 when it is longer than out. The line is taken out of err, as
 * fetch_curl_code does; call this one first, since it follows the code.
 */
int	fetch_curl_redirect(char *err, size_t *len, char *out, size_t size);

/*
 * Whether url is https on host itself, port 443: "https://" host, an
 * optional ":443", then the end or one of "/?#"; the host compared
 * without regard to case, no user information, nothing else.
 */
bool	fetch_same_host(const char *url, const char *host);
/*
 * The host of an https URL ("https://" up to ":", "/", "?", "#" or the
 * end) into out; -1 when it has none, user information, or is too long.
 */
int	fetch_url_host(const char *url, char *out, size_t size);

/* The length of curl's first line in err, its error line, or 0. */
size_t	fetch_err_line(const char *err, size_t len);

#endif
