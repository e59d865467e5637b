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
 * - a refused frame leaves the out-parameter untouched and a message.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
