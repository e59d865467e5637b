/*
 * datetime.c: the four RFC 3339 forms TOML has: offset date-time, local
 * date-time, local date and local time, with real calendar checks (month
 * lengths, leap years) and the original text kept for messages.
 */
#include <string.h>

#include "toml/grammar.h"

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Exactly n digits at the cursor + at, as a number; -1 if not digits. */
static int
fixed_digits(const struct toml_lexer *lx, size_t at, int n)
{
	int i, c, value = 0;

	for (i = 0; i < n; i++) {
		c = toml_lex_peek(lx, at + (size_t)i);
		if (!is_digit(c))
			return -1;
		value = value * 10 + (c - '0');
	}
	return value;
}

int
toml_looks_like_datetime(const struct toml_lexer *lx)
{
	if (fixed_digits(lx, 0, 4) != -1 && toml_lex_peek(lx, 4) == '-')
		return 1;
	return fixed_digits(lx, 0, 2) != -1 && toml_lex_peek(lx, 2) == ':';
}

static int
days_in_month(int year, int month)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

/* YYYY-MM-DD */
static int
date(struct toml_lexer *lx, struct toml_datetime *dt)
{
	dt->dt_year = fixed_digits(lx, 0, 4);
	dt->dt_month = fixed_digits(lx, 5, 2);
	dt->dt_day = fixed_digits(lx, 8, 2);
	if (dt->dt_year == -1 || dt->dt_month == -1 || dt->dt_day == -1 ||
	    toml_lex_peek(lx, 7) != '-' || is_digit(toml_lex_peek(lx, 10)))
		return toml_lex_fail(lx, "invalid date: expected YYYY-MM-DD");
	if (dt->dt_month < 1 || dt->dt_month > 12)
		return toml_lex_fail(lx, "invalid date: month %02d is not "
		    "1-12", dt->dt_month);
	if (dt->dt_day < 1 ||
	    dt->dt_day > days_in_month(dt->dt_year, dt->dt_month))
		return toml_lex_fail(lx, "invalid date: %04d-%02d has no day "
		    "%02d", dt->dt_year, dt->dt_month, dt->dt_day);
	lx->lx_p += 10;
	return 0;
}

/* .digits: the first nine are nanoseconds, the rest are dropped. */
static int
fraction(struct toml_lexer *lx, struct toml_datetime *dt)
{
	int n = 0, scale;

	lx->lx_p++;
	if (!is_digit(toml_lex_peek(lx, 0)))
		return toml_lex_fail(lx, "invalid time: a '.' must be followed "
		    "by digits");
	while (is_digit(toml_lex_peek(lx, 0))) {
		if (n < 9) {
			dt->dt_nanosecond = dt->dt_nanosecond * 10 +
			    (*lx->lx_p - '0');
			n++;
		}
		lx->lx_p++;
	}
	for (scale = n; scale < 9; scale++)
		dt->dt_nanosecond *= 10;
	return 0;
}

/* HH:MM:SS[.fraction]; seconds are required in TOML 1.0. */
static int
time_of_day(struct toml_lexer *lx, struct toml_datetime *dt)
{
	dt->dt_hour = fixed_digits(lx, 0, 2);
	dt->dt_minute = fixed_digits(lx, 3, 2);
	dt->dt_second = fixed_digits(lx, 6, 2);
	if (dt->dt_hour == -1 || dt->dt_minute == -1 || dt->dt_second == -1 ||
	    toml_lex_peek(lx, 2) != ':' || toml_lex_peek(lx, 5) != ':' ||
	    is_digit(toml_lex_peek(lx, 8)))
		return toml_lex_fail(lx, "invalid time: expected HH:MM:SS");
	/* RFC 3339 allows second 60, for leap seconds. */
	if (dt->dt_hour > 23 || dt->dt_minute > 59 || dt->dt_second > 60)
		return toml_lex_fail(lx, "invalid time %02d:%02d:%02d",
		    dt->dt_hour, dt->dt_minute, dt->dt_second);
	lx->lx_p += 8;
	if (toml_lex_peek(lx, 0) == '.')
		return fraction(lx, dt);
	return 0;
}

/* Z, or +HH:MM / -HH:MM. */
static int
offset(struct toml_lexer *lx, struct toml_datetime *dt)
{
	int c = toml_lex_peek(lx, 0), hour, minute;

	if (c == 'Z' || c == 'z') {
		lx->lx_p++;
		return 0;
	}
	hour = fixed_digits(lx, 1, 2);
	minute = fixed_digits(lx, 4, 2);
	if (hour == -1 || minute == -1 || toml_lex_peek(lx, 3) != ':' ||
	    is_digit(toml_lex_peek(lx, 6)))
		return toml_lex_fail(lx, "invalid offset: expected Z, +HH:MM "
		    "or -HH:MM");
	if (hour > 23 || minute > 59)
		return toml_lex_fail(lx, "invalid offset %c%02d:%02d",
		    c, hour, minute);
	dt->dt_offset_min = (hour * 60 + minute) * (c == '-' ? -1 : 1);
	lx->lx_p += 6;
	return 0;
}

/* After a date: 'T', 't', or a space followed by a time. */
static int
has_time(const struct toml_lexer *lx)
{
	int c = toml_lex_peek(lx, 0);

	if (c == 'T' || c == 't')
		return 1;
	return c == ' ' && fixed_digits(lx, 1, 2) != -1 &&
	    toml_lex_peek(lx, 3) == ':';
}

static int
datetime_body(struct toml_lexer *lx, struct toml_datetime *dt)
{
	int c;

	if (toml_lex_peek(lx, 2) == ':') {
		dt->dt_kind = TOML_LOCAL_TIME;
		return time_of_day(lx, dt);
	}
	if (date(lx, dt) == -1)
		return -1;
	dt->dt_kind = TOML_LOCAL_DATE;
	if (!has_time(lx))
		return 0;
	lx->lx_p++;
	if (time_of_day(lx, dt) == -1)
		return -1;
	dt->dt_kind = TOML_LOCAL_DATETIME;
	c = toml_lex_peek(lx, 0);
	if (c != 'Z' && c != 'z' && c != '+' && c != '-')
		return 0;
	dt->dt_kind = TOML_OFFSET_DATETIME;
	return offset(lx, dt);
}

int
toml_parse_datetime(struct toml_lexer *lx, struct toml_value *v)
{
	struct toml_datetime dt;
	const char *start = lx->lx_p;

	memset(&dt, 0, sizeof(dt));
	if (datetime_body(lx, &dt) == -1)
		return -1;
	dt.dt_text = toml_strndup(lx->lx_doc, start,
	    (size_t)(lx->lx_p - start));
	if (dt.dt_text == NULL)
		return toml_lex_fail(lx, "out of memory");
	v->v_type = dt.dt_kind;
	v->v_u.dt = dt;
	return 0;
}
