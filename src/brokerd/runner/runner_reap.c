/*
 * runner_reap.c: which of brokerd's children a call watches, and the
 * reaping of the others. A subreaper brokerd (bwrap) inherits what a dying
 * runtime leaves; those are killed and reaped after each call, and a child
 * that exec_start made is never taken from the call that waits for it.
 */
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "brokerd/runner/runner_exec.h"

/*
 * The children exec_start made that exec_supervise has not reaped yet, so
 * that exec_reap_orphans never takes another call's child. A subreaper
 * brokerd (bwrap) also inherits what a dying runtime leaves.
 */
static pthread_mutex_t	live_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t		live[EXEC_MAX_LIVE];

void
exec_live_lock(void)
{
	pthread_mutex_lock(&live_lock);
}

void
exec_live_unlock(void)
{
	pthread_mutex_unlock(&live_lock);
}

bool
exec_live_swap(pid_t old, pid_t new)
{
	size_t i;

	for (i = 0; i < EXEC_MAX_LIVE; i++)
		if (live[i] == old) {
			live[i] = new;
			return true;
		}
	return false;
}

static bool
is_live(pid_t pid)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&live_lock);
	for (i = 0; i < EXEC_MAX_LIVE && !found; i++)
		found = live[i] == pid;
	pthread_mutex_unlock(&live_lock);
	return found;
}

/* Kills and reaps the children in one task's children list. */
static size_t
reap_listed(const char *list)
{
	size_t n = 0;
	char *end;
	long pid;

	for (; *list != '\0'; list = end) {
		pid = strtol(list, &end, 10);
		if (end == list)
			break;
		if (pid <= 1 || is_live((pid_t)pid))
			continue;
		kill((pid_t)pid, SIGKILL);
		if (waitpid((pid_t)pid, NULL, 0) == (pid_t)pid)
			n++;
	}
	return n;
}

size_t
exec_reap_orphans(void)
{
	char path[64], list[4096];
	struct dirent *e;
	size_t n = 0;
	ssize_t len;
	DIR *d;
	int fd;

	if ((d = opendir("/proc/self/task")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
		    e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = read(fd, list, sizeof(list) - 1);
		close(fd);
		if (len <= 0)
			continue;
		list[len] = '\0';
		n += reap_listed(list);
	}
	closedir(d);
	return n;
}

