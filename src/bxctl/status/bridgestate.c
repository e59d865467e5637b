/*
 * bridgestate.c: the Mattermost bridge's state file as `bxctl status`
 * judges it (bridgestate.h). Strict: a value of the wrong type, out of
 * range or not one the bridge writes makes the whole file malformed.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bxctl/status/bridgestate.h"
#include "proto/escape.h"
#include "proto/readfile.h"

/* The state's "runbook": this file, '#' and an anchor. */
#define RUNBOOK_FILE	"docs/runbook.md"
#define ANCHOR_MAX	64
/* Year 9999 in seconds: a time past it is no time the bridge wrote. */
#define TIME_MAX	253402300799LL
#define PENDING_MAX	1000000

/* The "mattermost" values, each with its runbook entry (NULL: none). */
static const struct {
	const char	*value;
	const char	*runbook;
} bridge_values[] = {
	{ "connected", NULL },
	{ "connecting", NULL },
	{ "unreachable", "docs/runbook.md#bridge-unreachable" },
	{ "token-refused", BRIDGE_RUNBOOK_TOKEN },
	{ "rate-limited", "docs/runbook.md#bridge-rate-limited" },
	{ "not-found", "docs/runbook.md#bridge-owner-not-found" },
};
#define NMATTERMOST	(sizeof(bridge_values) / sizeof(bridge_values[0]))

int64_t
bridge_stale_s(int poll_s)
{
	return 3 * (int64_t)poll_s > 90 ? 3 * (int64_t)poll_s : 90;
}

const char *
bridge_mattermost_runbook(const char *value)
{
	size_t i;

	for (i = 0; i < NMATTERMOST; i++)
		if (strcmp(value, bridge_values[i].value) == 0)
			return bridge_values[i].runbook;
	return NULL;
}

static void
why(struct bridge_state *bs, enum bridge_run run, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
why(struct bridge_state *bs, enum bridge_run run, const char *fmt, ...)
{
	va_list ap;

	bs->bs_run = run;
	va_start(ap, fmt);
	vsnprintf(bs->bs_why, sizeof(bs->bs_why), fmt, ap);
	va_end(ap);
}

/* An integer in [min, max] at key; -1 saying which when it is not. */
static int
integer(json_t *o, const char *key, int64_t min, int64_t max,
    int64_t *ret, struct bridge_state *bs)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max) {
		why(bs, BRIDGE_MALFORMED, "\"%s\" is not an integer from "
		    "%lld to %lld", key, (long long)min, (long long)max);
		return -1;
	}
	*ret = json_integer_value(v);
	return 0;
}

/* The value of key if it is one of n words (returned as ours), else NULL. */
static const char *
word(json_t *o, const char *key, const char *const *words, size_t n)
{
	const char *s = json_string_value(json_object_get(o, key));
	size_t i;

	for (i = 0; s != NULL && i < n; i++)
		if (strcmp(s, words[i]) == 0)
			return words[i];
	return NULL;
}

static const char *
mattermost_word(json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "mattermost"));
	size_t i;

	for (i = 0; s != NULL && i < NMATTERMOST; i++)
		if (strcmp(s, bridge_values[i].value) == 0)
			return bridge_values[i].value;
	return NULL;
}

