/*
 * busy.c: the set of busy sessions, a short list under one mutex (it never
 * holds more entries than there are connections).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loopd/busy.h"
#include "loopd/session_log.h"
#include "proto/clock.h"

struct busy_entry {
	struct busy_entry	*be_next;
	char			 be_id[BX_ID_MAX + 1];
};

struct busy {
	pthread_mutex_t		 b_lock;
	struct busy_entry	*b_head;
};

struct busy *
busy_new(void)
{
	struct busy *b;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		return NULL;
	pthread_mutex_init(&b->b_lock, NULL);
	return b;
}

void
busy_free(struct busy *b)
{
	struct busy_entry *e, *next;

	if (b == NULL)
		return;
	for (e = b->b_head; e != NULL; e = next) {
		next = e->be_next;
		free(e);
	}
	pthread_mutex_destroy(&b->b_lock);
	free(b);
}

static bool
held(const struct busy *b, const char *id)
{
	const struct busy_entry *e;

	for (e = b->b_head; e != NULL; e = e->be_next)
		if (strcmp(e->be_id, id) == 0)
			return true;
	return false;
}

/* Adds id; the caller holds the lock. */
static int
add(struct busy *b, const char *id)
{
	struct busy_entry *e;

	if (strlen(id) > BX_ID_MAX || (e = calloc(1, sizeof(*e))) == NULL)
		return -1;
	strcpy(e->be_id, id);
	e->be_next = b->b_head;
	b->b_head = e;
	return 0;
}

int
busy_claim(struct busy *b, const char *id)
{
	int r = -1;

	pthread_mutex_lock(&b->b_lock);
	if (!held(b, id))
		r = add(b, id);
	pthread_mutex_unlock(&b->b_lock);
	return r;
}

void
busy_release(struct busy *b, const char *id)
{
	struct busy_entry **ep, *e;

	pthread_mutex_lock(&b->b_lock);
	for (ep = &b->b_head; (e = *ep) != NULL; ep = &e->be_next)
		if (strcmp(e->be_id, id) == 0) {
			*ep = e->be_next;
			free(e);
			break;
		}
	pthread_mutex_unlock(&b->b_lock);
}

int
busy_new_session(struct busy *b, const char *home, char *buf)
{
	char id[BX_ID_MAX + 1];
	int64_t ms = bx_clock_wall_ms();
	int r;

	pthread_mutex_lock(&b->b_lock);
	for (;; ms++) {
		snprintf(id, sizeof(id), "chat-%lld", (long long)ms);
		if (!held(b, id) && !session_log_exists(home, id))
			break;
	}
	r = add(b, id);
	pthread_mutex_unlock(&b->b_lock);
	if (r == 0)
		memcpy(buf, id, sizeof(id));
	return r;
}
