/*
 * filter.h: the system-call filter of every bwrap sandbox (m3b-runner.md
 * section 3) and of loopd's jail (roles.md section 3): one deny list, so
 * the jail is at least as strict as the sandbox. bwrap has no filter of its
 * own; it installs the program it reads from `--seccomp FD` (the runner
 * writes it to a memfd) just before it execs the tool, after its own
 * namespace set-up, with no-new-privileges. The jail installs it itself
 * (jail.h), last before exec.
 *
 * The program, built with libseccomp for the native architecture only,
 * allows everything but a deny list: at least what podman's default profile
 * denies that a tool has no use for. EPERM for mount and the new mount API
 * (fsopen, fsconfig, fsmount, fspick, move_mount, open_tree,
 * mount_setattr), umount, pivot_root, chroot; unshare, setns and clone with
 * any CLONE_NEW* flag; keyctl, add_key, request_key; bpf, perf_event_open,
 * userfaultfd; io_uring_setup, io_uring_enter and io_uring_register (the
 * ring submits calls the filter never sees); kexec and module loading; ptrace, process_vm_readv/writev,
 * kcmp; personality other than 0 (PER_LINUX) and 0xffffffff (the query);
 * swapon, swapoff, reboot, acct, quotactl, nfsservctl, lookup_dcookie,
 * the handle calls, iopl, ioperm, syslog, vhangup and the clock setters.
 * ENOSYS for clone3, whose flags sit in memory a filter cannot read, so
 * that libc falls back to clone, whose flags it can. A system call of
 * another ABI (x32, i386) meets libseccomp's bad-architecture action and
 * kills the process.
 *
 * Ownership: seccomp_program allocates *ret_bpf (an array of struct
 * sock_filter, *ret_len bytes); the caller frees it with free(3).
 */
#ifndef JAIL_FILTER_H
#define JAIL_FILTER_H

#include <stddef.h>

#include "proto/error.h"

int	seccomp_program(void **ret_bpf, size_t *ret_len, struct bx_error *);

#endif
