/*
 * redact_decode.h: the decoded copy of a response that the redactor also
 * searches (redact.c), so that a secret is found however many of its bytes
 * are percent-encoded or JSON-escaped. Each %XX (either case) and each
 * JSON escape that stands for an ASCII byte (\" \\ \/ \b \f \n \r \t, and
 * \uXXXX below 0x80, either case) becomes that byte; every other byte is
 * copied. One pass, left to right: what an escape decodes to is not
 * decoded again.
 *
 * Ownership: redact_decode() fills a struct redact_decoded whose two
 * arrays the caller frees with redact_decoded_free(), which overwrites
 * the decoded text first (it may hold a secret an escape hid).
 */
#ifndef BX_REDACT_DECODE_H
#define BX_REDACT_DECODE_H

#include <stdint.h>
#include <stddef.h>

#include "proto/error.h"

struct redact_decoded {
	char		*rd_text;	/* the decoded bytes */
	size_t		 rd_len;
	/*
	 * rd_map[i] is the input offset rd_text[i] came from; rd_map[rd_len]
	 * is the input's length, so decoded [i, j) came from input
	 * [rd_map[i], rd_map[j]).
	 */
	uint32_t	*rd_map;
	/*
	 * Where an escape the input's end cut short starts ("%4", "\u00"),
	 * as an index into rd_text; rd_len when the input ends whole.
	 */
	size_t		 rd_partial;
	/* Whether any escape was decoded or cut short. */
	int		 rd_changed;
};

/* Decodes the len bytes at in (len below UINT32_MAX). */
int	redact_decode(const char *in, size_t len, struct redact_decoded *ret,
	    struct bx_error *err);
void	redact_decoded_free(struct redact_decoded *dec);

#endif
