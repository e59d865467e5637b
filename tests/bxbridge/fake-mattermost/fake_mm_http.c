/*
 * fake_mm_http.c: the fake Mattermost server's HTTP/1.1: reading one
 * request, and writing an answer or a scripted failure (see
 * fake_mm_http.h).
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fake_mm_http.h"
#include "fake_mm_state.h"

static int
send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

void
fm_respond(int fd, int status, const char *extra, const char *body, bool sized)
{
	char head[1024], length[64] = "";

	if (sized)
		snprintf(length, sizeof(length), "Content-Length: %zu\r\n",
		    strlen(body));
	snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: "
	    "application/json\r\n%s%sConnection: close\r\n\r\n", status,
	    status < 300 ? "OK" : "Error", length, extra);
	if (send_all(fd, head, strlen(head)) == 0)
		send_all(fd, body, strlen(body));
}

/* One header line's value into buf if its name is name. */
static void
header(const char *line, const char *name, char *buf, size_t len)
{
	size_t nlen = strlen(name);

	if (strncasecmp(line, name, nlen) != 0 || line[nlen] != ':')
		return;
	for (line += nlen + 1; *line == ' '; line++)
		;
	snprintf(buf, len, "%.*s", (int)strcspn(line, "\r\n"), line);
}

int
fm_read_request(FILE *in, struct fm_request *req)
{
	char line[FAKE_MM_MAX_LINE], length[32] = "";
	unsigned long cl;

	if (fgets(line, sizeof(line), in) == NULL)
		return -1;
	if (sscanf(line, "%15s %1023s", req->method, req->path) != 2)
		return 400;
	for (;;) {
		if (fgets(line, sizeof(line), in) == NULL)
			return -1;
		if (strcmp(line, "\r\n") == 0)
			break;
		if (strchr(line, '\n') == NULL)
			return 431;
		header(line, "Content-Length", length, sizeof(length));
		header(line, "Authorization", req->auth, sizeof(req->auth));
	}
	cl = strtoul(length, NULL, 10);
	if (cl > FAKE_MM_MAX_BODY)
		return 413;
	if ((req->body = calloc(1, cl + 1)) == NULL)
		return -1;
	if (cl > 0 && fread(req->body, 1, cl, in) != cl)
		return -1;
	return 0;
}

/* A 200 answer one byte over the bridge's bound: a user, padded. */
static void
respond_huge(int fd, bool sized)
{
	static const char head[] = "{\"id\":\"" FAKE_MM_BOT_ID
	    "\",\"username\":\"";
	char *body;

	if ((body = malloc(FAKE_MM_HUGE_BYTES + 1)) == NULL)
		return;
	memset(body, 'x', FAKE_MM_HUGE_BYTES);
	memcpy(body, head, sizeof(head) - 1);
	memcpy(body + FAKE_MM_HUGE_BYTES - 2, "\"}", 3);
	fm_respond(fd, 200, "", body, sized);
	free(body);
}

/* A 400 whose body is not JSON and not all UTF-8, longer than a quote. */
static void
respond_garbled(int fd)
{
	char body[512];
	int i;

	snprintf(body, sizeof(body), "%s", FAKE_MM_GARBLED);
	for (i = 0; i < 150; i++)
		strcat(body, "\xc3\xa9");
	fm_respond(fd, 400, "", body, true);
}

void
fm_respond_failure(int fd, enum fake_mm_fail kind, long reset)
{
	char extra[256], *body = NULL;

	switch (kind) {
	case FAKE_MM_FAIL_RATE:
		/* The API reference's 429: headers and a plain body. */
		snprintf(extra, sizeof(extra), "X-Ratelimit-Limit: 10\r\n"
		    "X-Ratelimit-Remaining: 0\r\nX-Ratelimit-Reset: %ld\r\n",
		    reset);
		fm_respond(fd, 429, extra, "limit exceeded\n", true);
		break;
	case FAKE_MM_FAIL_401:
		body = fm_error_body(401,
		    "api.context.session_expired.app_error",
		    "Invalid or expired session, please login again.");
		break;
	case FAKE_MM_FAIL_403:
		body = fm_error_body(403, "api.context.permissions.app_error",
		    "You do not have the appropriate permissions.");
		break;
	case FAKE_MM_FAIL_500:
		body = fm_error_body(500, "app.fake.internal.app_error",
		    "The fake server failed on purpose.");
		break;
	case FAKE_MM_FAIL_400_GARBLED:
		respond_garbled(fd);
		break;
	case FAKE_MM_FAIL_HUGE:
	case FAKE_MM_FAIL_HUGE_UNSIZED:
		respond_huge(fd, kind == FAKE_MM_FAIL_HUGE);
		break;
	case FAKE_MM_FAIL_HANGUP:
		break;
	}
	if (body != NULL)
		fm_respond(fd, kind == FAKE_MM_FAIL_401 ? 401 :
		    kind == FAKE_MM_FAIL_403 ? 403 : 500, "", body, true);
	free(body);
}
