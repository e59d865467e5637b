/*
 * fetch_secret.c: the header line of a secret on its way from brokerd to
 * curl (bxtool.h). brokerd writes "Name: value" into a pipe that is
 * bxtool's descriptor --secret-fd; bxtool hands it to curl as a config
 * read from curl's stdin (`curl --config -`), a second pipe. So the value
 * is never in an argv, an environment, a file or a status line: only in
 * the two pipes, bxtool's memory and curl's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"
#include "proto/writefile.h"

/* `header = "` and `"` and a newline around the escaped line. */
#define CONFIG_MAX	(2 * BXT_SECRET_MAX + 16)

static char	secret_line[BXT_SECRET_MAX + 1];
static size_t	secret_len;

/* One line "Name: value" of printable ASCII, the colon not first. */
static int
well_formed(const char *s, size_t len)
{
	const char *colon;
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return -1;
	if ((colon = memchr(s, ':', len)) == NULL || colon == s)
		return -1;
	return 0;
}

/*
 * Closes fd, or for a standard descriptor puts /dev/null in its place: a
 * closed stdin would be taken by the next pipe, whose close-on-exec curl
 * would then run without.
 */
static void
release(int fd)
{
	int nul;

	if (fd > STDERR_FILENO) {
		(void)close(fd);
		return;
	}
	if ((nul = open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return;
	if (nul != fd) {
		(void)dup2(nul, fd);
		(void)close(nul);
	}
}

int
bxt_secret_take(int fd, struct bxt_outcome *out)
{
	ssize_t n;

	secret_len = 0;
	for (;;) {
		n = read(fd, secret_line + secret_len,
		    sizeof(secret_line) - 1 - secret_len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		secret_len += (size_t)n;
		if (secret_len == sizeof(secret_line) - 1)
			break;
	}
	release(fd);
	if (n == -1) {
		bxt_fail(out, "cannot read the secret's header: %s",
		    strerror(errno));
		return -1;
	}
	/* One newline may end it. */
	if (secret_len > 0 && secret_line[secret_len - 1] == '\n')
		secret_len--;
	if (secret_len == 0 || secret_len == sizeof(secret_line) - 1 ||
	    well_formed(secret_line, secret_len) == -1) {
		bxt_secret_forget();
		bxt_fail(out, "the secret's header did not come as one line "
		    "\"Name: value\" of printable ASCII");
		return -1;
	}
	secret_line[secret_len] = '\0';
	return 0;
}

int
bxt_secret_config(struct bxt_outcome *out)
{
	static char config[CONFIG_MAX];
	size_t i, n = 0;
	int p[2], rc;

	memcpy(config, "header = \"", 10);
	n = 10;
	for (i = 0; i < secret_len; i++) {
		if (secret_line[i] == '\\' || secret_line[i] == '"')
			config[n++] = '\\';
		config[n++] = secret_line[i];
	}
	config[n++] = '"';
	config[n++] = '\n';
	/* The pipe holds the whole config (far under its 64 KiB): no wait. */
	if (pipe2(p, O_CLOEXEC) == -1) {
		bxt_fail(out, "cannot make a pipe: %s", strerror(errno));
		explicit_bzero(config, sizeof(config));
		return -1;
	}
	rc = bx_write_all(p[1], config, n);
	explicit_bzero(config, sizeof(config));
	(void)close(p[1]);
	if (rc == -1) {
		bxt_fail(out, "cannot pass the secret's header to curl: %s",
		    strerror(errno));
		(void)close(p[0]);
		return -1;
	}
	return p[0];
}

void
bxt_secret_forget(void)
{
	explicit_bzero(secret_line, sizeof(secret_line));
	secret_len = 0;
}
