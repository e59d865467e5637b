/*
 * test-socks.c: the SOCKS5 parser of bxegress (src/bxegress/socks.h) on
 * its own: every malformed greeting and request with its reply and
 * reason, every address type, names at and past their limits, names that
 * are not host names or are IP addresses in text, a request fed one byte
 * at a time and split at every point, and the bytes after a request left
 * to the caller.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bxegress/socks.h"

static const char *const patterns[] = { "good.test", "*.good.test" };
#define NPATTERNS	(sizeof(patterns) / sizeof(patterns[0]))

static const unsigned char greeting[] = { 5, 1, 0 };

/* The reply to a request with rep, as socks_reply makes it. */
static void
assert_rep(const struct socks_result *r, unsigned rep)
{
	const unsigned char want[SOCKS_REPLY_LEN] = { 5, (unsigned char)rep,
	    0, 1 };

	assert_int_equal(r->sr_replylen, SOCKS_REPLY_LEN);
	assert_memory_equal(r->sr_reply, want, SOCKS_REPLY_LEN);
}

/* Builds greeting + CONNECT to name:port (ATYP 3) into out; its length. */
static size_t
build(unsigned char *out, const char *name, size_t namelen, unsigned port)
{
	size_t n = 0;

	memcpy(out, greeting, sizeof(greeting));
	n += sizeof(greeting);
	out[n++] = 5;
	out[n++] = 1;
	out[n++] = 0;
	out[n++] = 3;
	out[n++] = (unsigned char)namelen;
	memcpy(out + n, name, namelen);
	n += namelen;
	out[n++] = (unsigned char)(port >> 8);
	out[n++] = (unsigned char)port;
	return n;
}

/*
 * Feeds buf whole, going on past SOCKS_METHOD as bxegress does; returns
 * the final event and leaves the parser and the last result behind. The
 * bytes used in all come back in *used.
 */
static enum socks_event
feed_all(struct socks_parser *p, const unsigned char *buf, size_t len,
    struct socks_result *r, size_t *used)
{
	enum socks_event ev;
	size_t at = 0;

	socks_init(p, patterns, NPATTERNS);
	for (;;) {
		ev = socks_feed(p, buf + at, len - at, r);
		assert_true(r->sr_used <= len - at);
		at += r->sr_used;
		if (ev != SOCKS_METHOD)
			break;
		assert_int_equal(r->sr_replylen, 2);
		assert_int_equal(r->sr_reply[0], 5);
		assert_int_equal(r->sr_reply[1], 0);
	}
	if (used != NULL)
		*used = at;
	return ev;
}

/* A whole exchange that must be refused with reason. */
static void
assert_refused(const unsigned char *buf, size_t len, const char *reason,
    struct socks_result *r)
{
	struct socks_parser p;
	size_t used;

	assert_int_equal(feed_all(&p, buf, len, r, &used), SOCKS_REFUSE);
	assert_string_equal(r->sr_reason, reason);
	assert_int_equal(used, len);
}

static void
refused_name(const char *name, size_t len, unsigned port, const char *reason)
{
	unsigned char buf[600];
	struct socks_result r;
	size_t n = build(buf, name, len, port);

	assert_refused(buf, n, reason, &r);
	assert_rep(&r, SOCKS_REP_NOT_ALLOWED);
}

static void
test_good_request(void **state)
{
	unsigned char buf[600];
	struct socks_parser p;
	struct socks_result r;
	size_t n = build(buf, "good.test", 9, 443), used;

	(void)state;
	assert_int_equal(feed_all(&p, buf, n, &r, &used), SOCKS_REQUEST);
	assert_int_equal(used, n);
	assert_true(p.sp_known);
	assert_int_equal(p.sp_atyp, 3);
	assert_string_equal(p.sp_name, "good.test");
	assert_int_equal(p.sp_namelen, 9);
	assert_int_equal(p.sp_port, 443);
	assert_int_equal(r.sr_replylen, 0);
	n = build(buf, "www.good.test", 13, 443);
	assert_int_equal(feed_all(&p, buf, n, &r, NULL), SOCKS_REQUEST);
	assert_string_equal(p.sp_name, "www.good.test");
}

