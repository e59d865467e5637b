/*
 * escape-probe.c: the system calls a sandboxed tool must not be able to
 * use, tried one by one from inside a sandbox (test-escape.c copies this
 * static program into a granted directory). Each probe named on the
 * command line prints one line, "NAME: ok" or "NAME: <strerror>", so the
 * test asserts the exact errno of every refusal, whatever tools the
 * sandbox's /usr holds. "ids" prints the effective uid and capabilities
 * (run setuid, it shows what no-new-privileges kept).
 */
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <linux/bpf.h>
#include <linux/perf_event.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Another process of the sandbox: pid 1, its init. */
static long
try_ptrace(void)
{
	long rc;

	if ((rc = ptrace(PTRACE_ATTACH, 1, NULL, NULL)) == 0) {
		(void)waitpid(1, NULL, __WALL);
		(void)ptrace(PTRACE_DETACH, 1, NULL, NULL);
	}
	return rc;
}

static long
try_perf(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static long
try_bpf(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	return syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
}

static long
try_setns(void)
{
	int fd;

	if ((fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	return setns(fd, CLONE_NEWNET);
}

/* A child in a new user namespace, made by clone, not unshare. */
static long
try_clone_userns(void)
{
	long pid;
	int status;

	pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL,
	    NULL);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		(void)waitpid((pid_t)pid, &status, 0);
	return pid > 0 ? 0 : pid;
}

static void
ids(void)
{
	char line[256];
	FILE *fp;

	printf("euid %d\n", (int)geteuid());
	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, "Cap", 3) == 0 ||
		    strncmp(line, "NoNewPrivs", 10) == 0)
			fputs(line, stdout);
	fclose(fp);
}

static long
probe(const char *name)
{
	if (strcmp(name, "mount") == 0)
		return mount("none", "/tmp", "tmpfs", 0, NULL);
	if (strcmp(name, "umount") == 0)
		return umount2("/proc", MNT_DETACH);
	if (strcmp(name, "unshare") == 0)
		return unshare(CLONE_NEWNS);
	if (strcmp(name, "userns") == 0)
		return unshare(CLONE_NEWUSER);
	if (strcmp(name, "clone-userns") == 0)
		return try_clone_userns();
	if (strcmp(name, "setns") == 0)
		return try_setns();
	if (strcmp(name, "ptrace") == 0)
		return try_ptrace();
	if (strcmp(name, "keyctl") == 0)
		return syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */,
		    NULL);
	if (strcmp(name, "bpf") == 0)
		return try_bpf();
	if (strcmp(name, "perf_event_open") == 0)
		return try_perf();
	if (strcmp(name, "userfaultfd") == 0)
		return syscall(SYS_userfaultfd, O_CLOEXEC);
	if (strcmp(name, "mknod") == 0)
		return mknod("/tmp/mem", S_IFCHR | 0600, makedev(1, 1));
	if (strcmp(name, "chroot") == 0)
		return chroot("/tmp");
	errno = EINVAL;
	return -1;
}

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "ids") == 0) {
			ids();
			continue;
		}
		errno = 0;
		if (probe(argv[i]) >= 0)
			printf("%s: ok\n", argv[i]);
		else
			printf("%s: %s\n", argv[i], strerror(errno));
	}
	return 0;
}
