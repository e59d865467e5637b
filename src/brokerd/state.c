/*
 * state.c: session state files and the per-session hold. The files are tiny
 * and written only by brokerd, under the session's hold, so two writers never
 * race on one <id>.json.tmp.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "brokerd/state.h"
#include "proto/readfile.h"
#include "proto/writefile.h"

struct state_store {
	char			 ss_dir[PATH_MAX];
	struct state_writer	 ss_writer;
	pthread_mutex_t		 ss_lock;	/* guards ss_writer and ss_holds */
	pthread_cond_t		 ss_released;
	struct state_hold	*ss_holds;
};

struct state_store *
state_open(const char *home, struct bx_error *err)
{
	struct state_store *s;
	char broker[PATH_MAX];
	int n;

	n = snprintf(broker, sizeof(broker), "%s/broker", home);
	/* Room for the longest file: sessions/<BX_ID_MAX bytes>.json.tmp. */
	if (n < 0 || (size_t)n + sizeof("/sessions/") - 1 + BX_ID_MAX +
	    sizeof(".json.tmp") > sizeof(broker)) {
		/* The reason first: a path this long fills the message. */
		bx_fail(err, "state: a home path of %zu bytes is too long for "
		    "broker/sessions/<id>.json.tmp: %s", strlen(home), home);
		return NULL;
	}
	if (bx_mkdir_private(home, err) == -1 ||
	    bx_mkdir_private(broker, err) == -1)
		return NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		bx_fail(err, "state: out of memory");
		return NULL;
	}
	snprintf(s->ss_dir, sizeof(s->ss_dir), "%s/sessions", broker);
	if (bx_mkdir_private(s->ss_dir, err) == -1) {
		free(s);
		return NULL;
	}
	s->ss_writer.write = state_write_atomic;
	pthread_mutex_init(&s->ss_lock, NULL);
	pthread_cond_init(&s->ss_released, NULL);
	return s;
}

void
state_close(struct state_store *s)
{
	if (s == NULL)
		return;
	pthread_cond_destroy(&s->ss_released);
	pthread_mutex_destroy(&s->ss_lock);
	free(s);
}

void
state_set_writer(struct state_store *s, const struct state_writer *w)
{
	pthread_mutex_lock(&s->ss_lock);
	if (w == NULL) {
		s->ss_writer.write = state_write_atomic;
		s->ss_writer.ctx = NULL;
	} else
		s->ss_writer = *w;
	pthread_mutex_unlock(&s->ss_lock);
}

