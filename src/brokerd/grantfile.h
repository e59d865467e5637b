/*
 * grantfile.h: one grant file's bytes decoded into a struct grant, or the
 * problems that make it invalid (design section 3, "Loading", rules 1 to 8).
 * Reading files and keeping the set is grants.c's job; this is only the
 * decoder, so that it can be tested and fuzzed on buffers.
 *
 * Every problem found is reported, not only the first, so the owner can fix
 * a file in one pass. A problem's text names the field; its line is the
 * line the TOML parser gives, or 0 when there is none.
 *
 * Ownership: on success the strings and arrays in *ret are allocated and
 * belong to the caller, who releases them with grant_clear(). The decoder
 * leaves g_bytes NULL: the caller hands the grant its bytes.
 */
#ifndef BROKERD_GRANTFILE_H
#define BROKERD_GRANTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/grants.h"
#include "proto/error.h"

/* Where problems go. problem() returns -1 only when memory runs out. */
struct grantfile_sink {
	int	(*gfs_problem)(void *ctx, int64_t line, const char *problem);
	void	*gfs_ctx;
};

/*
 * Decodes len bytes of buf, the contents of the file at path file (its
 * last component, less ".toml", is the grant's id). Returns 0, with *ret
 * filled and *ret_valid true when the file has no problem, or *ret_valid
 * false when it reported at least one. Returns -1 only when memory runs
 * out.
 */
int	grantfile_decode(const char *file, const char *buf, size_t len,
	    const struct grantfile_sink *sink, struct grant *ret,
	    bool *ret_valid, struct bx_error *err);

/* Frees what a grant holds (not the struct itself). NULL is allowed. */
void	grant_clear(struct grant *);

#endif
