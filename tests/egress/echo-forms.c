/*
 * echo-forms.c: the forms of a header value that tls-host's /echo routes
 * send back (the list and the line format are in echo-forms.h). Each form
 * is written plainly, byte by byte, so a reader can check it against the
 * spec rather than against a second encoder.
 */
#include <err.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "echo-forms.h"

#define FILLER_BYTE	'-'
#define TRAILER		"-trailer"
#define ALIGNMENTS	3	/* filler lengths 0, 1, 2: every byte alignment */

static const char hex_upper[] = "0123456789ABCDEF";
static const char hex_lower[] = "0123456789abcdef";

void
echo_append(struct echo_body *eb, const void *p, size_t len)
{
	size_t cap;
	char *data;

	if (len > eb->eb_cap - eb->eb_len) {
		cap = eb->eb_cap > 0 ? eb->eb_cap : 4096;
		while (cap - eb->eb_len < len)
			cap *= 2;
		if ((data = realloc(eb->eb_data, cap)) == NULL)
			err(1, "echo body of %zu bytes", cap);
		eb->eb_data = data;
		eb->eb_cap = cap;
	}
	memcpy(eb->eb_data + eb->eb_len, p, len);
	eb->eb_len += len;
}

static void
append_str(struct echo_body *eb, const char *s)
{
	echo_append(eb, s, strlen(s));
}

static void
append_byte(struct echo_body *eb, char c)
{
	echo_append(eb, &c, 1);
}

/* Two hex digits of byte c, from the digits given. */
static void
append_hex(struct echo_body *eb, unsigned char c, const char *digits)
{
	append_byte(eb, digits[c >> 4]);
	append_byte(eb, digits[c & 0x0f]);
}

static bool
unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	    c == '~';
}

static void
line_start(struct echo_body *eb, const char *subject, const char *form)
{
	append_str(eb, subject);
	append_byte(eb, ' ');
	append_str(eb, form);
	append_str(eb, ": ");
}

/*
 * base64 of filler bytes, s and trailer, in the url alphabet or not, with
 * its '=' padding or without.
 */
static void
append_base64(struct echo_body *eb, size_t filler, const char *s, size_t len,
    const char *trailer, bool url, bool pad)
{
	size_t tlen = strlen(trailer), plain_len = filler + len + tlen;
	unsigned char *plain, *coded;
	size_t i, n;

	if ((plain = malloc(plain_len)) == NULL ||
	    (coded = malloc((plain_len + 2) / 3 * 4 + 1)) == NULL)
		err(1, "base64 of %zu bytes", plain_len);
	memset(plain, FILLER_BYTE, filler);
	memcpy(plain + filler, s, len);
	memcpy(plain + filler + len, trailer, tlen);
	n = (size_t)EVP_EncodeBlock(coded, plain, (int)plain_len);
	for (i = 0; i < n; i++) {
		if (coded[i] == '=' && !pad)
			break;
		if (url && coded[i] == '+')
			coded[i] = '-';
		else if (url && coded[i] == '/')
			coded[i] = '_';
		append_byte(eb, (char)coded[i]);
	}
	free(coded);
	free(plain);
}

/* The twenty-four base64 lines of one subject. */
static void
base64_lines(struct echo_body *eb, const char *subject, const char *s,
    size_t len)
{
	static const char *const alphabets[] = { "b64", "b64url" };
	static const char *const places[] = { "end", "inside" };
	char form[64];
	size_t a, k, p, pad;

	for (a = 0; a < 2; a++)
		for (k = 0; k < ALIGNMENTS; k++)
			for (p = 0; p < 2; p++)
				for (pad = 0; pad < 2; pad++) {
					snprintf(form, sizeof(form), "%s-%zu-%s%s",
					    alphabets[a], k, places[p],
					    pad == 0 ? "" : "-nopad");
					line_start(eb, subject, form);
					append_base64(eb, k, s, len,
					    p == 0 ? "" : TRAILER, a == 1,
					    pad == 0);
					append_byte(eb, '\n');
				}
}

static void
percent_lines(struct echo_body *eb, const char *subject, const char *s,
    size_t len)
{
	unsigned char c;
	size_t i;

	line_start(eb, subject, "pct-upper");
	for (i = 0; i < len; i++) {
		append_byte(eb, '%');
		append_hex(eb, (unsigned char)s[i], hex_upper);
	}
	append_byte(eb, '\n');

	line_start(eb, subject, "pct-lower");
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (unreserved(c)) {
			append_byte(eb, (char)c);
			continue;
		}
		append_byte(eb, '%');
		append_hex(eb, c, hex_lower);
	}
	append_byte(eb, '\n');

	line_start(eb, subject, "pct-mix");
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (i % 2 == 1 && unreserved(c)) {
			append_byte(eb, (char)c);
			continue;
		}
		append_byte(eb, '%');
		append_hex(eb, c, i % 4 < 2 ? hex_upper : hex_lower);
	}
	append_byte(eb, '\n');
}

