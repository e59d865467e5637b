/*
 * fake_mm.c: the fake Mattermost server's thread and its scripting (see
 * fake_mm.h): it accepts a connection, reads one request
 * (fake_mm_http.c), logs it, applies the failures scripted and the token
 * check, and answers from fake_mm_state.c (or, under /fake/, from
 * fake_mm_control.c), closing the connection after each answer.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fake_mm.h"
#include "fake_mm_control.h"
#include "fake_mm_http.h"
#include "fake_mm_state.h"

struct fake_mm {
	int		 fm_listen;
	int		 fm_stop[2];	/* a byte on [1] stops the thread */
	int		 fm_port;
	char		*fm_unix_path;
	char		*fm_log_path;
	char		*fm_token;
	pthread_t	 fm_thread;
	bool		 fm_running;
	pthread_mutex_t	 fm_lock;	/* guards the three below */
	struct fm_state	*fm_state;
	char		**fm_requests;	/* log lines */
	size_t		 fm_nrequests;
};

static bool
authorized(const struct fake_mm *fm, const char *auth)
{
	return strncmp(auth, "Bearer ", 7) == 0 &&
	    strcmp(auth + 7, fm->fm_token) == 0;
}

/* Keeps the request as a log line, in memory and in the log file; the
 * token itself is not logged, only whether it was the right one. */
static void
log_request(struct fake_mm *fm, const struct fm_request *req, bool authorized)
{
	json_t *body, *line;
	char *text, **grown;
	FILE *f;

	body = json_loads(req->body, JSON_DECODE_ANY, NULL);
	if (body == NULL && req->body[0] != '\0')
		body = json_string(req->body);
	line = json_pack("{ss ss so sb}", "method", req->method, "path",
	    req->path, "body", body != NULL ? body : json_null(),
	    "authorized", authorized);
	text = json_dumps(line, JSON_COMPACT);
	json_decref(line);
	if (text == NULL)
		return;
	if (fm->fm_log_path != NULL &&
	    (f = fopen(fm->fm_log_path, "ae")) != NULL) {
		fprintf(f, "%s\n", text);
		fclose(f);
	}
	grown = realloc(fm->fm_requests, (fm->fm_nrequests + 1) *
	    sizeof(*grown));
	if (grown == NULL) {
		free(text);
		return;
	}
	fm->fm_requests = grown;
	fm->fm_requests[fm->fm_nrequests++] = text;
}


static void
serve_one(struct fake_mm *fm, int fd, FILE *in)
{
	struct fm_answer a = { 500, NULL };
	struct fm_request req;
	enum fake_mm_fail kind;
	bool fail = false;
	long reset;
	int r;

	memset(&req, 0, sizeof(req));
	if ((r = fm_read_request(in, &req)) != 0) {
		if (r > 0)
			fm_respond(fd, r, "", "{}", true);
		free(req.body);
		return;
	}
	pthread_mutex_lock(&fm->fm_lock);
	if (strncmp(req.path, "/fake/", 6) == 0)
		fake_mm_control(fm->fm_state, req.method, req.path, req.body,
		    &a);
	else {
		log_request(fm, &req, authorized(fm, req.auth));
		fail = fm_state_next_failure(fm->fm_state, &kind, &reset);
		if (!fail && !authorized(fm, req.auth)) {
			a.status = 401;
			a.body = fm_error_body(401,
			    "api.context.session_expired.app_error",
			    "Invalid or expired session, please login again.");
		} else if (!fail)
			fm_state_answer(fm->fm_state, req.method, req.path,
			    req.body, &a);
	}
	pthread_mutex_unlock(&fm->fm_lock);
	if (fail && strncmp(req.path, "/fake/", 6) != 0)
		fm_respond_failure(fd, kind, reset);
	else
		fm_respond(fd, a.status, "", a.body != NULL ? a.body : "{}",
		    true);
	free(a.body);
	free(req.body);
}

static void *
serve_loop(void *arg)
{
	struct fake_mm *fm = arg;
	struct timeval tv = { .tv_sec = FAKE_MM_IO_TIMEOUT_S };
	struct pollfd pfd[2] = {
		{ .fd = fm->fm_listen, .events = POLLIN },
		{ .fd = fm->fm_stop[0], .events = POLLIN },
	};
	FILE *in;
	int fd;

	for (;;) {
		if (poll(pfd, 2, -1) == -1 && errno == EINTR)
			continue;
		if (pfd[1].revents != 0)
			break;
		if ((fd = accept4(fm->fm_listen, NULL, NULL, SOCK_CLOEXEC)) ==
		    -1)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if ((in = fdopen(dup(fd), "r")) != NULL) {
			serve_one(fm, fd, in);
			fclose(in);
		}
		shutdown(fd, SHUT_WR);
		close(fd);
	}
	return NULL;
}

