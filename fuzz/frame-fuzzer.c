/*
 * frame-fuzzer.c: libFuzzer harness for the frame reader and the message
 * decoder (src/proto/frame.h, message.h). The input is a byte stream a peer
 * might send: it goes through a pipe into the reader, and every frame read
 * is decoded. What the harness checks, aborting if a promise breaks:
 *
 * - the frames read, each with its newline, are exactly the input up to its
 *   last newline, and the stream ends as EOF or PARTIAL as the input says;
 * - the reader never holds more than BX_FRAME_MAX bytes;
 * - a decoded message encodes, its encoding decodes, and encoding that
 *   again gives the same bytes (the encoded form is canonical);
 * - the encoding means the frame's own value: every field the frame had
 *   is there, equal, and a field the encoder adds is an absent optional
 *   one, null (so decoding it gives the value the frame gave);
 * - a refused frame leaves the out-parameter untouched and a message.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "proto/frame.h"
#include "proto/message.h"

/* Below the pipe's 64 KiB, so the whole input is written before reading. */
#define FUZZ_INPUT_MAX	60000

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check(int ok)
{
	if (!ok)
		abort();
}

/*
 * Whether enc, the encoding's JSON, holds the value of in, the frame's:
 * the same fields with equal values, and null for any the frame left out.
 */
static bool
same_value(json_t *in, json_t *enc)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_object(in) && json_is_object(enc)) {
		json_object_foreach(in, key, v)
			if (!same_value(v, json_object_get(enc, key)))
				return false;
		json_object_foreach(enc, key, v)
			if (json_object_get(in, key) == NULL && !json_is_null(v))
				return false;
		return true;
	}
	if (json_is_array(in) && json_is_array(enc)) {
		if (json_array_size(in) != json_array_size(enc))
			return false;
		json_array_foreach(in, i, v)
			if (!same_value(v, json_array_get(enc, i)))
				return false;
		return true;
	}
	return enc != NULL && json_equal(in, enc);
}

static void
check_value(const char *line, size_t len, const char *out, size_t olen)
{
	json_t *in, *enc;

	in = json_loadb(line, len, 0, NULL);
	enc = json_loadb(out, olen, 0, NULL);
	check(in != NULL && enc != NULL && same_value(in, enc));
	json_decref(in);
	json_decref(enc);
}

static void
check_message(const char *line, size_t len)
{
	struct bx_msg *m = (struct bx_msg *)&m, *again = NULL;
	struct bx_error err = { "" };
	char *out, *out2;
	size_t olen, olen2;

	if (bx_msg_decode(line, len, &m, &err) == -1) {
		check(m == (struct bx_msg *)&m);
		check(err.msg[0] != '\0');
		return;
	}
	/* Inputs here are far below the frame limit, so encoding must work. */
	check(bx_msg_encode(m, &out, &olen, &err) == 0);
	check(olen > 0 && out[olen - 1] == '\n' && strlen(out) == olen);
	check_value(line, len, out, olen);
	check(bx_msg_decode(out, olen - 1, &again, &err) == 0);
	check(again->kind == m->kind);
	check(bx_msg_is_final(again) == bx_msg_is_final(m));
	check(bx_msg_encode(again, &out2, &olen2, &err) == 0);
	check(olen2 == olen && memcmp(out, out2, olen) == 0);
	free(out);
	free(out2);
	bx_msg_free(again);
	bx_msg_free(m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bx_frame_reader r;
	enum bx_frame_status s;
	struct bx_error err;
	const char *line;
	size_t len, at = 0;
	int p[2];

	if (size > FUZZ_INPUT_MAX)
		size = FUZZ_INPUT_MAX;
	check(pipe2(p, O_CLOEXEC) == 0);
	check(size == 0 || write(p[1], data, size) == (ssize_t)size);
	close(p[1]);
	bx_frame_reader_init(&r, p[0]);
	while ((s = bx_frame_read(&r, 10000, &line, &len, &err)) ==
	    BX_FRAME_OK) {
		check(len < BX_FRAME_MAX && at + len < size);
		check(memcmp(line, data + at, len) == 0 && data[at + len] == '\n');
		check(line[len] == '\0');
		check(bx_frame_reader_held(&r) <= BX_FRAME_MAX);
		at += len + 1;
		check_message(line, len);
	}
	check(s == (at == size ? BX_FRAME_EOF : BX_FRAME_PARTIAL));
	check(memchr(data + at, '\n', size - at) == NULL);
	bx_frame_reader_free(&r);
	close(p[0]);
	return 0;
}
