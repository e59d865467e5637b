/*
 * jail-attacker.c: what a taken-over loopd would try, run inside the jail
 * by test-jail.c. It tries each door of roles.md section 1 and prints one
 * line per door, "NAME RESULT", RESULT being "ok" or the errno's name, and
 * then the lines of /proc/self/status the test checks, on descriptor 3
 * (the jail's passed descriptor), then waits to be killed so the test can
 * look at its namespaces from outside. It decides nothing: the test says
 * which result each door must give.
 *
 *	jail-attacker HOME CONFIG OWNER_UID OUTSIDE_PID PORT PLANTED
 */
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *home, *config, *planted;
static uid_t owner;
static pid_t outside;
static int port;

static void
say(const char *door, int r)
{
	printf("%s %s\n", door, r == 0 ? "ok" : strerrorname_np(errno));
	fflush(stdout);
}

/* Made as loopd makes its session logs: group bits for the ACL's mask. */
static int
try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY, 0660);

	if (fd == -1)
		return -1;
	close(fd);
	return 0;
}

static int
try_unix(const char *path)
{
	struct sockaddr_un sun;
	int fd, r;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	r = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
	return r;
}

static int
try_inet(int type)
{
	struct sockaddr_in sin;
	int fd, r;

	if ((fd = socket(AF_INET, type | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (type == SOCK_DGRAM)
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&sin,
		    sizeof(sin)) == 1 ? 0 : -1;
	else
		r = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	close(fd);
	return r;
}

static void
door_path(const char *door, const char *rel, int flags)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", home, rel);
	say(door, try_open(path, flags));
}

static void
door_socket(const char *door, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
door_socket(const char *door, const char *fmt, ...)
{
	char path[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	say(door, try_unix(path));
}

/* Every socket file the jail's tree shows that answers a connect. */
static int
walk_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)type;
	(void)f;
	if (strncmp(path, "/proc", 5) == 0)
		return FTW_SKIP_SUBTREE;
	if (S_ISSOCK(st->st_mode) && try_unix(path) == 0)
		printf("walk-connects %s\n", path);
	return FTW_CONTINUE;
}

static void
doors_files(void)
{
	char path[4096];

	door_path("grants", "grants", O_RDONLY | O_DIRECTORY);
	door_path("audit", "audit", O_RDONLY | O_DIRECTORY);
	door_path("broker-state", "broker", O_RDONLY | O_DIRECTORY);
	door_path("admin-dir", "run/owner-broker", O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s", config);
	*strrchr(path, '/') = '\0';
	strncat(path, "/brokerd.toml", sizeof(path) - strlen(path) - 1);
	say("config-dir", try_open(path, O_RDONLY));
	say("planted", try_open(planted, O_RDONLY));
	door_path("planted-in-sessions", "sessions/owner-secret", O_RDONLY);
	say("write-config", try_open(config, O_WRONLY));
	door_path("write-core", "memory/core.md", O_WRONLY);
	door_path("read-core", "memory/core.md", O_RDONLY);
	door_path("write-sessions", "sessions/from-the-jail", O_WRONLY |
	    O_CREAT);
	door_path("append-old-log", "sessions/old.jsonl", O_WRONLY | O_APPEND);
	say("root-write", try_open("/usr/x", O_WRONLY | O_CREAT));
	say("etc-passwd", try_open("/etc/passwd", O_RDONLY));
	say("sys", try_open("/sys/kernel", O_RDONLY | O_DIRECTORY));
	say("home-dir", try_open("/home", O_RDONLY | O_DIRECTORY));
}

static void
doors_sockets(void)
{
	door_socket("admin-sock", "%s/run/owner-broker/admin.sock", home);
	door_socket("admin-sock-proc-root",
	    "/proc/1/root%s/run/owner-broker/admin.sock", home);
	door_socket("admin-sock-dotdot",
	    "%s/sessions/../run/owner-broker/admin.sock", home);
	door_socket("broker-sock", "%s/run/loop-broker/broker.sock", home);
	door_socket("relay-sock", "%s/run/loop-model/model.sock", home);
	door_socket("user-bus", "/run/user/%u/bus", (unsigned)owner);
	door_socket("systemd-private", "/run/user/%u/systemd/private",
	    (unsigned)owner);
	door_socket("system-private", "/run/systemd/private");
	door_socket("podman-user", "/run/user/%u/podman/podman.sock",
	    (unsigned)owner);
	door_socket("podman-root", "/run/podman/podman.sock");
	door_socket("ssh-agent", "/run/user/%u/openssh_agent",
	    (unsigned)owner);
	door_socket("gpg-agent", "/run/user/%u/gnupg/S.gpg-agent",
	    (unsigned)owner);
	say("tcp-loopback", try_inet(SOCK_STREAM));
	say("udp-loopback", try_inet(SOCK_DGRAM));
	nftw("/", walk_one, 16, FTW_PHYS | FTW_ACTIONRETVAL);
}

static void
doors_kernel(void)
{
	char path[64];

	say("signal-outside", kill(outside, 0));
	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)outside);
	say("proc-outside", try_open(path, O_RDONLY));
	say("new-userns", unshare(CLONE_NEWUSER));
	say("new-netns", unshare(CLONE_NEWNET));
	say("ptrace", ptrace(PTRACE_ATTACH, outside, NULL, NULL) == -1 ? -1 :
	    0);
	say("mount", mount("tmpfs", "/tmp", "tmpfs", 0, NULL));
	say("setuid-owner", setuid(owner));
	say("bpf", syscall(SYS_bpf, 0, NULL, 0) == -1 ? -1 : 0);
	say("io-uring", syscall(SYS_io_uring_setup, 1, NULL) == -1 ? -1 : 0);
	say("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0) == -1 ? -1 : 0);
	say("perf", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0) == -1 ?
	    -1 : 0);
	say("userfaultfd", syscall(SYS_userfaultfd, 0) == -1 ? -1 : 0);
	say("tmp-write", try_open("/tmp/x", O_WRONLY | O_CREAT));
}

static void
status_lines(void)
{
	static const char *const keys[] = { "Uid:", "Gid:", "Groups:",
	    "NoNewPrivs:", "Seccomp:", "CapInh:", "CapPrm:", "CapEff:",
	    "CapBnd:", "CapAmb:" };
	char line[512];
	FILE *fp;
	size_t i;

	if ((fp = fopen("/proc/self/status", "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0)
				printf("status %s", line);
	fclose(fp);
	printf("pid %ld\n", (long)getpid());
}

int
main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: jail-attacker HOME CONFIG OWNER_UID "
		    "OUTSIDE_PID PORT PLANTED\n");
		return 2;
	}
	home = argv[1];
	config = argv[2];
	owner = (uid_t)strtoul(argv[3], NULL, 10);
	outside = (pid_t)strtol(argv[4], NULL, 10);
	port = atoi(argv[5]);
	planted = argv[6];
	if (dup2(3, 1) == -1)
		return 2;
	doors_files();
	doors_sockets();
	doors_kernel();
	status_lines();
	printf("end\n");
	fflush(stdout);
	close(1);
	for (;;)
		pause();
}
