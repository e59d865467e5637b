/*
 * turnrig.h: what the turn tests share: a temporary home, the fake
 * llama-server (with the refusals of a real one, fake_gate.h), a model
 * client, and when asked a fake brokerd behind a BrokerPort; the lines the
 * turn logged; the requests the model was sent.
 *
 * Ownership: rig_down() stops and frees everything rig_up() made.
 * request_messages() and last_content() hand the caller a JSON reference
 * (json_decref it; last_content's string lives as long as *keep).
 */
#ifndef LOOPD_TURNRIG_H
#define LOOPD_TURNRIG_H

#include <jansson.h>

#include "fake_llama.h"
#include "loopd/broker_port.h"
#include "loopd/turn.h"
#include "fake_brokerd.h"
#include "testutil.h"

#define RIG_MAX_LOGGED	8

struct rig {
	char			*home;
	struct fake_llama	*fl;
	struct model_client	*mc;
	struct fbd		*fbd;
	struct bport		*bp;
	struct tool_port	 port;
	struct turn_env		 env;
	char			 logged[RIG_MAX_LOGGED][BX_ERROR_MAX + 128];
	size_t			 nlogged;
	struct tu_events	 deltas;	/* the last run's text_delta */
	const atomic_int	*cancel;	/* the turns' stop; NULL: none */
};

/* What a rig's model side is, beyond the script. */
struct rig_model {
	struct fake_gate	 rm_gate;
	const char		*rm_name;	/* NULL: "m" */
	const char		*rm_key;	/* NULL: none */
	int			 rm_timeout_s;	/* 0: 30 */
	int			 rm_max_tokens;	/* 0: 4096 */
};

/* A rig with script for the model and, when steps is not NULL, a broker. */
void	 rig_up(struct rig *, const char *script, const struct fbd_step *steps,
	    size_t nsteps);
/* As rig_up(), with the model side as model says (NULL: as rig_up). */
void	 rig_up_model(struct rig *, const char *script,
	    const struct rig_model *model, const struct fbd_step *steps,
	    size_t nsteps);
void	 rig_down(struct rig *);
/* The messages of the model's i-th request. */
json_t	*request_messages(struct rig *, size_t i);
/* The last message's content of the i-th request: what loopd just added. */
const char *last_content(struct rig *, size_t i, json_t **keep);
/*
 * One turn of session with text, its events into *ev but for its
 * text_delta events, which go to r->deltas: what a client that ignores
 * them sees, and what it would have shown as they came.
 */
int	 run(struct rig *, const char *session, const char *text,
	    struct tu_events *ev);

#endif
