/*
 * model-reply-fuzzer.c: libFuzzer harness for loopd's reading of the
 * model server's reply (model_reply_parse, src/loopd/model_reply.c). The
 * input is a chat.completion body: whatever the server sends, shaped by
 * every injected text the model has read.
 *
 * What must hold, or the harness aborts:
 * - a parsed reply has at most MODEL_MAX_CALLS calls, each with a
 *   non-empty name;
 * - mc_arguments is always one JSON object, as the strict parser every
 *   later reader uses takes it (bx_json_parse: duplicates refused, depth
 *   at most BX_JSON_MAX_DEPTH), and its compact form;
 * - arguments kept aside in mc_invalid leave "{}" in mc_arguments;
 * - a refused body leaves *ret alone and says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "loopd/model.h"
#include "proto/json.h"
#include "fuzz.h"

/* Far below MODEL_MAX_RESPONSE; libFuzzer's inputs are smaller still. */
#define FUZZ_INPUT_MAX	(256 * 1024)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_call(const struct model_call *mc)
{
	json_t *obj;
	char *again;

	check(mc->mc_name != NULL && mc->mc_name[0] != '\0');
	check(mc->mc_arguments != NULL);
	check(bx_json_parse(mc->mc_arguments, strlen(mc->mc_arguments), &obj,
	    NULL) == 0);
	again = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	check(again != NULL && strcmp(again, mc->mc_arguments) == 0);
	free(again);
	json_decref(obj);
	if (mc->mc_invalid != NULL)
		check(strcmp(mc->mc_arguments, "{}") == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_reply *r = (struct model_reply *)&r;
	struct bx_error err = { "" };
	size_t i;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	if (model_reply_parse((const char *)data, size, &r, &err) == -1) {
		check(r == (struct model_reply *)&r && err.msg[0] != '\0');
		return 0;
	}
	check(r->mr_ncalls <= MODEL_MAX_CALLS);
	check(r->mr_ncalls == 0 || r->mr_calls != NULL);
	for (i = 0; i < r->mr_ncalls; i++)
		check_call(&r->mr_calls[i]);
	model_reply_free(r);
	return 0;
}
