/*
 * readfile.h: reading a whole small file (a config, a grant, a state file,
 * core memory, a session log) into memory, up to a named limit. What is not
 * a regular file is refused before anything is read, so a FIFO or a device
 * at the path cannot hang the reader (it is opened O_NONBLOCK), and a
 * directory is told apart so the caller can say so. Reads loop on EINTR
 * and short reads, until end of file: a file that grows past the limit
 * while read is refused too.
 *
 * Every descriptor is O_CLOEXEC and O_NOCTTY, and is closed before return
 * (bx_readfile_open hands its one to the caller, who closes it).
 * bx_readfile and bx_readfile_at allocate the buffer (one byte more than
 * the file, a '\0', so text can be used as a string); the caller frees it.
 *
 * On failure err names the file and says what is wrong, and *why (when not
 * NULL) says which of enum bx_readfile_why it was, for callers that word
 * their own message; after BX_READFILE_OPEN and BX_READFILE_READ errno is
 * the one of the call that failed (ENOENT: there is no file).
 */
#ifndef BX_READFILE_H
#define BX_READFILE_H

#include <stddef.h>

#include "proto/error.h"

enum bx_readfile_why {
	BX_READFILE_OPEN = 1,	/* open(2) failed */
	BX_READFILE_DIRECTORY,
	BX_READFILE_NOT_REGULAR,
	BX_READFILE_TOO_LARGE,	/* more than max bytes */
	BX_READFILE_READ,	/* fstat(2) or read(2) failed */
	BX_READFILE_NOMEM,
};

/*
 * Opens name under dirfd (AT_FDCWD: name is a path) for reading, with
 * extra_flags added (O_NOFOLLOW, say), and checks it is a regular file of
 * at most max bytes (0: any size). shown is how messages name it. Its
 * descriptor and size are returned; the descriptor stays non-blocking.
 */
int	bx_readfile_open(int dirfd, const char *name, const char *shown,
	    int extra_flags, size_t max, int *ret_fd, size_t *ret_size,
	    enum bx_readfile_why *why, struct bx_error *);

/* The whole of an open descriptor (read from where it is) into a new buffer. */
int	bx_readfile_fd(int fd, const char *shown, size_t max, char **ret_buf,
	    size_t *ret_len, enum bx_readfile_why *why, struct bx_error *);

/* bx_readfile_open, then bx_readfile_fd. */
int	bx_readfile_at(int dirfd, const char *name, const char *shown,
	    int extra_flags, size_t max, char **ret_buf, size_t *ret_len,
	    enum bx_readfile_why *why, struct bx_error *);

/* The file at path, named by its path in messages. */
int	bx_readfile(const char *path, size_t max, char **ret_buf,
	    size_t *ret_len, enum bx_readfile_why *why, struct bx_error *);

#endif
