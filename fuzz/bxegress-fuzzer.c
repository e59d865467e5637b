/*
 * bxegress-fuzzer.c: libFuzzer harness for bxegress's SOCKS5 parser
 * (src/bxegress/socks.h). The input says how to cut itself up: its first
 * byte L (taken mod 16) is followed by L chunk lengths, and the rest is
 * the stream a client sends, fed in chunks of those lengths in turn (a
 * length of 0 is an empty feed; no lengths means the stream in one
 * piece). What the harness checks, aborting if a promise breaks:
 *
 * - fed whole or in the input's chunks, the parser gives the same final
 *   event, reason, reply, bytes used and target;
 * - no feed uses more than it was given, SOCKS_MORE uses all of it, and
 *   the greeting and request together never take more than their
 *   largest form;
 * - a request passed every check: a host name matching a pattern, on
 *   port 443; a refusal has a reason of the report's set and a reply of
 *   0, 2 or 10 bytes starting with version 5;
 * - a finished parser repeats itself and uses nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bxegress/socks.h"
#include "proto/hostname.h"

/* A greeting (2 + 255) and a request (5 + 255 + 2) at their longest. */
#define HANDSHAKE_MAX	(2 + 255 + 5 + 255 + 2)
#define FUZZ_INPUT_MAX	4096
/* Empty feeds allowed in one run, so that lengths of 0 cannot spin. */
#define FEEDS_MAX	10000

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *const patterns[] = {
	"good.test", "*.good.test", "example.com",
};
#define NPATTERNS	(sizeof(patterns) / sizeof(patterns[0]))

struct outcome {
	enum socks_event	 o_event;
	struct socks_result	 o_result;
	size_t			 o_used;
	struct socks_parser	 o_parser;
};

static void
check(int ok)
{
	if (!ok)
		abort();
}

static const char *const reasons[] = {
	"not in the grant's hosts", "not a host name", "an IP literal",
	"port is not 443", "bad request: no acceptable method",
	"bad request: reserved byte",
};
static const char *const numbered[] = {
	"bad request: version ", "bad request: command ",
	"bad request: address type ",
};

static void
check_reason(const char *r)
{
	size_t i, n;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(r, reasons[i]) == 0)
			return;
	for (i = 0; i < sizeof(numbered) / sizeof(numbered[0]); i++) {
		n = strlen(numbered[i]);
		if (strncmp(r, numbered[i], n) == 0 && r[n] != '\0' &&
		    strspn(r + n, "0123456789") == strlen(r + n))
			return;
	}
	abort();
}

static void
check_final(const struct outcome *o)
{
	const struct socks_parser *p = &o->o_parser;
	const struct socks_result *r = &o->o_result;
	struct bx_error err;
	size_t i;

	check(o->o_used <= HANDSHAKE_MAX);
	if (o->o_event == SOCKS_REQUEST) {
		check(p->sp_known && p->sp_atyp == SOCKS_ATYP_NAME);
		check(p->sp_port == SOCKS_PORT);
		check(strlen(p->sp_name) == p->sp_namelen);
		check(bx_host_check(p->sp_name, p->sp_namelen, &err) == 0);
		for (i = 0; i < NPATTERNS; i++)
			if (bx_host_matches(patterns[i], p->sp_name))
				break;
		check(i < NPATTERNS);
		return;
	}
	if (o->o_event != SOCKS_REFUSE)
		return;
	check_reason(r->sr_reason);
	check(r->sr_replylen == 0 || r->sr_replylen == 2 ||
	    r->sr_replylen == SOCKS_REPLY_LEN);
	check(r->sr_replylen == 0 || r->sr_reply[0] == SOCKS_VERSION);
}

/* Feeds stream in the chunks lens gives (nlens 0: whole). */
static void
run(const uint8_t *lens, size_t nlens, const uint8_t *stream, size_t len,
    struct outcome *o)
{
	struct socks_result r;
	enum socks_event ev = SOCKS_MORE;
	size_t at = 0, k = 0, chunk, feeds = 0, methods = 0;

	memset(&r, 0, sizeof(r));
	socks_init(&o->o_parser, patterns, NPATTERNS);
	while (at < len) {
		chunk = nlens == 0 ? len - at : lens[k++ % nlens];
		if (chunk > len - at)
			chunk = len - at;
		if (chunk == 0 && ++feeds > FEEDS_MAX)
			chunk = len - at;
		ev = socks_feed(&o->o_parser, stream + at, chunk, &r);
		check(r.sr_used <= chunk && r.sr_event == ev);
		check(ev != SOCKS_MORE || r.sr_used == chunk);
		at += r.sr_used;
		if (ev == SOCKS_METHOD)
			check(++methods == 1 && r.sr_replylen == 2 &&
			    r.sr_reply[1] == SOCKS_METHOD_NONE);
		if (ev == SOCKS_REQUEST || ev == SOCKS_REFUSE)
			break;
	}
	o->o_event = ev == SOCKS_METHOD ? SOCKS_MORE : ev;
	o->o_result = r;
	o->o_used = at;
}

static void
check_same(const struct outcome *a, const struct outcome *b)
{
	const struct socks_parser *p = &a->o_parser, *q = &b->o_parser;

	check(a->o_event == b->o_event);
	if (a->o_event == SOCKS_MORE)
		return;
	check(a->o_used == b->o_used);
	check(strcmp(a->o_result.sr_reason, b->o_result.sr_reason) == 0);
	check(a->o_result.sr_replylen == b->o_result.sr_replylen);
	check(memcmp(a->o_result.sr_reply, b->o_result.sr_reply,
	    a->o_result.sr_replylen) == 0);
	check(p->sp_known == q->sp_known);
	if (!p->sp_known)
		return;
	check(p->sp_atyp == q->sp_atyp && p->sp_port == q->sp_port);
	check(p->sp_namelen == q->sp_namelen);
	check(memcmp(p->sp_name, q->sp_name, p->sp_namelen) == 0);
	check(memcmp(p->sp_addr, q->sp_addr, sizeof(p->sp_addr)) == 0);
}

/* Once finished, a parser says the same again and takes nothing. */
static void
check_finished(struct outcome *o, const uint8_t *stream, size_t len)
{
	struct socks_result r;

	if (o->o_event != SOCKS_REQUEST && o->o_event != SOCKS_REFUSE)
		return;
	check(socks_feed(&o->o_parser, stream, len, &r) == o->o_event);
	check(r.sr_used == 0);
	check(strcmp(r.sr_reason, o->o_result.sr_reason) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct outcome whole, chunked;
	size_t nlens;

	if (size == 0)
		return 0;
	if (size > FUZZ_INPUT_MAX)
		size = FUZZ_INPUT_MAX;
	nlens = data[0] % 16;
	if (nlens > size - 1)
		nlens = size - 1;
	run(NULL, 0, data + 1 + nlens, size - 1 - nlens, &whole);
	run(data + 1, nlens, data + 1 + nlens, size - 1 - nlens, &chunked);
	check_final(&whole);
	check_final(&chunked);
	check_same(&whole, &chunked);
	check_finished(&chunked, data, size);
	return 0;
}
