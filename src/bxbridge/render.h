/*
 * render.h: the messages bxbridge posts in the owner's Mattermost DM
 * (spec section 3.2): the request for one pending approval, and the text
 * the post is patched to once the approval is decided.
 *
 * The pending approval is brokerd's listing of it (struct
 * bx_pending_approval, proto/message_types.h), as the bridge socket
 * hands it over. Everything in it but the approval number may carry the
 * model's text (the tool's name is as the model wrote it), so all of it
 * is data: it goes inside one fenced code block, whose backtick fence is
 * longer than any run of backticks inside, and is escaped by
 * proto/escape.h (line breaks in the arguments kept, each line escaped),
 * so that nothing in it formats, links, mentions (@channel, @all, @here,
 * @user) or hides text. A refusal's reason gets a block of its own.
 * Only the bridge's own words and numbers are outside the blocks.
 *
 * A post stays under RENDER_POST_MAX bytes (so characters), well under
 * Mattermost's 16,383: the arguments are shown to at most
 * RENDER_ARGS_MAX escaped bytes, and fewer when backtick runs make the
 * fences long; a cut is said outside the block. The other fields are cut
 * to RENDER_FIELD_MAX bytes each ("..." at the end), a reason to
 * RENDER_REASON_MAX.
 *
 * Ownership: each function returns a malloc'd string in *ret, which the
 * caller frees; the inputs stay the caller's.
 */
#ifndef BXBRIDGE_RENDER_H
#define BXBRIDGE_RENDER_H

#include "proto/error.h"
#include "proto/message_types.h"

/* Mattermost refuses a message of more than 16,383 characters. */
#define RENDER_POST_MAX		12000
#define RENDER_ARGS_MAX		8000
#define RENDER_FIELD_MAX	256
#define RENDER_REASON_MAX	2000

/* How an approval ended, as the patched post shows it. */
enum render_result {
	RENDER_APPROVED,
	RENDER_REFUSED,
	RENDER_EXPIRED,
	/*
	 * No longer pending, and the bridge did not answer it: answered at
	 * the terminal, or the call ended.
	 */
	RENDER_GONE,
};

/* Where an approval or refusal came from. */
enum render_where {
	RENDER_MATTERMOST,	/* the owner's reaction or reply */
	RENDER_TERMINAL,	/* bxctl */
};

struct render_outcome {
	enum render_result	 ro_result;
	enum render_where	 ro_where;	/* APPROVED, REFUSED */
	const char		*ro_reason;	/* REFUSED: or NULL */
	/*
	 * APPROVED: brokerd's decision on the call when re-decided at
	 * approval (approve_result), or NULL when not known.
	 */
	const struct bx_outcome	*ro_decision;
};

/* The request post for pa. */
int	render_request(const struct bx_pending_approval *pa, char **ret,
	    struct bx_error *err);

/* The patched post for pa, decided as o says. */
int	render_outcome(const struct bx_pending_approval *pa,
	    const struct render_outcome *o, char **ret, struct bx_error *err);

#endif
