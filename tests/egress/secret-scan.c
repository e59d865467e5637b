/*
 * secret-scan: searches files for a secret in every form of
 * secret-search.h, for the shell tests that check a secret reached no log,
 * request or output (tests/reliability/test-e2e-secret.sh).
 *
 *	printf '%s\n%s\n' HEADER_VALUE SECRET | secret-scan [--list] PATH...
 *
 * The header value and the secret come on standard input, never on the
 * command line, where /proc/PID/cmdline would show them. A PATH that is a
 * directory is searched whole (regular files, recursively). Prints one
 * line a file, "clean PATH (N bytes)" or "FOUND PATH: LABEL at offset N";
 * --list first prints every needle's label.
 * Exit status: 0 nothing found, 1 something found, 2 a path that cannot
 * be read or bad input.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "secret-search.h"

static int status;

/* A whole file, malloc'd, its length in *len; NULL when it cannot be read. */
static char *
slurp(const char *path, size_t *len)
{
	char *buf = NULL, *grown;
	size_t cap = 0, n = 0, got;
	FILE *fp;

	if ((fp = fopen(path, "re")) == NULL)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap == 0 ? 65536 : cap * 2;
			if ((grown = realloc(buf, cap)) == NULL) {
				free(buf);
				fclose(fp);
				return NULL;
			}
			buf = grown;
		}
		if ((got = fread(buf + n, 1, cap - n, fp)) == 0)
			break;
		n += got;
	}
	if (ferror(fp)) {
		free(buf);
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	*len = n;
	return buf;
}

static void
scan_file(const struct secret_needles *sn, const char *path)
{
	const struct secret_needle *hit;
	const char *at;
	size_t len;
	char *text;

	if ((text = slurp(path, &len)) == NULL) {
		fprintf(stderr, "secret-scan: %s: %s\n", path, strerror(errno));
		status = 2;
		return;
	}
	if ((hit = secret_search(sn, text, len)) != NULL) {
		at = memmem(text, len, hit->sn_text, strlen(hit->sn_text));
		printf("FOUND %s: %s at offset %td\n", path, hit->sn_label,
		    at - text);
		if (status == 0)
			status = 1;
	} else
		printf("clean %s (%zu bytes)\n", path, len);
	free(text);
}

static void
scan_path(const struct secret_needles *sn, const char *path)
{
	char child[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (lstat(path, &st) == -1) {
		fprintf(stderr, "secret-scan: %s: %s\n", path, strerror(errno));
		status = 2;
		return;
	}
	if (S_ISREG(st.st_mode)) {
		scan_file(sn, path);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		return;
	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "secret-scan: %s: %s\n", path, strerror(errno));
		status = 2;
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
		scan_path(sn, child);
	}
	closedir(d);
}

/* One line of standard input without its newline; false at its end. */
static bool
read_line(char *buf, size_t size)
{
	if (fgets(buf, (int)size, stdin) == NULL)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] != '\0';
}

int
main(int argc, char **argv)
{
	struct secret_needles sn;
	char header[8192], secret[8192];
	bool list = false;
	size_t i;
	int a = 1;

	if (a < argc && strcmp(argv[a], "--list") == 0) {
		list = true;
		a++;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: printf '%%s\\n%%s\\n' HEADER_VALUE "
		    "SECRET | secret-scan [--list] PATH...\n");
		return 2;
	}
	if (!read_line(header, sizeof(header)) ||
	    !read_line(secret, sizeof(secret))) {
		fprintf(stderr, "secret-scan: standard input must hold the "
		    "header value and the secret, one a line\n");
		return 2;
	}
	secret_needles_make(&sn, header, secret);
	printf("secret-scan: %zu forms, %zu distinct needles\n", sn.sn_forms,
	    sn.sn_count);
	for (i = 0; list && i < sn.sn_count; i++)
		printf("needle %s\n", sn.sn_list[i].sn_label);
	for (; a < argc; a++)
		scan_path(&sn, argv[a]);
	secret_needles_free(&sn);
	return status;
}
