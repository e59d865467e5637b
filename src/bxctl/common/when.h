/*
 * when.h: times as the owner types and reads them. The console commands
 * show local times to people ("2025-09-18 12:00:00", the TZ of the user
 * who runs bxctl) and take --since and --until as RFC 3339 date-times
 * (2025-09-18T12:00:00Z, 2025-09-18T14:00:00.5+02:00) or as a time
 * before now: a whole number and s, m, h, d or w ("90m", "2h", "3d").
 * JSON output keeps the wire's UTC Timestamp. Grants written by bxctl
 * take how long they last the same way ("1h"), or when they end.
 *
 * Nothing here allocates; buffers are the caller's.
 */
#ifndef BXCTL_WHEN_H
#define BXCTL_WHEN_H

#include <stdint.h>

#include "proto/error.h"

/* "YYYY-MM-DD HH:MM:SS" and its NUL. */
#define WHEN_LOCAL_LEN	20

/* ms since the epoch as local time, to the second, into buf. */
void	when_local(int64_t ms, char *buf);

/*
 * Parses s as an RFC 3339 date-time or a time before now (ms); *ret is ms
 * since the epoch. Fails saying what was expected.
 */
int	when_parse(const char *s, int64_t now, int64_t *ret, struct bx_error *);

/*
 * Parses s as a duration: a whole number and s, m, h, d or w ("30m",
 * "1h", "2d"), more than nothing and at most max_ms; *ret is in ms.
 */
int	when_duration(const char *s, int64_t max_ms, int64_t *ret,
	    struct bx_error *);

/*
 * Parses s as a time after now: a duration from now (when_duration) or an
 * RFC 3339 date-time, later than now and at most max_ms away; *ret is ms
 * since the epoch.
 */
int	when_future(const char *s, int64_t now, int64_t max_ms, int64_t *ret,
	    struct bx_error *);

#endif
