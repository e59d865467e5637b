/*
 * fake_llama.h: a scripted stand-in for llama-server (baseline.md section 8).
 *
 * A small HTTP/1.1 server on 127.0.0.1 that answers
 * POST /v1/chat/completions from a script and records the body of every
 * request it received, so tests can assert on what loopd sent. It runs on
 * its own thread; tests start it in-process, and build/fake-llama wraps it
 * as a program for `make demo`.
 *
 * The script is a JSON array of replies, served in order, one per request:
 *
 *	{"text": "..."}                          a plain reply, finish_reason stop
 *	{"tool_calls": [{"name": N, "arguments": A, "id": I}], "content": C}
 *	                                         A an object (sent as its JSON
 *	                                         text, as llama-server does) or a
 *	                                         string (sent as it is); id and
 *	                                         content optional (content null)
 *	{"status": 500, "body": "..."}           any status with a raw body
 *	{"body": "..."}                          status 200 with a raw body
 *	{"response": {...}}                      status 200 with this JSON object
 *	{"hangup": true}                         close without answering
 *	{"stream": "data: {...}\n\n..."}         a recorded stream, sent as it
 *	                                         is, one event per chunk
 *
 * A request with "stream": true gets a generated reply (text, tool_calls)
 * as server-sent events, as llama-server streams it (fake_stream.h); a
 * "response" or "body" is sent whole whatever was asked. "stall": true
 * sends a stream's chunks but neither its finish_reason nor its end, then
 * holds the connection open until the client closes it (or
 * FAKE_LLAMA_HOLD_MAX_MS). "chunk_ms": N sends a stream's chunks N ms
 * apart, as a model writing on a CPU would. {"endless": true} is a model
 * that never ends its answer: a token ("on ") a chunk, until the
 * request's max_tokens, where it stops with finish_reason "length" as
 * llama-server does, or without one until the client closes (or
 * FAKE_LLAMA_HOLD_MAX_MS).
 *
 * Any reply may also carry "delay_ms": N (wait before answering), "hold":
 * true (wait before answering until the test calls fake_llama_release(),
 * so that a test can keep a request in flight without guessing how long
 * the rest of it takes) and "repeat": true (serve this reply for every
 * later request). When the
 * script is exhausted, requests get status 500 "script exhausted". Every
 * generated reply carries the extra fields a real llama-server sends
 * (usage, timings, system_fingerprint, ...), content "" beside tool calls
 * and call ids of 32 letters and digits, as llama-server's own. A reply
 * with "finish_reason": "length" is one cut at the length limit: a call
 * with "arguments": "{" is llama-server's partial call, a "text" its cut
 * text. Before the script, every request passes the gate of opts.gate.
 *
 * Ownership: fake_llama_start() allocates; fake_llama_stop() stops the
 * thread and frees everything (NULL allowed). fake_llama_request() returns
 * a copy the caller frees with free().
 */
#ifndef FAKE_LLAMA_H
#define FAKE_LLAMA_H

#include <stddef.h>

#include "proto/error.h"
#include "fake_gate.h"

/* Larger request heads or bodies are answered 413 and not recorded. */
#define FAKE_LLAMA_MAX_HEAD	(64 * 1024)
#define FAKE_LLAMA_MAX_BODY	(64 * 1024 * 1024)
/* A client that sends nothing for this long is dropped. */
#define FAKE_LLAMA_IO_TIMEOUT_MS	10000
/* A held reply that is never released is sent after this, so no test hangs. */
#define FAKE_LLAMA_HOLD_MAX_MS		60000

struct fake_llama;

struct fake_llama_opts {
	const char	*script;	/* the script's JSON text */
	const char	*record_dir;	/* NULL, or write request-NNN.json here */
	int		 port;		/* 0: any free port */
	struct fake_gate gate;		/* refused first (fake_gate.h); its
					   strings outlive the server */
};

int	fake_llama_start(const struct fake_llama_opts *,
	    struct fake_llama **ret, struct bx_error *);
/* Reads the script from a file, then as fake_llama_start(); gate may be
 * NULL (no key, a single model, no context limit). */
int	fake_llama_start_file(const char *script_path, const char *record_dir,
	    int port, const struct fake_gate *gate, struct fake_llama **ret,
	    struct bx_error *);
void	fake_llama_stop(struct fake_llama *);
/* Lets one held reply (the one waiting now, or the next) be sent. */
void	fake_llama_release(struct fake_llama *);

int	fake_llama_port(const struct fake_llama *);
/* "http://127.0.0.1:<port>", into buf of at least 32 bytes. */
void	fake_llama_url(const struct fake_llama *, char *buf, size_t len);
/* Requests to /v1/chat/completions received so far. */
size_t	fake_llama_request_count(struct fake_llama *);
/*
 * Streamed answers whose client closed the connection before their end
 * (seen at a failed send, or while the stream stalled or was paced): a
 * model request the client cancelled, as llama-server would see it.
 */
size_t	fake_llama_hangups(struct fake_llama *);
/* A copy of the i-th request body, NUL-terminated; NULL if out of range. */
char	*fake_llama_request(struct fake_llama *, size_t i);

#endif
