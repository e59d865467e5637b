/*
 * number.c: integers (decimal, 0x hex, 0o octal, 0b binary, with
 * underscores between digits, exactly representable in 64 bits) and
 * floats (fraction, exponent, inf and nan, with signs).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "toml/grammar.h"

/* Longer number tokens are refused rather than copied. */
#define TOML_NUMBER_MAX	128

static int
is_token_char(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '+' ||
	    c == '-';
}

static int
digit_value(int c, int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < base ? d : -1;
}

/*
 * Checks that s[0..len) is digits of base with single underscores only
 * between digits; copies the digits (without underscores) to out when it
 * is not NULL. Returns the digit count, or -1.
 */
static int
digits(const char *s, size_t len, int base, char *out)
{
	size_t i, n = 0;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] == '_') {
			if (i == 0 || i + 1 == len || s[i + 1] == '_')
				return -1;
			continue;
		}
		if (digit_value((unsigned char)s[i], base) == -1)
			return -1;
		if (out != NULL)
			out[n] = s[i];
		n++;
	}
	return (int)n;
}

static int
integer_value(struct toml_lexer *lx, const char *tok, const char *s,
    size_t len, int base, int negative, struct toml_value *v)
{
	uint64_t mag = 0, limit = negative ? (uint64_t)INT64_MAX + 1 :
	    (uint64_t)INT64_MAX;
	size_t i;
	int d;

	for (i = 0; i < len; i++) {
		if ((d = digit_value((unsigned char)s[i], base)) == -1)
			continue;
		if (mag > (limit - (uint64_t)d) / (uint64_t)base)
			return toml_lex_fail(lx, "integer %s is out of the "
			    "64-bit range", tok);
		mag = mag * (uint64_t)base + (uint64_t)d;
	}
	v->v_type = TOML_INTEGER;
	if (negative)
		v->v_u.integer = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN :
		    -(int64_t)mag;
	else
		v->v_u.integer = (int64_t)mag;
	return 0;
}

static int
prefixed_integer(struct toml_lexer *lx, const char *tok, size_t len,
    struct toml_value *v)
{
	int base = tok[1] == 'x' ? 16 : tok[1] == 'o' ? 8 : 2;

	if (digits(tok + 2, len - 2, base, NULL) == -1)
		return toml_lex_fail(lx, "invalid %s integer %s",
		    base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary",
		    tok);
	return integer_value(lx, tok, tok + 2, len - 2, base, 0, v);
}

/* A decimal integer part: "0", or digits not starting with 0. */
static int
decimal_part(const char *s, size_t len)
{
	if (digits(s, len, 10, NULL) == -1)
		return -1;
	if (s[0] == '0' && len > 1)
		return -1;
	return 0;
}

static int
float_value(struct toml_lexer *lx, const char *tok, const char *s,
    size_t len, struct toml_value *v)
{
	char buf[TOML_NUMBER_MAX + 1];
	size_t i, n = 0;
	double d;
	char *end;

	for (i = 0; i < len; i++)
		if (s[i] != '_')
			buf[n++] = s[i];
	buf[n] = '\0';
	errno = 0;
	d = strtod(buf, &end);
	if (*end != '\0')
		return toml_lex_fail(lx, "invalid float %s", tok);
	if (errno == ERANGE && isinf(d))
		return toml_lex_fail(lx, "float %s is out of the range of a "
		    "64-bit float", tok);
	v->v_type = TOML_FLOAT;
	v->v_u.fp = d;
	return 0;
}

/*
 * A decimal float: int-part, then a fraction, an exponent or both.
 * s..len is the token without its sign.
 */
static int
decimal_float(struct toml_lexer *lx, const char *tok, const char *s,
    size_t len, struct toml_value *v)
{
	size_t dot = strcspn(s, "."), e = strcspn(s, "eE"), ilen, end;
	const char *exp;

	if (dot > len)
		dot = len;
	if (e > len)
		e = len;
	ilen = dot < e ? dot : e;
	if (decimal_part(s, ilen) == -1)
		return toml_lex_fail(lx, "invalid float %s: the integer part "
		    "must be digits without leading zeros", tok);
	if (dot < e) {
		end = e;
		if (digits(s + dot + 1, end - dot - 1, 10, NULL) == -1)
			return toml_lex_fail(lx, "invalid float %s: a "
			    "decimal point must have digits on both sides",
			    tok);
	} else if (dot < len)
		return toml_lex_fail(lx, "invalid float %s: the exponent "
		    "cannot have a fraction", tok);
	if (e < len) {
		exp = s + e + 1;
		if (*exp == '+' || *exp == '-')
			exp++;
		if (digits(exp, len - (size_t)(exp - s), 10, NULL) == -1)
			return toml_lex_fail(lx, "invalid float %s: bad "
			    "exponent", tok);
	}
	return float_value(lx, tok, tok, strlen(tok), v);
}

static int
number_token(struct toml_lexer *lx, const char *tok, size_t len,
    struct toml_value *v)
{
	int negative = tok[0] == '-', sign = tok[0] == '+' || tok[0] == '-';
	const char *s = tok + sign;
	size_t slen = len - (size_t)sign;

	if (strcmp(s, "inf") == 0 || strcmp(s, "nan") == 0) {
		v->v_type = TOML_FLOAT;
		v->v_u.fp = s[0] == 'i' ? INFINITY : NAN;
		if (negative)
			v->v_u.fp = -v->v_u.fp;
		return 0;
	}
	if (slen >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' ||
	    s[1] == 'b')) {
		if (sign)
			return toml_lex_fail(lx, "a %s integer cannot have a "
			    "sign: %s", s[1] == 'x' ? "hexadecimal" :
			    s[1] == 'o' ? "octal" : "binary", tok);
		return prefixed_integer(lx, tok, len, v);
	}
	if (strpbrk(s, ".eE") != NULL)
		return decimal_float(lx, tok, s, slen, v);
	if (decimal_part(s, slen) == -1)
		return toml_lex_fail(lx, "invalid integer %s%s", tok,
		    s[0] == '0' && slen > 1 ? ": leading zeros are not allowed" :
		    "");
	return integer_value(lx, tok, s, slen, 10, negative, v);
}

int
toml_parse_number(struct toml_lexer *lx, struct toml_value *v)
{
	char tok[TOML_NUMBER_MAX + 1];
	size_t len = 0;

	while (is_token_char(toml_lex_peek(lx, len)))
		if (++len > TOML_NUMBER_MAX)
			return toml_lex_fail(lx, "number longer than %d "
			    "characters (TOML_NUMBER_MAX)", TOML_NUMBER_MAX);
	if (len == 0)
		return toml_lex_unexpected(lx, "a value");
	memcpy(tok, lx->lx_p, len);
	tok[len] = '\0';
	if (number_token(lx, tok, len, v) == -1)
		return -1;
	lx->lx_p += len;
	return 0;
}