int
state_write_atomic(void *ctx, const char *dir, const char *name,
    const void *buf, size_t len, struct bx_error *err)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd = -1, rc = -1;

	(void)ctx;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1) {
		bx_fail(err, "%s: cannot create: %s", tmp, strerror(errno));
		goto out;
	}
	if (bx_write_all(fd, buf, len) == -1 || fsync(fd) == -1) {
		bx_fail(err, "%s: cannot write: %s", tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, path) == -1) {
		bx_fail(err, "%s: cannot rename to %s: %s", tmp, path,
		    strerror(errno));
		goto out;
	}
	if (bx_fsync_dir(dir) == -1) {
		bx_fail(err, "%s: cannot sync the directory: %s", dir,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	return rc;
}

/* Decodes {"taint":...,"untrusted":...}, strictly: no other key, both present. */
static int
decode(const char *path, const char *buf, size_t len, struct state_value *ret,
    struct bx_error *err)
{
	struct state_value v;
	json_error_t jerr;
	json_t *root, *taint, *untrusted;
	int rc = -1;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		return bx_fail(err, "%s:%d: not valid JSON: %s", path,
		    jerr.line, jerr.text);
	taint = json_object_get(root, "taint");
	untrusted = json_object_get(root, "untrusted");
	if (!json_is_object(root) || json_object_size(root) != 2 ||
	    !json_is_string(taint) || !json_is_boolean(untrusted)) {
		bx_fail(err, "%s: not {\"taint\": class, \"untrusted\": bool}",
		    path);
		goto out;
	}
	if (bx_class_parse(json_string_value(taint), &v.taint, err) == -1) {
		bx_error_prefix(err, "%s: field \"taint\"", path);
		goto out;
	}
	v.untrusted = json_is_true(untrusted);
	*ret = v;
	rc = 0;
out:
	json_decref(root);
	return rc;
}

int
state_read(struct state_store *s, const char *session, struct state_value *ret,
    struct bx_error *err)
{
	enum bx_readfile_why why;
	char path[PATH_MAX], *buf;
	size_t len;
	int rc;

	if (bx_session_id_check(session, err) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s/%s.json", s->ss_dir, session);
	if (bx_readfile(path, STATE_FILE_MAX, &buf, &len, &why, err) == -1) {
		/* No file yet: private and trusted (state.h). */
		if (why == BX_READFILE_OPEN && errno == ENOENT) {
			ret->taint = BX_CLASS_PRIVATE;
			ret->untrusted = false;
			return 0;
		}
		if (why == BX_READFILE_TOO_LARGE)
			bx_fail(err, "%s is larger than %d bytes, too large for "
			    "a state file", path, STATE_FILE_MAX);
		return -1;
	}
	rc = decode(path, buf, len, ret, err);
	free(buf);
	return rc;
}

int
state_write(struct state_store *s, const char *session,
    const struct state_value *v, struct bx_error *err)
{
	struct state_writer w;
	char name[BX_ID_MAX + sizeof(".json")], buf[64];
	int len;

	if (bx_session_id_check(session, err) == -1)
		return -1;
	snprintf(name, sizeof(name), "%s.json", session);
	len = snprintf(buf, sizeof(buf), "{\"taint\":\"%s\",\"untrusted\":%s}",
	    bx_class_name(v->taint), v->untrusted ? "true" : "false");
	pthread_mutex_lock(&s->ss_lock);
	w = s->ss_writer;
	pthread_mutex_unlock(&s->ss_lock);
	return w.write(w.ctx, s->ss_dir, name, buf, (size_t)len, err);
}

int
state_store_changed(struct state_store *s, const char *session,
    const struct state_value *before, const struct state_value *after,
    struct bx_error *err)
{
	if (before->taint == after->taint &&
	    before->untrusted == after->untrusted)
		return 0;
	return state_write(s, session, after, err);
}

struct state_value
state_raise(struct state_value v, enum bx_class result_class, bool untrusted)
{
	v.taint = bx_class_max(v.taint, result_class);
	v.untrusted = v.untrusted || untrusted;
	return v;
}

/* Whether a call holds session; the caller has ss_lock. */
static int
held(struct state_store *s, const char *session)
{
	struct state_hold *h;

	for (h = s->ss_holds; h != NULL; h = h->sh_next)
		if (strcmp(h->sh_session, session) == 0)
			return 1;
	return 0;
}

void
state_hold(struct state_store *s, struct state_hold *h, const char *session)
{
	snprintf(h->sh_session, sizeof(h->sh_session), "%s", session);
	pthread_mutex_lock(&s->ss_lock);
	while (held(s, h->sh_session))
		pthread_cond_wait(&s->ss_released, &s->ss_lock);
	h->sh_held = true;
	h->sh_next = s->ss_holds;
	s->ss_holds = h;
	pthread_mutex_unlock(&s->ss_lock);
}

void
state_release(struct state_store *s, struct state_hold *h)
{
	struct state_hold **p;

	if (h == NULL || !h->sh_held)
		return;
	pthread_mutex_lock(&s->ss_lock);
	for (p = &s->ss_holds; *p != NULL; p = &(*p)->sh_next)
		if (*p == h) {
			*p = h->sh_next;
			break;
		}
	h->sh_held = false;
	pthread_cond_broadcast(&s->ss_released);
	pthread_mutex_unlock(&s->ss_lock);
}

int
state_each(struct state_store *s, void (*fn)(void *ctx, const char *session),
    void *ctx, struct bx_error *err)
{
	char id[BX_ID_MAX + 1];
	struct dirent *de;
	size_t len;
	DIR *dir;

	if ((dir = opendir(s->ss_dir)) == NULL)
		return bx_fail(err, "state: cannot read %s: %s", s->ss_dir,
		    strerror(errno));
	while ((de = readdir(dir)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 5 || len - 5 > BX_ID_MAX ||
		    strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		memcpy(id, de->d_name, len - 5);
		id[len - 5] = '\0';
		if (bx_session_id_check(id, NULL) == 0)
			fn(ctx, id);
	}
	closedir(dir);
	return 0;
}
