/*
 * filter.c: the system calls bxtool refuses to everything it runs, on top
 * of the runtime's own filter. podman's default profile lets a tool make a
 * user namespace with unshare(2) and use the kernel's keyrings, which no
 * namespace separates: as uid 0 a tool would reach the host root's keys;
 * and ptrace of the sandbox's other processes, its init among them.
 * brokerd's filter for bwrap (seccomp.c) refuses both already; this one
 * holds under either runtime. Classic BPF written out, since bxtool links
 * against libc alone; a call of another ABI (x32, i386) is refused whole,
 * as its numbers are not the ones checked here.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>

#include "bxtool/bxtool.h"

#if defined(__x86_64__)
#define FILTER_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FILTER_ARCH	AUDIT_ARCH_AARCH64
#else
#error "filter.c: no seccomp architecture for this target"
#endif

/* x86_64's x32 calls carry this bit in their number. */
#define X32_SYSCALL_BIT	0x40000000
#define DENY		(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
/* clone3's flags are in memory, out of reach: ENOSYS makes libc use clone. */
#define NO_CLONE3	(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))
#define LOAD(field)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
			    offsetof(struct seccomp_data, field))
#define IS(k, jt, jf)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (jt), (jf))
#define RET(k)		BPF_STMT(BPF_RET | BPF_K, (k))

/* Jumps count the instructions skipped; the comments number them. */
static struct sock_filter program[] = {
	LOAD(arch),					/* 0 */
	IS(FILTER_ARCH, 1, 0),				/* 1 */
	RET(DENY),					/* 2 */
	LOAD(nr),					/* 3 */
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 11, 0), /* 4 */
	IS(SYS_keyctl, 10, 0),				/* 5 */
	IS(SYS_add_key, 9, 0),				/* 6 */
	IS(SYS_request_key, 8, 0),			/* 7 */
	IS(SYS_ptrace, 7, 0),				/* 8 */
	IS(SYS_clone3, 4, 0),				/* 9 */
	IS(SYS_unshare, 1, 0),				/* 10 */
	IS(SYS_clone, 0, 3),				/* 11 */
	/* Both take their flags first; the low word, little-endian. */
	LOAD(args[0]),					/* 12 */
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 2, 1), /* 13 */
	RET(NO_CLONE3),					/* 14 */
	RET(SECCOMP_RET_ALLOW),				/* 15 */
	RET(DENY),					/* 16 */
};

int
bxt_filter(struct bxt_outcome *out)
{
	struct sock_fprog prog = {
		sizeof(program) / sizeof(program[0]), program,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1) {
		bxt_fail(out, "cannot install bxtool's system call filter: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}