/* The greeting alone ends in SOCKS_METHOD and takes exactly its bytes. */
static void
test_greeting(void **state)
{
	static const unsigned char many[] = { 5, 4, 2, 1, 0, 0x80, 9 };
	struct socks_parser p;
	struct socks_result r;

	(void)state;
	socks_init(&p, patterns, NPATTERNS);
	assert_int_equal(socks_feed(&p, many, sizeof(many), &r),
	    SOCKS_METHOD);
	assert_int_equal(r.sr_used, 6);
	assert_int_equal(p.sp_state, SOCKS_S_REQ_VER);
	socks_init(&p, patterns, NPATTERNS);
	assert_int_equal(socks_feed(&p, many, 3, &r), SOCKS_MORE);
	assert_int_equal(r.sr_used, 3);
	assert_int_equal(socks_feed(&p, NULL, 0, &r), SOCKS_MORE);
	assert_int_equal(r.sr_used, 0);
}

static void
test_bad_greeting(void **state)
{
	static const struct {
		unsigned char	in[8];
		size_t		len;
		size_t		used;	/* up to the byte that decides */
		const char	*reason;
		size_t		replylen;
	} cases[] = {
		{ { 4, 1, 0 }, 3, 1, "bad request: version 4", 0 },
		{ { 0 }, 1, 1, "bad request: version 0", 0 },
		{ { 0xff }, 1, 1, "bad request: version 255", 0 },
		{ { 'G', 'E', 'T' }, 3, 1, "bad request: version 71", 0 },
		{ { 5, 0, 0 }, 3, 2, "bad request: no acceptable method", 2 },
		{ { 5, 1, 2 }, 3, 3, "bad request: no acceptable method", 2 },
		{ { 5, 3, 1, 2, 0xff, 0 }, 6, 5,
		    "bad request: no acceptable method", 2 },
	};
	struct socks_parser p;
	struct socks_result r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		socks_init(&p, patterns, NPATTERNS);
		assert_int_equal(socks_feed(&p, cases[i].in, cases[i].len,
		    &r), SOCKS_REFUSE);
		assert_string_equal(r.sr_reason, cases[i].reason);
		assert_int_equal(r.sr_used, cases[i].used);
		assert_int_equal(r.sr_replylen, cases[i].replylen);
		if (r.sr_replylen == 2) {
			assert_int_equal(r.sr_reply[0], 5);
			assert_int_equal(r.sr_reply[1], 0xff);
		}
		assert_false(p.sp_known);
	}
}

/* A refusal comes at the byte that decides it: what follows is unread. */
static void
test_refused_early(void **state)
{
	static const unsigned char in[] = { 5, 1, 0, 5, 2, 0, 3, 9, 'g' };
	struct socks_parser p;
	struct socks_result r;

	(void)state;
	socks_init(&p, patterns, NPATTERNS);
	assert_int_equal(socks_feed(&p, in, sizeof(in), &r), SOCKS_METHOD);
	assert_int_equal(socks_feed(&p, in + 3, sizeof(in) - 3, &r),
	    SOCKS_REFUSE);
	assert_int_equal(r.sr_used, 2);
	assert_string_equal(r.sr_reason, "bad request: command 2");
	/* Finished: feeding again repeats the answer and takes nothing. */
	assert_int_equal(socks_feed(&p, in, sizeof(in), &r), SOCKS_REFUSE);
	assert_int_equal(r.sr_used, 0);
	assert_string_equal(r.sr_reason, "bad request: command 2");
	assert_rep(&r, SOCKS_REP_COMMAND);
}

static void
test_bad_request_version(void **state)
{
	static const unsigned char in[] = { 5, 1, 0, 4, 1, 0, 3 };
	struct socks_result r;

	(void)state;
	assert_refused(in, 4, "bad request: version 4", &r);
	assert_int_equal(r.sr_replylen, 0);
}

static void
test_bad_command(void **state)
{
	static const unsigned cmds[] = { 0, 2, 3, 4, 0x81, 0xff };
	unsigned char in[] = { 5, 1, 0, 5, 0 };
	struct socks_result r;
	char want[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		in[4] = (unsigned char)cmds[i];
		snprintf(want, sizeof(want), "bad request: command %u",
		    cmds[i]);
		assert_refused(in, sizeof(in), want, &r);
		assert_rep(&r, SOCKS_REP_COMMAND);
	}
}