/* Whether s is RUNBOOK_FILE, '#' and an anchor of [a-z0-9-]. */
static bool
runbook_ok(const char *s)
{
	size_t n = strlen(RUNBOOK_FILE), i;

	if (strncmp(s, RUNBOOK_FILE, n) != 0 || s[n++] != '#' ||
	    s[n] == '\0' || strlen(s + n) > ANCHOR_MAX)
		return false;
	for (i = n; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* s, cut to at most max bytes after a whole UTF-8 character. */
static char *
cut_utf8(const char *s, size_t max)
{
	size_t len = strlen(s);

	if (len > max) {
		len = max;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	return strndup(s, len);
}

/* The last error, its time and runbook: all null, or error and time. */
static int
last_error(json_t *o, struct bridge_state *bs)
{
	json_t *e = json_object_get(o, "last_error");
	json_t *rb = json_object_get(o, "runbook");
	int64_t at;

	if (!json_is_null(rb) && !(json_is_string(rb) &&
	    runbook_ok(json_string_value(rb)))) {
		why(bs, BRIDGE_MALFORMED, "\"runbook\" is neither null nor "
		    RUNBOOK_FILE "#" "ANCHOR");
		return -1;
	}
	if (json_is_null(e) && json_is_null(json_object_get(o,
	    "last_error_at")))
		return 0;
	if (!json_is_string(e)) {
		why(bs, BRIDGE_MALFORMED, "\"last_error\" is neither a "
		    "string nor null (with \"last_error_at\" null)");
		return -1;
	}
	if (integer(o, "last_error_at", 1, TIME_MAX, &at, bs) == -1)
		return -1;
	/* Cut, not refused: the text is only shown. */
	if ((bs->bs_last_error = cut_utf8(json_string_value(e),
	    BRIDGE_ERROR_MAX)) == NULL ||
	    (json_is_string(rb) && (bs->bs_runbook =
	    strdup(json_string_value(rb))) == NULL)) {
		why(bs, BRIDGE_MALFORMED, "out of memory");
		return -1;
	}
	bs->bs_last_error_at = at * 1000;
	return 0;
}

/* The fields of the object o, each checked; -1 with bs_why. */
static int
fields(json_t *o, struct bridge_state *bs)
{
	static const char *const broker[] = { "connected", "unreachable" };
	int64_t started, updated;

	if (integer(o, "pid", 1, INT_MAX, &bs->bs_pid, bs) == -1 ||
	    integer(o, "started", 1, TIME_MAX, &started, bs) == -1 ||
	    integer(o, "updated", 1, TIME_MAX, &updated, bs) == -1 ||
	    integer(o, "pending_posts", 0, PENDING_MAX,
	    &bs->bs_pending_posts, bs) == -1)
		return -1;
	bs->bs_started = started * 1000;
	bs->bs_updated = updated * 1000;
	if ((bs->bs_mattermost = mattermost_word(o)) == NULL) {
		why(bs, BRIDGE_MALFORMED, "\"mattermost\" is not one of the "
		    "states the bridge writes");
		return -1;
	}
	if ((bs->bs_broker = word(o, "broker", broker, 2)) == NULL) {
		why(bs, BRIDGE_MALFORMED, "\"broker\" is neither "
		    "\"connected\" nor \"unreachable\"");
		return -1;
	}
	return last_error(o, bs);
}

/* Running, or stopped saying why: its pid, then its age. */
static void
judge(struct bridge_state *bs, int64_t now, int poll_s)
{
	int64_t limit = bridge_stale_s(poll_s) * 1000;

	/* EPERM: it is alive, as another user (its jail's uid). */
	if (kill((pid_t)bs->bs_pid, 0) == -1 && errno == ESRCH)
		why(bs, BRIDGE_STOPPED, "its pid %lld is gone",
		    (long long)bs->bs_pid);
	else if (now - bs->bs_updated > limit)
		why(bs, BRIDGE_STOPPED, "no update for %lld s (over %lld s)",
		    (long long)((now - bs->bs_updated) / 1000),
		    (long long)(limit / 1000));
	else if (bs->bs_updated - now > limit)
		why(bs, BRIDGE_STOPPED, "its last update is %lld s ahead of "
		    "this clock", (long long)((bs->bs_updated - now) / 1000));
	else
		bs->bs_run = BRIDGE_RUNNING;
}

void
bridge_state_parse(const char *buf, size_t len, int64_t now, int poll_s,
    struct bridge_state *ret)
{
	json_error_t jerr;
	json_t *o;
	char text[128];

	memset(ret, 0, sizeof(*ret));
	o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (o == NULL) {
		/* jansson quotes the file's bytes: escaped, they are inert. */
		why(ret, BRIDGE_MALFORMED, "not JSON at line %d: %s",
		    jerr.line, escape_buf(jerr.text, text, sizeof(text)));
		return;
	}
	if (!json_is_object(o))
		why(ret, BRIDGE_MALFORMED, "not a JSON object");
	else if (fields(o, ret) == 0)
		judge(ret, now, poll_s);
	json_decref(o);
	if (ret->bs_run == BRIDGE_MALFORMED) {
		/* Nothing of a malformed file is kept. */
		char keep[BRIDGE_WHY_MAX];

		memcpy(keep, ret->bs_why, sizeof(keep));
		bridge_state_clear(ret);
		memset(ret, 0, sizeof(*ret));
		ret->bs_run = BRIDGE_MALFORMED;
		memcpy(ret->bs_why, keep, sizeof(keep));
	}
}

void
bridge_state_read(const char *home, int64_t now, int poll_s,
    struct bridge_state *ret)
{
	enum bx_readfile_why rw = 0;
	struct bx_error err;
	char path[PATH_MAX + 32], *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", home, BRIDGE_STATE_FILE);
	if (bx_readfile(path, BRIDGE_STATE_MAX, &buf, &len, &rw,
	    &err) == -1) {
		memset(ret, 0, sizeof(*ret));
		if (rw == BX_READFILE_OPEN && errno == ENOENT)
			ret->bs_run = BRIDGE_ABSENT;
		else
			why(ret, BRIDGE_MALFORMED, "%s", err.msg);
		return;
	}
	bridge_state_parse(buf, len, now, poll_s, ret);
	free(buf);
}

void
bridge_state_clear(struct bridge_state *bs)
{
	free(bs->bs_last_error);
	free(bs->bs_runbook);
	bs->bs_last_error = NULL;
	bs->bs_runbook = NULL;
}
