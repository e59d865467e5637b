/*
 * secret_call.h: what one http_fetch call takes from the secret its grant
 * names (docs/design.md, "Secrets"). Opened after the decision (and the
 * owner's approval) and before the sandbox starts: the secret's file is
 * read now, so that a change applies to the next call, and the URL's host
 * must be one of the secret's hosts. It gives the runner the header line
 * bxtool hands to curl through a pipe, and the redactor that takes every
 * echo of the secret out of what the call returns.
 *
 * A failure's message is the call's: "the secret NAME cannot be used:
 * WHY; see docs/runbook.md#secret-unavailable". No message holds the
 * value or anything made from it.
 *
 * Ownership: secret_call_open() allocates *ret; secret_call_free() (NULL
 * is allowed) overwrites the header line before freeing it. The strings
 * and the redactor returned belong to it.
 */
#ifndef BROKERD_SECRET_CALL_H
#define BROKERD_SECRET_CALL_H

#include "proto/error.h"
#include "proto/redact.h"

#define SECRET_CALL_RUNBOOK	"see docs/runbook.md#secret-unavailable"

struct secret_call;

/*
 * Reads config_dir/secrets/<name>.toml and checks that host is one of its
 * hosts. -1 with err holding the call's failure message.
 */
int	secret_call_open(const char *config_dir, const char *name,
	    const char *host, struct secret_call **ret, struct bx_error *err);
void	secret_call_free(struct secret_call *);

const char			*secret_call_name(const struct secret_call *);
/* "Name: value\n", what bxtool reads from its --secret-fd. */
const char			*secret_call_header(const struct secret_call *);
const struct bx_redactor	*secret_call_redactor(
				    const struct secret_call *);

#endif