static void
test_reserved_byte(void **state)
{
	unsigned char in[] = { 5, 1, 0, 5, 1, 1 };
	struct socks_result r;

	(void)state;
	assert_refused(in, sizeof(in), "bad request: reserved byte", &r);
	assert_rep(&r, SOCKS_REP_FAILURE);
	in[5] = 0xff;
	assert_refused(in, sizeof(in), "bad request: reserved byte", &r);
}

static void
test_unknown_address_type(void **state)
{
	static const unsigned types[] = { 0, 2, 5, 6, 0x7f, 0xff };
	unsigned char in[] = { 5, 1, 0, 5, 1, 0, 0 };
	struct socks_result r;
	char want[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		in[6] = (unsigned char)types[i];
		snprintf(want, sizeof(want), "bad request: address type %u",
		    types[i]);
		assert_refused(in, sizeof(in), want, &r);
		assert_rep(&r, SOCKS_REP_ADDRESS_TYPE);
	}
}

/* ATYP 1 and 4 are read to the end of the port, then refused. */
static void
test_ip_literal(void **state)
{
	static const unsigned char v4[] = { 5, 1, 0, 5, 1, 0, 1,
	    10, 200, 0, 2, 0x01, 0xbb };
	static const unsigned char v6[] = { 5, 1, 0, 5, 1, 0, 4,
	    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5,
	    0x00, 0x50 };
	struct socks_parser p;
	struct socks_result r;
	size_t used;

	(void)state;
	socks_init(&p, patterns, NPATTERNS);
	assert_int_equal(feed_all(&p, v4, sizeof(v4) - 1, &r, NULL),
	    SOCKS_MORE);
	assert_false(p.sp_known);
	assert_int_equal(feed_all(&p, v4, sizeof(v4), &r, &used),
	    SOCKS_REFUSE);
	assert_int_equal(used, sizeof(v4));
	assert_string_equal(r.sr_reason, "an IP literal");
	assert_rep(&r, SOCKS_REP_ADDRESS_TYPE);
	assert_true(p.sp_known);
	assert_int_equal(p.sp_atyp, 1);
	assert_memory_equal(p.sp_addr, v4 + 7, 4);
	assert_int_equal(p.sp_port, 443);

	assert_int_equal(feed_all(&p, v6, sizeof(v6) - 1, &r, NULL),
	    SOCKS_MORE);
	assert_int_equal(feed_all(&p, v6, sizeof(v6), &r, &used),
	    SOCKS_REFUSE);
	assert_int_equal(used, sizeof(v6));
	assert_string_equal(r.sr_reason, "an IP literal");
	assert_rep(&r, SOCKS_REP_ADDRESS_TYPE);
	assert_int_equal(p.sp_atyp, 4);
	assert_memory_equal(p.sp_addr, v6 + 7, 16);
	assert_int_equal(p.sp_port, 80);
}

/* A zero length is an invalid name, read on to its port. */
static void
test_empty_name(void **state)
{
	unsigned char buf[64];
	struct socks_parser p;
	struct socks_result r;
	size_t n = build(buf, "", 0, 443);

	(void)state;
	assert_int_equal(feed_all(&p, buf, n - 1, &r, NULL), SOCKS_MORE);
	assert_int_equal(feed_all(&p, buf, n, &r, NULL), SOCKS_REFUSE);
	assert_string_equal(r.sr_reason, "not a host name");
	assert_rep(&r, SOCKS_REP_NOT_ALLOWED);
	assert_true(p.sp_known);
	assert_int_equal(p.sp_namelen, 0);
	assert_string_equal(p.sp_name, "");
}

