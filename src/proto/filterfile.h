/*
 * filterfile.h: a system-call filter program read from a file, and its
 * installation. brokerd writes its filter (brokerd/seccomp.h) once at start
 * to <home>/broker/seccomp.bpf; bxtool installs it inside a podman sandbox
 * and bxegress installs it on itself, since neither podman nor a plain
 * exec can add a filter for them. The file is raw struct sock_filter
 * instructions, native byte order, as seccomp(2) takes them.
 *
 * Ownership: the caller owns the struct (32 KiB: static storage suits it).
 * Nothing is allocated.
 */
#ifndef PROTO_FILTERFILE_H
#define PROTO_FILTERFILE_H

#include <linux/filter.h>

#include "proto/error.h"

struct bx_filter_prog {
	struct sock_filter	fp_insns[BPF_MAXINSNS];
	unsigned short		fp_len;
};

/*
 * Reads the whole program from fd (name is for the message): fails if it
 * is empty, not a whole number of instructions, or longer than
 * BPF_MAXINSNS. *ret is written only on success.
 */
int	bx_filter_read(int fd, const char *name, struct bx_filter_prog *ret,
	    struct bx_error *err);

/*
 * bx_filter_read of the file at path, which must be a regular file (a FIFO
 * there cannot hang the reader) and no link; messages name path.
 */
int	bx_filter_load(const char *path, struct bx_filter_prog *ret,
	    struct bx_error *err);

/*
 * Sets no_new_privs and installs the program on the calling thread, which
 * every thread and process it starts inherits.
 */
int	bx_filter_install(const struct bx_filter_prog *, struct bx_error *err);

#endif
