/*
 * fake_reply.h: the fake llama-server's script (see fake_llama.h for its
 * form): checking it, and turning one scripted reply into the body a real
 * llama-server would send.
 */
#ifndef FAKE_REPLY_H
#define FAKE_REPLY_H

#include <stddef.h>

#include <jansson.h>

#include "proto/error.h"

/* 0 if script is an array of well-formed replies; else names index and key. */
int	fake_reply_check_script(const json_t *script, struct bx_error *);

/*
 * The chat.completion object for reply (a generated reply: text,
 * tool_calls or response), answering request_body (its "model" is echoed);
 * n numbers the request, for ids. New reference; NULL when out of memory.
 */
json_t	*fake_reply_build(const json_t *reply, const char *request_body,
	    size_t n);

#endif
