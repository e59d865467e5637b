/*
 * when.c: local times for people and the times of --since and --until
 * (when.h).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bxctl/common/when.h"

/* The latest relative time taken: about 100 years. */
#define WHEN_AGO_MAX_S	(100LL * 366 * 24 * 3600)

void
when_local(int64_t ms, char *buf)
{
	/* A log's records come many to a second: convert each second once. */
	static _Thread_local time_t last = -1;
	static _Thread_local char shown[WHEN_LOCAL_LEN];
	time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	struct tm tm;

	if (t != last) {
		if (localtime_r(&t, &tm) == NULL || strftime(shown,
		    WHEN_LOCAL_LEN, "%Y-%m-%d %H:%M:%S", &tm) == 0)
			snprintf(shown, WHEN_LOCAL_LEN, "?");
		last = t;
	}
	memcpy(buf, shown, WHEN_LOCAL_LEN);
}

/* Exactly n digits at *p, as a number; moves *p past them. */
static int
digits(const char **p, int n, int *ret)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*ret = v;
	return 0;
}

/* "Z", or "+HH:MM" / "-HH:MM": the offset east of UTC in seconds. */
static int
offset(const char *p, long *ret)
{
	int h, m, sign;

	if ((p[0] == 'Z' || p[0] == 'z') && p[1] == '\0') {
		*ret = 0;
		return 0;
	}
	if (p[0] != '+' && p[0] != '-')
		return -1;
	sign = p[0] == '-' ? -1 : 1;
	p++;
	if (digits(&p, 2, &h) == -1 || *p++ != ':' ||
	    digits(&p, 2, &m) == -1 || *p != '\0' || h > 23 || m > 59)
		return -1;
	*ret = sign * (h * 3600L + m * 60L);
	return 0;
}

/* YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM) */
static int
rfc3339(const char *s, int64_t *ret)
{
	struct tm tm = { 0 }, check;
	const char *p = s;
	int y, mo, d, h, mi, sec, ms = 0, scale = 100;
	long off;
	time_t t;

	if (digits(&p, 4, &y) == -1 || *p++ != '-' ||
	    digits(&p, 2, &mo) == -1 || *p++ != '-' ||
	    digits(&p, 2, &d) == -1 || (*p != 'T' && *p != 't') ||
	    (p++, digits(&p, 2, &h)) == -1 || *p++ != ':' ||
	    digits(&p, 2, &mi) == -1 || *p++ != ':' ||
	    digits(&p, 2, &sec) == -1)
		return -1;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -1;
		for (; isdigit((unsigned char)*p); p++, scale /= 10)
			ms += (*p - '0') * scale;
	}
	if (offset(p, &off) == -1 || h > 23 || mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	check = tm;
	if ((t = timegm(&tm)) == (time_t)-1 || tm.tm_mday != check.tm_mday ||
	    tm.tm_mon != check.tm_mon)
		return -1;
	*ret = ((int64_t)t - off) * 1000 + ms;
	return 0;
}

/* A whole number and a unit ("90m"): how long, in ms, at most max_s. */
static int
span(const char *s, int64_t max_s, int64_t *ret)
{
	static const struct { char unit; int64_t s; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
		{ 'w', 7 * 86400 },
	};
	char *end;
	intmax_t n;
	size_t i;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	n = strtoimax(s, &end, 10);
	if (errno != 0 || end[0] == '\0' || end[1] != '\0')
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].unit == end[0]) {
			if (n > max_s / units[i].s)
				return -1;
			*ret = (int64_t)n * units[i].s * 1000;
			return 0;
		}
	return -1;
}

/* A whole number and a unit: the time that long before now. */
static int
ago(const char *s, int64_t now, int64_t *ret)
{
	int64_t ms;

	if (span(s, WHEN_AGO_MAX_S, &ms) == -1)
		return -1;
	*ret = now - ms;
	return 0;
}

int
when_duration(const char *s, int64_t max_ms, int64_t *ret,
    struct bx_error *err)
{
	int64_t ms;

	if (span(s, WHEN_AGO_MAX_S, &ms) == -1)
		return bx_fail(err, "'%s' is not a duration: give a whole "
		    "number and s, m, h, d or w (30m, 1h, 2d)", s);
	if (ms <= 0 || ms > max_ms)
		return bx_fail(err, "'%s' is not between 1 s and %" PRId64
		    " d", s, max_ms / (24 * 3600 * 1000));
	*ret = ms;
	return 0;
}

int
when_future(const char *s, int64_t now, int64_t max_ms, int64_t *ret,
    struct bx_error *err)
{
	int64_t ms;

	if (span(s, WHEN_AGO_MAX_S, &ms) == 0) {
		if (when_duration(s, max_ms, &ms, err) == -1)
			return -1;
		*ret = now + ms;
		return 0;
	}
	if (rfc3339(s, &ms) == -1)
		return bx_fail(err, "'%s' is neither a duration (30m, 1h, 2d) "
		    "nor an RFC 3339 date-time (2027-01-01T00:00:00Z, or with "
		    "an offset such as +02:00)", s);
	if (ms <= now)
		return bx_fail(err, "'%s' has already passed", s);
	if (ms - now > max_ms)
		return bx_fail(err, "'%s' is more than %" PRId64 " d away", s,
		    max_ms / (24 * 3600 * 1000));
	*ret = ms;
	return 0;
}

int
when_parse(const char *s, int64_t now, int64_t *ret, struct bx_error *err)
{
	if (ago(s, now, ret) == 0 || rfc3339(s, ret) == 0)
		return 0;
	return bx_fail(err, "'%s' is not a time: give an RFC 3339 date-time "
	    "(2025-09-18T12:00:00Z, or with an offset such as +02:00) or a "
	    "time before now (30s, 90m, 2h, 3d, 1w)", s);
}