/* A character as \u00XX with the hex digits given. */
static void
append_json_unicode(struct echo_body *eb, unsigned char c, const char *digits)
{
	append_str(eb, "\\u00");
	append_hex(eb, c, digits);
}

/* {"auth":"s"}; mixed also writes two characters of three as \u00XX. */
static void
json_line(struct echo_body *eb, const char *subject, const char *s,
    size_t len, bool mixed)
{
	unsigned char c;
	size_t i;

	line_start(eb, subject, mixed ? "json-mix" : "json");
	append_str(eb, "{\"auth\":\"");
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (mixed && i % 3 == 1)
			append_json_unicode(eb, c, hex_upper);
		else if (mixed && i % 3 == 2)
			append_json_unicode(eb, c, hex_lower);
		else if (c == '"' || c == '\\' || c == '/') {
			append_byte(eb, '\\');
			append_byte(eb, (char)c);
		} else if (c < 0x20 || c == 0x7f)
			append_json_unicode(eb, c, hex_lower);
		else
			append_byte(eb, (char)c);
	}
	append_str(eb, "\"}\n");
}

static void
hex_line(struct echo_body *eb, const char *subject, const char *s, size_t len,
    const char *digits)
{
	size_t i;

	line_start(eb, subject, digits == hex_upper ? "hex-upper" :
	    "hex-lower");
	for (i = 0; i < len; i++)
		append_hex(eb, (unsigned char)s[i], digits);
	append_byte(eb, '\n');
}

/* Every form of one subject. */
static void
subject_lines(struct echo_body *eb, const char *subject, const char *s,
    size_t len)
{
	line_start(eb, subject, "raw");
	echo_append(eb, s, len);
	append_byte(eb, '\n');
	base64_lines(eb, subject, s, len);
	percent_lines(eb, subject, s, len);
	json_line(eb, subject, s, len, false);
	json_line(eb, subject, s, len, true);
	hex_line(eb, subject, s, len, hex_upper);
	hex_line(eb, subject, s, len, hex_lower);
}

/*
 * When value (len bytes) is "SCHEME", one or more spaces, then a
 * credential, its credential's start; NULL otherwise.
 */
static const char *
credential(const char *value, size_t len, const char *scheme)
{
	size_t n = strlen(scheme);

	if (len <= n + 1 || strncasecmp(value, scheme, n) != 0 ||
	    value[n] != ' ')
		return NULL;
	value += n;
	len -= n;
	while (len > 0 && *value == ' ') {
		value++;
		len--;
	}
	return len > 0 ? value : NULL;
}

static bool
printable_text(const unsigned char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

/* basic-decoded and basic-password, when b64 decodes to printable text. */
static void
basic_lines(struct echo_body *eb, const char *b64, size_t len)
{
	unsigned char *plain;
	const char *colon;
	int n;

	if (len % 4 != 0 || len > 1024 * 1024)
		return;
	if ((plain = malloc(len / 4 * 3 + 1)) == NULL)
		err(1, "base64 decoding of %zu bytes", len);
	n = EVP_DecodeBlock(plain, (const unsigned char *)b64, (int)len);
	/* EVP_DecodeBlock counts the bytes that the padding stands for. */
	if (n >= 0 && len > 0 && b64[len - 1] == '=')
		n--;
	if (n >= 0 && len > 1 && b64[len - 2] == '=')
		n--;
	if (n > 0 && printable_text(plain, (size_t)n)) {
		subject_lines(eb, "basic-decoded", (const char *)plain,
		    (size_t)n);
		colon = memchr(plain, ':', (size_t)n);
		if (colon != NULL && colon + 1 < (const char *)plain + n)
			subject_lines(eb, "basic-password", colon + 1,
			    (size_t)((const char *)plain + n - colon - 1));
	}
	free(plain);
}

void
echo_forms(struct echo_body *eb, const char *value, size_t len)
{
	const char *cred;

	subject_lines(eb, "value", value, len);
	if ((cred = credential(value, len, "Bearer")) != NULL)
		subject_lines(eb, "token", cred, len - (size_t)(cred - value));
	if ((cred = credential(value, len, "Basic")) != NULL) {
		subject_lines(eb, "basic", cred, len - (size_t)(cred - value));
		basic_lines(eb, cred, len - (size_t)(cred - value));
	}
}
