/*
 * replay.c: a libFuzzer harness's LLVMFuzzerTestOneInput run over files,
 * without libFuzzer, so that make check can replay what fuzzing found. Each
 * harness is linked with this driver by the project's own compiler (and by
 * make check-sanitize's, with ASan and UBSan) and run over its committed
 * seeds, fuzz/corpus/<name>/, and the reproducers of past findings,
 * fuzz/regress/<name>/. Each input gets a buffer of exactly its size, so a
 * read past its end is a sanitizer's finding. A harness signals a failed
 * invariant by aborting, which fails the test.
 *
 *	<name>-fuzzer-replay DIR|FILE...	(a missing DIR is skipped)
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Replays one file; -1 if it cannot be read. */
static int
replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	/* malloc(0) may return NULL; one spare byte is never read. */
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(buf, got);
	free(buf);
	return 0;
}

/* Replays every regular file in dir; the count, or -1. */
static long
replay_dir(const char *dir)
{
	char path[4096];
	struct dirent *e;
	struct stat st;
	long n = 0;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (replay_file(path) == -1) {
			closedir(d);
			return -1;
		}
		n++;
	}
	closedir(d);
	return n;
}

int
main(int argc, char **argv)
{
	struct stat st;
	long n, total = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode))
			n = replay_file(argv[i]) == 0 ? 1 : -1;
		else
			n = replay_dir(argv[i]);
		if (n == -1)
			return 1;
		printf("replay: %s: %ld inputs\n", argv[i], n);
		total += n;
	}
	printf("replay: %ld inputs, no failure\n", total);
	return 0;
}
