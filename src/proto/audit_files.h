/*
 * audit_files.h: reading the audit directory, shared by brokerd's startup
 * and bxctl audit verify: the *.jsonl files in name order, each mapped
 * whole, and fed to a ChainVerifier line by line. The verifier itself
 * (chain.h) does no I/O; this is the I/O around it.
 *
 * Allocation: bx_audit_list allocates the name list (free it with
 * bx_audit_names_free); bx_audit_map maps a file (release it with
 * bx_audit_unmap). Descriptors are opened O_CLOEXEC and closed before
 * return.
 */
#ifndef BX_AUDIT_FILES_H
#define BX_AUDIT_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/chain.h"
#include "proto/error.h"

/* More files than this in audit/ is not a log this program wrote. */
#define BX_AUDIT_FILES_MAX	100000

/*
 * The names of the *.jsonl entries of the directory open at dirfd, sorted
 * by name (byte order). An entry that is not a regular file is an error.
 */
int	bx_audit_list(int dirfd, char ***ret_names, size_t *ret_n,
	    struct bx_error *);
void	bx_audit_names_free(char **names, size_t n);

/* Whether name is an audit file name: YYYY-MM-DD.jsonl, a real date. */
bool	bx_audit_name_is_date(const char *name);

/*
 * Maps the file name under dirfd read-only: a regular file, not through a
 * symlink. An empty file maps to NULL, 0.
 */
int	bx_audit_map(int dirfd, const char *name, const char **ret_buf,
	    size_t *ret_len, struct bx_error *);
void	bx_audit_unmap(const char *buf, size_t len);

/*
 * Feeds a whole file's bytes to c as lines: bx_chain_file(name), then each
 * line without its "\n", the last one flagged, with has_newline false if
 * the file does not end in "\n".
 */
void	bx_audit_feed(struct bx_chain *c, const char *name, const char *buf,
	    size_t len);

/*
 * Feeds the lines of buf to c, in the file bx_chain_file last named. With
 * whole, the bytes are all the file holds: as bx_audit_feed. Without, more
 * may follow (a live log): a last line without its newline is not fed, and
 * no line is flagged last. Returns the bytes fed.
 */
size_t	bx_audit_feed_lines(struct bx_chain *c, const char *buf, size_t len,
	    bool whole);

#endif
