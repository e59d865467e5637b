/*
 * message_console.h: constructors of the owner's console's kinds
 * (message_console.c), and the GrantProblem lists grants_report,
 * explanation and grant_list share. Each returns a new message, or NULL if
 * memory ran out; the add functions return 0, or -1 when it ran out.
 *
 * Ownership as in message.h: each copies what it is given into the
 * message, which the caller frees with bx_msg_free.
 */
#ifndef BX_MESSAGE_CONSOLE_H
#define BX_MESSAGE_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/message_types.h"

/*
 * The console's kinds (message_console.c). Their lists start empty; the
 * add functions append a copy of what they are given.
 */
struct bx_msg	*bx_msg_explain(const char *session, const char *tool,
		    const char *arguments);
struct bx_msg	*bx_msg_broker_status(const char *version,
		    const char *runtime, int64_t started, int64_t now);
int	bx_msg_add_session(struct bx_msg *session_list,
	    const struct bx_session_info *);
int	bx_msg_add_candidate(struct bx_msg *explanation,
	    const struct bx_candidate *);
int	bx_msg_add_grant(struct bx_msg *grant_list,
	    const struct bx_grant_info *);
/* Copies what the explanation's fixed fields and grant point at. */
int	bx_msg_set_explanation(struct bx_msg *explanation,
	    const struct bx_explanation *);

/*
 * Appends a copy to a grants_report's problems; also fills an
 * explanation's or a grant_list's.
 */
int	bx_msg_add_problem(struct bx_msg *grants_report, const char *file,
	    bool has_line, uint64_t line, const char *problem);

#endif
