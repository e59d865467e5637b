/*
 * filter.c: the system-call filter of bwrap and the jail (filter.h).
 * libseccomp builds it and exports it to a memfd, from which it is read
 * back: the program is made once at startup and handed to every bwrap
 * call, or installed by the jail once.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h>

#include "jail/filter.h"

/* No filter program reaches this; a bound on what is read back. */
#define SECCOMP_PROGRAM_MAX	(64 * 1024)

/* Denied with EPERM whatever their arguments. */
static const char *const deny[] = {
	"mount", "umount", "umount2", "pivot_root", "chroot",
	"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
	"mount_setattr", "unshare", "setns",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "create_module", "query_module", "get_kernel_syms",
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
	"swapon", "swapoff", "reboot", "acct", "quotactl", "nfsservctl",
	"lookup_dcookie", "open_by_handle_at", "name_to_handle_at",
	"iopl", "ioperm", "syslog", "vhangup", "uselib", "ustat", "sysfs",
	"_sysctl", "settimeofday", "stime", "clock_settime", "clock_adjtime",
	"adjtimex",
};

/* A flag in clone's first argument (x86_64) that makes a namespace. */
static const unsigned long clone_new[] = {
	CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET,
	CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWCGROUP,
};

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * personality: only 0 (PER_LINUX) and 0xffffffff (the query) are allowed;
 * the kernel reads 32 bits. A rule compares an argument once, so the rest
 * is a union: a 32-bit value that is neither all zeros nor all ones has,
 * going round its bits, a set bit i whose next bit (i + 1) % 32 is clear.
 */
static int
personality_rules(scmp_filter_ctx ctx, struct bx_error *err)
{
	uint64_t bit, next;
	int i, r;

	for (i = 0; i < 32; i++) {
		bit = 1ULL << i;
		next = 1ULL << ((i + 1) % 32);
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    bit | next, bit))) < 0)
			return bx_fail(err, "seccomp: a rule for personality: "
			    "%s", strerror(-r));
	}
	return 0;
}

/* libseccomp returns -errno; a name it does not know is refused. */
static int
rules(scmp_filter_ctx ctx, struct bx_error *err)
{
	size_t i;
	int nr, r;

	for (i = 0; i < LEN(deny); i++) {
		/* A call the native ABI lacks resolves to a pseudo number. */
		if ((nr = seccomp_syscall_resolve_name(deny[i])) ==
		    __NR_SCMP_ERROR)
			return bx_fail(err, "seccomp: libseccomp does not know "
			    "%s", deny[i]);
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr,
		    0)) < 0)
			return bx_fail(err, "seccomp: a rule for %s: %s",
			    deny[i], strerror(-r));
	}
	for (i = 0; i < LEN(clone_new); i++)
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    clone_new[i], clone_new[i]))) < 0)
			return bx_fail(err, "seccomp: a rule for clone: %s",
			    strerror(-r));
	if (personality_rules(ctx, err) == -1)
		return -1;
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(clone3), 0)) < 0)
		return bx_fail(err, "seccomp: a rule for clone3: %s",
		    strerror(-r));
	return 0;
}

/* Reads the exported program back from the start of fd. */
static int
read_back(int fd, void **ret_bpf, size_t *ret_len, struct bx_error *err)
{
	struct stat st;
	size_t len = 0;
	ssize_t n;
	char *buf;

	if (fstat(fd, &st) == -1 || lseek(fd, 0, SEEK_SET) == -1)
		return bx_fail(err, "seccomp: the exported program: %s",
		    strerror(errno));
	if (st.st_size <= 0 || st.st_size > SECCOMP_PROGRAM_MAX ||
	    st.st_size % 8 != 0)
		return bx_fail(err, "seccomp: an exported program of %lld "
		    "bytes", (long long)st.st_size);
	if ((buf = malloc((size_t)st.st_size)) == NULL)
		return bx_fail(err, "seccomp: out of memory");
	while (len < (size_t)st.st_size) {
		n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return bx_fail(err, "seccomp: reading the program: %s",
			    n == 0 ? "it ended early" : strerror(errno));
		}
		len += (size_t)n;
	}
	*ret_bpf = buf;
	*ret_len = len;
	return 0;
}

int
seccomp_program(void **ret_bpf, size_t *ret_len, struct bx_error *err)
{
	scmp_filter_ctx ctx;
	int fd = -1, r, rc = -1;

	/* There clone's flags are its second argument, not its first. */
	if (seccomp_arch_native() == SCMP_ARCH_S390 ||
	    seccomp_arch_native() == SCMP_ARCH_S390X)
		return bx_fail(err, "seccomp: the clone rules do not fit s390");
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return bx_fail(err, "seccomp: seccomp_init failed");
	if (rules(ctx, err) == -1)
		goto out;
	if ((fd = memfd_create("boxmaker-seccomp", MFD_CLOEXEC)) == -1) {
		bx_fail(err, "seccomp: memfd_create: %s", strerror(errno));
		goto out;
	}
	if ((r = seccomp_export_bpf(ctx, fd)) < 0) {
		bx_fail(err, "seccomp: seccomp_export_bpf: %s", strerror(-r));
		goto out;
	}
	rc = read_back(fd, ret_bpf, ret_len, err);
out:
	if (fd != -1)
		close(fd);
	seccomp_release(ctx);
	return rc;
}
