/*
 * types.c: parsing and formatting of the shared value types. Every parser
 * is strict: it accepts exactly the form baseline.md section 4 gives, and its
 * error says what was wrong with the value.
 */
#include <stdio.h>
#include <string.h>

#include "proto/sha256.h"
#include "proto/types.h"

static const char *class_names[BX_CLASS_MAX] = {
	"public", "private", "secret",
};

static const char *tool_names[BX_TOOL_MAX] = {
	"read_file", "write_file", "shell", "http_fetch",
};

static const char *deny_names[BX_DENY_MAX] = {
	"no_grant", "grant_expired", "taint_too_high", "denied_by_grant",
	"approval_refused", "approval_expired", "invalid_arguments",
	"grants_invalid", "audit_unavailable", "state_unreadable",
};

static const char *outcome_names[BX_OUTCOME_MAX] = {
	"allowed", "ask", "denied",
};

int
bx_name_index(const char *s, const char *const *names, int count)
{
	int i;

	for (i = 0; i < count; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

const char *
bx_class_name(enum bx_class c)
{
	return c < BX_CLASS_MAX ? class_names[c] : "?";
}

int
bx_class_parse(const char *s, enum bx_class *ret, struct bx_error *err)
{
	int i = bx_name_index(s, class_names, BX_CLASS_MAX);

	if (i < 0)
		return bx_fail(err, "\"%s\" is not a data class "
		    "(public, private or secret)", s);
	*ret = (enum bx_class)i;
	return 0;
}

enum bx_class
bx_class_max(enum bx_class a, enum bx_class b)
{
	return a > b ? a : b;
}

const char *
bx_tool_name(enum bx_tool t)
{
	return t < BX_TOOL_MAX ? tool_names[t] : "?";
}

int
bx_tool_parse(const char *s, enum bx_tool *ret, struct bx_error *err)
{
	int i = bx_name_index(s, tool_names, BX_TOOL_MAX);

	if (i < 0)
		return bx_fail(err, "\"%s\" is not a tool (read_file, "
		    "write_file, shell or http_fetch)", s);
	*ret = (enum bx_tool)i;
	return 0;
}

const char *
bx_deny_name(enum bx_deny d)
{
	return d < BX_DENY_MAX ? deny_names[d] : "?";
}

int
bx_deny_parse(const char *s, enum bx_deny *ret, struct bx_error *err)
{
	int i = bx_name_index(s, deny_names, BX_DENY_MAX);

	if (i < 0)
		return bx_fail(err, "\"%s\" is not a deny reason", s);
	*ret = (enum bx_deny)i;
	return 0;
}

const char *
bx_outcome_name(enum bx_outcome_kind k)
{
	return k < BX_OUTCOME_MAX ? outcome_names[k] : "?";
}

int
bx_outcome_kind_parse(const char *s, enum bx_outcome_kind *ret,
    struct bx_error *err)
{
	int i = bx_name_index(s, outcome_names, BX_OUTCOME_MAX);

	if (i < 0)
		return bx_fail(err, "\"%s\" is not an outcome "
		    "(allowed, ask or denied)", s);
	*ret = (enum bx_outcome_kind)i;
	return 0;
}

/*
 * Days since 1970-01-01 of a proleptic Gregorian date, and back: the
 * era-based conversion, exact for every year this type allows.
 */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int *ret_y, int *ret_m, int *ret_d)
{
	int64_t era, doe, yoe, y, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*ret_d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*ret_m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*ret_y = (int)(y + (*ret_m <= 2));
}

static int
days_in_month(int y, int m)
{
	static const int days[12] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* Reads n decimal digits at s; returns -1 unless all n are digits. */
static int
digits(const char *s, int n)
{
	int i, v = 0;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int
bx_time_parse(const char *s, int64_t *ret_ms, struct bx_error *err)
{
	int y, mo, d, h, mi, sec, ms;
	size_t len = strlen(s);

	if (len != BX_TIME_LEN || s[4] != '-' || s[7] != '-' ||
	    s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' ||
	    s[23] != 'Z')
		return bx_fail(err, "\"%s\" is not a timestamp of the form "
		    "YYYY-MM-DDTHH:MM:SS.mmmZ (UTC, milliseconds, Z)", s);
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	sec = digits(s + 17, 2);
	ms = digits(s + 20, 3);
	if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0 || ms < 0)
		return bx_fail(err, "\"%s\" is not a timestamp: a field "
		    "is not all digits", s);
	if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
		return bx_fail(err, "\"%s\" is not a timestamp: no such date",
		    s);
	if (h > 23 || mi > 59 || sec > 59)
		return bx_fail(err, "\"%s\" is not a timestamp: no such time "
		    "of day", s);
	*ret_ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 +
	    sec * 1000 + ms;
	return 0;
}

static void
split_ms(int64_t ms, int64_t *ret_days, int64_t *ret_ms_of_day)
{
	int64_t days = ms / 86400000, rest = ms % 86400000;

	if (rest < 0) {
		rest += 86400000;
		days--;
	}
	*ret_days = days;
	*ret_ms_of_day = rest;
}

void
bx_time_format(int64_t ms, char *buf)
{
	int64_t days, rest;
	int y, mo, d;

	split_ms(ms, &days, &rest);
	civil_from_days(days, &y, &mo, &d);
	snprintf(buf, BX_TIME_LEN + 1, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    y, mo, d, (int)(rest / 3600000), (int)(rest / 60000 % 60),
	    (int)(rest / 1000 % 60), (int)(rest % 1000));
}

void
bx_time_date(int64_t ms, char *buf)
{
	int64_t days, rest;
	int y, mo, d;

	split_ms(ms, &days, &rest);
	civil_from_days(days, &y, &mo, &d);
	snprintf(buf, 11, "%04d-%02d-%02d", y, mo, d);
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
bx_hash_parse(const char *s, struct bx_hash *ret, struct bx_error *err)
{
	struct bx_hash h;
	int i, hi, lo;

	if (strlen(s) != BX_HASH_HEX_LEN)
		return bx_fail(err, "a hash is 64 lowercase hex digits, "
		    "not %zu characters", strlen(s));
	for (i = 0; i < BX_HASH_LEN; i++) {
		hi = hex_value(s[2 * i]);
		lo = hex_value(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return bx_fail(err, "a hash is 64 lowercase hex "
			    "digits; character %d is not one", 2 * i +
			    (hi < 0 ? 1 : 2));
		h.bytes[i] = (unsigned char)(hi << 4 | lo);
	}
	*ret = h;
	return 0;
}

void
bx_hash_format(const struct bx_hash *h, char *buf)
{
	bx_hex(h->bytes, BX_HASH_LEN, buf);
}

bool
bx_hash_equal(const struct bx_hash *a, const struct bx_hash *b)
{
	return memcmp(a->bytes, b->bytes, BX_HASH_LEN) == 0;
}

bool
bx_hash_is_zero(const struct bx_hash *h)
{
	static const struct bx_hash zero;

	return bx_hash_equal(h, &zero);
}

/* Checks an identifier: 1 to BX_ID_MAX characters, each accepted by ok. */
static int
id_check(const char *what, const char *s, bool (*ok)(char),
    const char *charset, struct bx_error *err)
{
	size_t i, len = strlen(s);

	if (len == 0 || len > BX_ID_MAX)
		return bx_fail(err, "a %s is 1 to %d characters, not %zu",
		    what, BX_ID_MAX, len);
	for (i = 0; i < len; i++)
		if (!ok(s[i]))
			return bx_fail(err, "a %s is made of %s; \"%s\" has "
			    "another character at position %zu", what, charset,
			    s, i + 1);
	return 0;
}

static bool
lower_digit_dash(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

static bool
call_char(char c)
{
	return lower_digit_dash(c) || (c >= 'A' && c <= 'Z') || c == '_';
}

int
bx_session_id_check(const char *s, struct bx_error *err)
{
	return id_check("session id", s, lower_digit_dash, "[a-z0-9-]", err);
}

int
bx_call_id_check(const char *s, struct bx_error *err)
{
	return id_check("call id", s, call_char, "[A-Za-z0-9_-]", err);
}

int
bx_grant_id_check(const char *s, struct bx_error *err)
{
	return id_check("grant id", s, lower_digit_dash, "[a-z0-9-]", err);
}

int
bx_mattermost_id_check(const char *s, struct bx_error *err)
{
	size_t i, len = strlen(s);

	if (len != BX_MATTERMOST_ID_LEN)
		return bx_fail(err, "a Mattermost id is exactly %d characters "
		    "of [a-z0-9], not %zu", BX_MATTERMOST_ID_LEN, len);
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9')))
			return bx_fail(err, "a Mattermost id is made of "
			    "[a-z0-9]; it has another character at position "
			    "%zu", i + 1);
	return 0;
}

/* The stem of a file under secrets/ (a secret is named like a grant). */
int
bx_secret_name_check(const char *s, struct bx_error *err)
{
	return id_check("secret name", s, lower_digit_dash, "[a-z0-9-]", err);
}
