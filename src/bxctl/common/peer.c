/*
 * peer.c: reading answers from brokerd and loopd (peer.h).
 */
#include "bxctl/common/peer.h"

int
peer_read(struct bx_frame_reader *fr, int timeout_ms, const char *who,
    struct bx_msg **ret, const char **ret_line, size_t *ret_len,
    struct bx_error *err)
{
	enum bx_frame_status st;
	const char *line;
	size_t len;

	st = bx_frame_read(fr, timeout_ms, &line, &len, err);
	switch (st) {
	case BX_FRAME_OK:
		break;
	case BX_FRAME_EOF:
	case BX_FRAME_PARTIAL:
		return bx_fail(err, "%s closed the connection before it "
		    "answered", who);
	case BX_FRAME_TIMEOUT:
		return bx_fail(err, "%s did not answer within %d s", who,
		    timeout_ms / 1000);
	case BX_FRAME_TOO_LARGE:
		return bx_fail(err, "%s sent a frame larger than %d bytes",
		    who, BX_FRAME_MAX);
	default:
		return bx_error_prefix(err, "reading from %s", who);
	}
	if (bx_msg_decode(line, len, ret, err) == -1)
		return bx_error_prefix(err, "%s sent a frame bxctl cannot "
		    "read", who);
	if (ret_line != NULL) {
		*ret_line = line;
		*ret_len = len;
	}
	return 0;
}

int
peer_error(const struct bx_msg *error, const char *who, struct bx_error *err)
{
	return bx_fail(err, "%s answered error %s: %s", who,
	    bx_code_name(error->error.code), error->error.message);
}
