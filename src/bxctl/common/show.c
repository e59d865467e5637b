/*
 * show.c: the two-line form of a pending approval, and where an answer
 * came from (show.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "proto/escape.h"
#include "bxctl/common/show.h"
#include "proto/clock.h"

#define MS_SECOND	((int64_t)1000)
#define MS_MINUTE	(60 * MS_SECOND)
#define MS_HOUR		(60 * MS_MINUTE)
#define MS_DAY		(24 * MS_HOUR)

void
show_duration(int64_t ms, char *buf)
{
	if (ms < 0)
		ms = 0;
	if (ms < MS_MINUTE)
		snprintf(buf, SHOW_DURATION_MAX, "%" PRId64 " s",
		    ms / MS_SECOND);
	else if (ms < MS_HOUR)
		snprintf(buf, SHOW_DURATION_MAX, "%" PRId64 " min",
		    ms / MS_MINUTE);
	else if (ms < 2 * MS_DAY)
		snprintf(buf, SHOW_DURATION_MAX, "%" PRId64 " h", ms / MS_HOUR);
	else
		snprintf(buf, SHOW_DURATION_MAX, "%" PRId64 " d", ms / MS_DAY);
}

void
show_session(const char *id, char *buf, size_t size)
{
	char cut[SHOW_SESSION_MAX + 1];
	size_t n;

	if (strlen(id) <= SHOW_SESSION_MAX) {
		escape_buf(id, buf, size);
		return;
	}
	/* Session ids are [a-z0-9-] (the decoder checks), so bytes are characters. */
	memcpy(cut, id, SHOW_SESSION_MAX - 1);
	cut[SHOW_SESSION_MAX - 1] = '\0';
	escape_buf(cut, buf, size);
	n = strlen(buf);
	if (n + sizeof("\xe2\x80\xa6") <= size)
		memcpy(buf + n, "\xe2\x80\xa6", sizeof("\xe2\x80\xa6"));
}

int
show_approval(FILE *fp, const struct bx_pending_approval *pa, int64_t now)
{
	char age[SHOW_DURATION_MAX], left[SHOW_DURATION_MAX];
	char session[SHOW_SESSION_MAX * ESCAPE_GROWTH + 8];

	show_duration(now - pa->created, age);
	show_duration(pa->expires - now, left);
	show_session(pa->session, session, sizeof(session));
	if (fprintf(fp, "%" PRIu64 "  %s ago  ", pa->approval, age) < 0)
		return -1;
	/* 0: not known (approvals --follow, brokerd no longer holds it). */
	if (pa->expires > now)
		fprintf(fp, "expires in %s  ", left);
	else if (pa->expires != 0)
		fprintf(fp, "expired  ");
	fprintf(fp, "session %s  grant ", session);
	escape_puts(fp, pa->grant);
	fprintf(fp, "  taint %s\n    ", bx_class_name(pa->taint));
	escape_puts(fp, pa->tool);
	fputc(' ', fp);
	escape_puts(fp, pa->arguments);
	if (fputc('\n', fp) == EOF || ferror(fp))
		return -1;
	return 0;
}

int64_t
show_now(void)
{
	return bx_clock_wall_ms();
}

void
show_answered_where(const struct bx_ev_approval *a, char *buf, size_t size)
{
	if (size == 0)
		return;
	buf[0] = '\0';
	if (a->by == NULL)
		return;
	if (a->post != NULL)
		snprintf(buf, size, "in Mattermost by %s (post %s)", a->by,
		    a->post);
	else if (strcmp(a->by, "bxctl") == 0)
		snprintf(buf, size, "at the terminal");
	else
		snprintf(buf, size, "by %s", a->by);
}