/* 255 bytes is the most the wire holds; over 253 is not a host name. */
static void
test_long_names(void **state)
{
	char name[SOCKS_NAME_MAX + 1];
	unsigned char buf[600];
	struct socks_parser p;
	struct socks_result r;
	size_t n;

	(void)state;
	/* 63 + 1 + 63 + 1 + 63 + 1 + 50 + ".good.test" = 253. */
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	memcpy(name + 243, ".good.test", 10);
	n = build(buf, name, 253, 443);
	assert_int_equal(feed_all(&p, buf, n, &r, NULL), SOCKS_REQUEST);
	assert_int_equal(p.sp_namelen, 253);
	assert_int_equal(strlen(p.sp_name), 253);
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	memcpy(name + 245, ".good.test", 10);
	n = build(buf, name, 255, 443);
	assert_int_equal(feed_all(&p, buf, n, &r, NULL), SOCKS_REFUSE);
	assert_string_equal(r.sr_reason, "not a host name");
	assert_int_equal(p.sp_namelen, 255);
	assert_memory_equal(p.sp_name, name, 255);
	assert_int_equal(p.sp_name[255], '\0');
	memset(name, 0xff, sizeof(name));
	refused_name(name, 255, 443, "not a host name");
}

static void
test_not_host_names(void **state)
{
	static const char *const names[] = {
		"Good.test", "good.test.", ".good.test", "good", "good..test",
		"-good.test", "good-.test", "go_od.test", "good.test:443",
		"good test", "*.good.test", "g\xc3\xb6od.test", "good.t\x01st",
		"[good.test]", "1.2.3.4:443", "::1:x", "http://good.test",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		refused_name(names[i], strlen(names[i]), 443,
		    "not a host name");
	/* A NUL inside: the name must not end early anywhere. */
	refused_name("good.test\0.evil", 15, 443, "not a host name");
	refused_name("\0", 1, 443, "not a host name");
}

static void
test_ip_in_text(void **state)
{
	static const char *const names[] = {
		"127.0.0.1", "10.200.0.2", "1.2.3.4.", "0x7f.1", "0X7F.0.0.1",
		"2130706433", "1.2.3.0x4", "999.1.1.1", "good.test.123",
		"::1", "::", "2001:db8::1", "[::1]", "::ffff:127.0.0.1",
		"[2001:db8::5]", "fe80::1",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_true(socks_ip_text(names[i], strlen(names[i])));
		refused_name(names[i], strlen(names[i]), 443,
		    "an IP literal");
	}
	assert_false(socks_ip_text("good.test", 9));
	assert_false(socks_ip_text("", 0));
	assert_false(socks_ip_text("127.0.0.1\0", 10));
	assert_false(socks_ip_text("1.2.3.4:443", 11));
	assert_false(socks_ip_text("[::1", 4));
	assert_false(socks_ip_text("a b.1", 5));
	assert_false(socks_ip_text("1.2.x", 5));
}

static void
test_grant_and_port(void **state)
{
	(void)state;
	refused_name("evil.test", 9, 443, "not in the grant's hosts");
	refused_name("good.test.evil.test", 19, 443,
	    "not in the grant's hosts");
	refused_name("evilgood.test", 13, 443, "not in the grant's hosts");
	refused_name("test.good", 9, 443, "not in the grant's hosts");
	/* The grant is checked before the port. */
	refused_name("evil.test", 9, 80, "not in the grant's hosts");
	refused_name("good.test", 9, 80, "port is not 443");
	refused_name("good.test", 9, 0, "port is not 443");
	refused_name("a.good.test", 11, 8443, "port is not 443");
	/* 443 in the wrong byte order. */
	refused_name("good.test", 9, 0xbb01, "port is not 443");
}

/* The same request, one byte per feed: only its last byte answers. */
static void
test_byte_by_byte(void **state)
{
	unsigned char buf[600];
	struct socks_parser p;
	struct socks_result r;
	size_t n = build(buf, "www.good.test", 13, 443), i;
	enum socks_event ev;

	(void)state;
	socks_init(&p, patterns, NPATTERNS);
	for (i = 0; i < n; i++) {
		ev = socks_feed(&p, buf + i, 1, &r);
		assert_int_equal(r.sr_used, 1);
		if (i == 2)
			assert_int_equal(ev, SOCKS_METHOD);
		else if (i == n - 1)
			assert_int_equal(ev, SOCKS_REQUEST);
		else
			assert_int_equal(ev, SOCKS_MORE);
	}
	assert_string_equal(p.sp_name, "www.good.test");
	assert_int_equal(p.sp_port, 443);
}

/* Two pieces, split at every point, give the one answer. */
static void
test_every_split(void **state)
{
	static const char *const names[] = { "good.test", "evil.test" };
	unsigned char buf[600];
	struct socks_parser p;
	struct socks_result r;
	size_t n, cut, at, k, pieces[2];
	enum socks_event ev, want;

	(void)state;
	for (k = 0; k < 2; k++) {
		n = build(buf, names[k], 9, 443);
		want = k == 0 ? SOCKS_REQUEST : SOCKS_REFUSE;
		for (cut = 0; cut <= n; cut++) {
			socks_init(&p, patterns, NPATTERNS);
			pieces[0] = cut;
			pieces[1] = n;
			at = 0;
			ev = SOCKS_MORE;
			while (at < n) {
				ev = socks_feed(&p, buf + at,
				    (at < cut ? pieces[0] : pieces[1]) - at,
				    &r);
				at += r.sr_used;
				if (ev == SOCKS_REQUEST || ev == SOCKS_REFUSE)
					break;
			}
			assert_int_equal(ev, want);
			assert_int_equal(at, n);
			assert_true(p.sp_known);
			assert_string_equal(p.sp_name, names[k]);
		}
	}
}

/* Bytes after the request are the client's data: never taken. */
static void
test_pipelined(void **state)
{
	static const char data[] = "\x16\x03\x01 client hello";
	unsigned char buf[600];
	struct socks_parser p;
	struct socks_result r;
	size_t n = build(buf, "good.test", 9, 443), used;

	(void)state;
	memcpy(buf + n, data, sizeof(data));
	assert_int_equal(feed_all(&p, buf, n + sizeof(data), &r, &used),
	    SOCKS_REQUEST);
	assert_int_equal(used, n);
	assert_memory_equal(buf + used, data, sizeof(data));
	/* A refusal leaves what follows it too. */
	n = build(buf, "evil.test", 9, 443);
	memcpy(buf + n, data, sizeof(data));
	assert_int_equal(feed_all(&p, buf, n + sizeof(data), &r, &used),
	    SOCKS_REFUSE);
	assert_int_equal(used, n);
}

static void
test_reply(void **state)
{
	static const unsigned char ok[] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
	unsigned char out[SOCKS_REPLY_LEN];

	(void)state;
	memset(out, 0xaa, sizeof(out));
	socks_reply(SOCKS_REP_OK, out);
	assert_memory_equal(out, ok, sizeof(ok));
	socks_reply(SOCKS_REP_CONN_REFUSED, out);
	assert_int_equal(out[1], 5);
}

/* No pattern at all: every name is outside the grant. */
static void
test_no_patterns(void **state)
{
	unsigned char buf[600];
	struct socks_parser p;
	struct socks_result r;
	size_t n = build(buf, "good.test", 9, 443), at = 0;

	(void)state;
	socks_init(&p, NULL, 0);
	while (socks_feed(&p, buf + at, n - at, &r) == SOCKS_METHOD)
		at += r.sr_used;
	assert_int_equal(r.sr_event, SOCKS_REFUSE);
	assert_string_equal(r.sr_reason, "not in the grant's hosts");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_request),
		cmocka_unit_test(test_greeting),
		cmocka_unit_test(test_bad_greeting),
		cmocka_unit_test(test_refused_early),
		cmocka_unit_test(test_bad_request_version),
		cmocka_unit_test(test_bad_command),
		cmocka_unit_test(test_reserved_byte),
		cmocka_unit_test(test_unknown_address_type),
		cmocka_unit_test(test_ip_literal),
		cmocka_unit_test(test_empty_name),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_not_host_names),
		cmocka_unit_test(test_ip_in_text),
		cmocka_unit_test(test_grant_and_port),
		cmocka_unit_test(test_byte_by_byte),
		cmocka_unit_test(test_every_split),
		cmocka_unit_test(test_pipelined),
		cmocka_unit_test(test_reply),
		cmocka_unit_test(test_no_patterns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
