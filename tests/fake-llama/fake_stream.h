/*
 * fake_stream.h: the fake llama-server's streamed answers ("stream": true
 * in the request), in the shape a real llama-server sends them
 * (../shared/notes/llama-server-shapes.md): Content-Type
 * text/event-stream, chunked, one `data: {chunk}` event per HTTP chunk,
 * each sent and flushed on its own so the client sees them one at a time.
 *
 * A generated reply becomes a role chunk, its content in pieces of a word
 * or less, each tool call in fragments (index, id, type, name and the
 * first few bytes of arguments, then a few bytes of arguments at a time),
 * a last chunk with an empty delta, the finish_reason and timings, and
 * `data: [DONE]`. A scripted "stream" text is sent as it is, one event
 * (up to and with its empty line) per chunk. "chunk_ms" paces the chunks
 * as a model on a CPU would (bench/ and the closing notes' captures). An
 * "endless" answer is a model that never ends its answer: one token a
 * chunk, stopped only by the request's max_tokens (as llama-server stops
 * at it, with finish_reason "length") or by the client going away.
 *
 * Ownership: the chunk lists are new JSON arrays of strings (each chunk's
 * exact bytes), json_decref'd by the caller.
 */
#ifndef FAKE_STREAM_H
#define FAKE_STREAM_H

#include <stdbool.h>

#include <jansson.h>

/* Sends all len bytes of buf on fd (EINTR and short sends); 0 or -1. */
int	fake_send_all(int fd, const char *buf, size_t len);

/* Whether the request body asks for a stream. */
bool	fake_stream_wanted(const char *request_body);

/*
 * The chunks of completion (a chat.completion object, fake_reply_build()),
 * streamed; with stall, only those before the finish_reason. NULL when out
 * of memory.
 */
json_t	*fake_stream_generate(const json_t *completion, bool stall);

/* A recorded stream's text, cut after each empty line. */
json_t	*fake_stream_split(const char *text);

/* How sending a stream ended. */
#define FAKE_STREAM_SENT	0	/* whole, or stalled until max_ms */
#define FAKE_STREAM_GONE	1	/* the client closed its end first */
#define FAKE_STREAM_FAILED	(-1)	/* stop_fd, or out of memory */

/*
 * Sends the head and each chunk on fd, chunk_ms apart (a model's pace; 0:
 * at once); then the last chunk, or with stall nothing more: waits until
 * the client closes, stop_fd is readable or max_ms pass. Returns one of
 * the three above.
 */
int	fake_stream_send(int fd, const json_t *chunks, bool stall,
	    int chunk_ms, int stop_fd, int max_ms);

/*
 * Sends an endless answer with completion's ids: the role chunk, then a
 * token ("on ") a chunk, chunk_ms apart. After max_tokens tokens (0: no
 * limit) a last chunk has finish_reason "length" and timings.predicted_n
 * max_tokens, then `data: [DONE]`; without a limit it goes on until the
 * client closes, stop_fd is readable or max_ms pass (FAKE_STREAM_SENT,
 * the stream then left without its end). Returns one of the three above.
 */
int	fake_stream_endless(int fd, const json_t *completion,
	    long max_tokens, int chunk_ms, int stop_fd, int max_ms);

/*
 * Answers reply as a stream: its "stream" text as it is, an "endless" one
 * to the request's max_tokens (request_body's; 0 or absent: none), or
 * else the chunks of completion (which may then be NULL otherwise);
 * "stall": true as fake_stream_send()'s stall. Returns as
 * fake_stream_send().
 */
int	fake_stream_answer(int fd, const json_t *reply,
	    const json_t *completion, const char *request_body, int stop_fd,
	    int max_ms);

#endif