static int
listen_tcp(struct fake_mm *fm, struct bx_error *err)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int one = 1;

	if ((fm->fm_listen = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) ==
	    -1)
		return bx_fail(err, "fake-mattermost: socket: %s",
		    strerror(errno));
	setsockopt(fm->fm_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_port = htons((uint16_t)fm->fm_port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fm->fm_listen, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fm->fm_listen, 16) == -1 ||
	    getsockname(fm->fm_listen, (struct sockaddr *)&sin, &len) == -1)
		return bx_fail(err, "fake-mattermost: 127.0.0.1:%d: %s",
		    fm->fm_port, strerror(errno));
	fm->fm_port = ntohs(sin.sin_port);
	return 0;
}

static int
listen_unix(struct fake_mm *fm, struct bx_error *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	if (strlen(fm->fm_unix_path) >= sizeof(sun.sun_path))
		return bx_fail(err, "fake-mattermost: %s: path too long",
		    fm->fm_unix_path);
	strcpy(sun.sun_path, fm->fm_unix_path);
	if ((fm->fm_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) ==
	    -1)
		return bx_fail(err, "fake-mattermost: socket: %s",
		    strerror(errno));
	unlink(fm->fm_unix_path);
	if (bind(fm->fm_listen, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(fm->fm_listen, 16) == -1)
		return bx_fail(err, "fake-mattermost: %s: %s",
		    fm->fm_unix_path, strerror(errno));
	return 0;
}

int
fake_mm_resume(struct fake_mm *fm, struct bx_error *err)
{
	int r;

	if (fm->fm_running)
		return 0;
	r = fm->fm_unix_path != NULL ? listen_unix(fm, err) :
	    listen_tcp(fm, err);
	if (r == 0 && pthread_create(&fm->fm_thread, NULL, serve_loop, fm) != 0)
		r = bx_fail(err, "fake-mattermost: cannot start its thread");
	if (r == -1) {
		if (fm->fm_listen != -1)
			close(fm->fm_listen);
		fm->fm_listen = -1;
		return -1;
	}
	fm->fm_running = true;
	return 0;
}

void
fake_mm_suspend(struct fake_mm *fm)
{
	char c;

	if (!fm->fm_running)
		return;
	(void)!write(fm->fm_stop[1], "x", 1);
	pthread_join(fm->fm_thread, NULL);
	(void)!read(fm->fm_stop[0], &c, 1);
	close(fm->fm_listen);
	fm->fm_listen = -1;
	if (fm->fm_unix_path != NULL)
		unlink(fm->fm_unix_path);
	fm->fm_running = false;
}

int
fake_mm_start(const struct fake_mm_opts *opts, struct fake_mm **ret,
    struct bx_error *err)
{
	struct fake_mm *fm;

	if ((fm = calloc(1, sizeof(*fm))) == NULL)
		return bx_fail(err, "fake-mattermost: out of memory");
	fm->fm_listen = fm->fm_stop[0] = fm->fm_stop[1] = -1;
	fm->fm_port = opts->port;
	pthread_mutex_init(&fm->fm_lock, NULL);
	fm->fm_token = strdup(opts->token != NULL ? opts->token :
	    FAKE_MM_TOKEN);
	fm->fm_state = fm_state_new(opts->bot_id != NULL ? opts->bot_id :
	    FAKE_MM_BOT_ID, opts->owner_id != NULL ? opts->owner_id :
	    FAKE_MM_OWNER_ID);
	if (opts->unix_path != NULL)
		fm->fm_unix_path = strdup(opts->unix_path);
	if (opts->log_path != NULL)
		fm->fm_log_path = strdup(opts->log_path);
	if (fm->fm_token == NULL || fm->fm_state == NULL ||
	    (opts->unix_path != NULL && fm->fm_unix_path == NULL) ||
	    (opts->log_path != NULL && fm->fm_log_path == NULL)) {
		fake_mm_stop(fm);
		return bx_fail(err, "fake-mattermost: out of memory");
	}
	if (pipe2(fm->fm_stop, O_CLOEXEC) == -1) {
		bx_fail(err, "fake-mattermost: pipe: %s", strerror(errno));
		fake_mm_stop(fm);
		return -1;
	}
	if (fake_mm_resume(fm, err) == -1) {
		fake_mm_stop(fm);
		return -1;
	}
	*ret = fm;
	return 0;
}

void
fake_mm_stop(struct fake_mm *fm)
{
	size_t i;

	if (fm == NULL)
		return;
	fake_mm_suspend(fm);
	if (fm->fm_stop[0] != -1) {
		close(fm->fm_stop[0]);
		close(fm->fm_stop[1]);
	}
	for (i = 0; i < fm->fm_nrequests; i++)
		free(fm->fm_requests[i]);
	free(fm->fm_requests);
	fm_state_free(fm->fm_state);
	pthread_mutex_destroy(&fm->fm_lock);
	free(fm->fm_unix_path);
	free(fm->fm_log_path);
	free(fm->fm_token);
	free(fm);
}

int
fake_mm_port(const struct fake_mm *fm)
{
	return fm->fm_port;
}

void
fake_mm_url(const struct fake_mm *fm, char *buf, size_t len)
{
	snprintf(buf, len, "http://127.0.0.1:%d", fm->fm_port);
}

int
fake_mm_add_user(struct fake_mm *fm, const char *id, const char *username,
    bool is_bot)
{
	int r;

	pthread_mutex_lock(&fm->fm_lock);
	r = fm_state_add_user(fm->fm_state, id, username, is_bot);
	pthread_mutex_unlock(&fm->fm_lock);
	return r;
}

int
fake_mm_react(struct fake_mm *fm, const char *user_id, const char *post_id,
    const char *emoji_name)
{
	int r;

	pthread_mutex_lock(&fm->fm_lock);
	r = fm_state_react(fm->fm_state, user_id, post_id, emoji_name);
	pthread_mutex_unlock(&fm->fm_lock);
	return r;
}

int
fake_mm_reply(struct fake_mm *fm, const char *user_id, const char *root_id,
    const char *message, const char *props, const char *type, char *ret_id)
{
	json_t *object = NULL, *post;
	int r = -1;

	if (props != NULL && (object = json_loads(props, 0, NULL)) == NULL)
		return -1;
	pthread_mutex_lock(&fm->fm_lock);
	post = fm_state_reply(fm->fm_state, user_id, root_id, message, object,
	    type);
	if (post != NULL) {
		if (ret_id != NULL)
			snprintf(ret_id, 27, "%s",
			    json_string_value(json_object_get(post, "id")));
		r = 0;
	}
	pthread_mutex_unlock(&fm->fm_lock);
	json_decref(object);
	return r;
}

void
fake_mm_fail(struct fake_mm *fm, enum fake_mm_fail kind, unsigned int count,
    long reset)
{
	pthread_mutex_lock(&fm->fm_lock);
	fm_state_fail(fm->fm_state, kind, count, reset);
	pthread_mutex_unlock(&fm->fm_lock);
}

void
fake_mm_dm(struct fake_mm *fm, char *buf)
{
	pthread_mutex_lock(&fm->fm_lock);
	snprintf(buf, 27, "%s", fm_state_dm(fm->fm_state));
	pthread_mutex_unlock(&fm->fm_lock);
}

char *
fake_mm_post_message(struct fake_mm *fm, const char *post_id)
{
	const char *message;
	char *copy = NULL;

	pthread_mutex_lock(&fm->fm_lock);
	message = json_string_value(json_object_get(fm_state_post(fm->fm_state,
	    post_id), "message"));
	if (message != NULL)
		copy = strdup(message);
	pthread_mutex_unlock(&fm->fm_lock);
	return copy;
}

json_t *
fake_mm_posts(struct fake_mm *fm)
{
	json_t *live, *posts;

	/* A deep copy: the server thread changes its posts as it goes. */
	pthread_mutex_lock(&fm->fm_lock);
	live = fm_state_posts(fm->fm_state);
	posts = json_deep_copy(live);
	pthread_mutex_unlock(&fm->fm_lock);
	json_decref(live);
	return posts;
}

size_t
fake_mm_request_count(struct fake_mm *fm)
{
	size_t n;

	pthread_mutex_lock(&fm->fm_lock);
	n = fm->fm_nrequests;
	pthread_mutex_unlock(&fm->fm_lock);
	return n;
}

char *
fake_mm_request(struct fake_mm *fm, size_t i)
{
	char *copy = NULL;

	pthread_mutex_lock(&fm->fm_lock);
	if (i < fm->fm_nrequests)
		copy = strdup(fm->fm_requests[i]);
	pthread_mutex_unlock(&fm->fm_lock);
	return copy;
}
