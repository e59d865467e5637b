/*
 * model_stream.h: reading llama-server's streamed answer (server-sent
 * events, "stream": true) into the same struct model_reply a whole
 * chat.completion body gives.
 *
 * The reader is fed the body's bytes as they arrive, in pieces of any
 * size (a piece may end in the middle of a line, or of a UTF-8
 * character), so that it can be driven by libcurl and by a fuzzer alike.
 * It reads `data: {json}` lines (an event's lines joined), each a
 * chat.completion.chunk: choices[0].delta.content is appended to the
 * content and handed to the delta callback at once; delta.tool_calls
 * fragments are joined by their index (id and name from the first,
 * arguments appended from every one); finish_reason is kept from the
 * chunk that has it; `data: [DONE]` ends the stream. A chunk holding an
 * "error" object, or an `error:` line, fails the stream with the server's
 * message. Comments (": ...") and other fields (event:, id:, retry:) are
 * ignored.
 *
 * Bounds: an event's data longer than MODEL_STREAM_LINE_MAX, more than
 * MODEL_MAX_CALLS calls, a call index past them, and a stream that ends
 * without a finish_reason are errors; the body as a whole is bounded by
 * the caller (MODEL_MAX_RESPONSE).
 *
 * Ownership: model_stream_new() allocates, model_stream_free() frees
 * (NULL allowed). model_stream_finish() allocates *ret, freed with
 * model_reply_free(). The text handed to the callback is borrowed for the
 * call only; it is NUL-terminated, never empty, and whole UTF-8
 * characters (jansson decoded it). After an error the stream refuses
 * everything but model_stream_free().
 */
#ifndef LOOPD_MODEL_STREAM_H
#define LOOPD_MODEL_STREAM_H

#include <stddef.h>

#include "proto/error.h"
#include "proto/frame.h"
#include "loopd/model.h"

/* One event's data, as a loop.sock frame is bounded. */
#define MODEL_STREAM_LINE_MAX	BX_FRAME_MAX

struct model_stream;

int	model_stream_new(model_delta_fn *on_delta, void *arg,
	    struct model_stream **ret, struct bx_error *err);
void	model_stream_free(struct model_stream *);

/* Takes len more bytes of the body. Returns 0, or -1 with err. */
int	model_stream_feed(struct model_stream *, const char *buf, size_t len,
	    struct bx_error *err);

/*
 * The body has ended: the reply, or -1 with err when the stream did not
 * finish (no finish_reason) or a call in it is not one.
 */
int	model_stream_finish(struct model_stream *, struct model_reply **ret,
	    struct bx_error *err);

#endif
