/*
 * bridge_state.c: the state file `bxctl status` reads (bridge_state.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bxbridge/bridge_file.h"
#include "bxbridge/bridge_state.h"

void
bridge_state_init(struct bridge_state *st, pid_t pid)
{
	memset(st, 0, sizeof(*st));
	st->bs_pid = pid;
	st->bs_started = time(NULL);
	st->bs_mm = BRIDGE_MM_CONNECTING;
}

void
bridge_state_error(struct bridge_state *st, const char *message)
{
	snprintf(st->bs_last_error, sizeof(st->bs_last_error), "%s", message);
	st->bs_last_error_at = time(NULL);
}

const char *
bridge_state_mm_name(enum bridge_mm_state s)
{
	switch (s) {
	case BRIDGE_MM_CONNECTING:	return "connecting";
	case BRIDGE_MM_CONNECTED:	return "connected";
	case BRIDGE_MM_UNREACHABLE:	return "unreachable";
	case BRIDGE_MM_TOKEN_REFUSED:	return "token-refused";
	case BRIDGE_MM_RATE_LIMITED:	return "rate-limited";
	case BRIDGE_MM_NOT_FOUND:	return "not-found";
	}
	return "unreachable";
}

const char *
bridge_state_runbook(const struct bridge_state *st)
{
	/* The server's trouble first: brokerd's is the terminal's too. */
	switch (st->bs_mm) {
	case BRIDGE_MM_TOKEN_REFUSED:	return BRIDGE_RUNBOOK_TOKEN;
	case BRIDGE_MM_UNREACHABLE:	return BRIDGE_RUNBOOK_MM;
	case BRIDGE_MM_RATE_LIMITED:	return BRIDGE_RUNBOOK_RATE;
	case BRIDGE_MM_NOT_FOUND:	return BRIDGE_RUNBOOK_OWNER;
	case BRIDGE_MM_CONNECTING:
	case BRIDGE_MM_CONNECTED:
		break;
	}
	if (!st->bs_broker_up)
		return BRIDGE_RUNBOOK_BROKER;
	return NULL;
}

static json_t *
string_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

/* The last error as JSON; a server's words that are not UTF-8 are said so. */
static json_t *
last_error(const struct bridge_state *st)
{
	json_t *s;

	if (st->bs_last_error[0] == '\0')
		return json_null();
	if ((s = json_string(st->bs_last_error)) != NULL)
		return s;
	return json_string("an error whose text is not UTF-8 (the "
	    "server's words?)");
}

int
bridge_state_write(const struct bridge_state *st, const char *state_dir,
    struct bx_error *err)
{
	bool has_error = st->bs_last_error[0] != '\0';
	json_t *o;
	int rc;

	o = json_pack("{s:I, s:I, s:I, s:s, s:s, s:o, s:o, s:o, s:I}",
	    "pid", (json_int_t)st->bs_pid,
	    "started", (json_int_t)st->bs_started,
	    "updated", (json_int_t)time(NULL),
	    "mattermost", bridge_state_mm_name(st->bs_mm),
	    "broker", st->bs_broker_up ? "connected" : "unreachable",
	    "last_error", last_error(st),
	    "last_error_at", has_error ?
	    json_integer((json_int_t)st->bs_last_error_at) : json_null(),
	    "runbook", string_or_null(bridge_state_runbook(st)),
	    "pending_posts", (json_int_t)st->bs_pending_posts);
	if (o == NULL)
		return bx_fail(err, "out of memory writing the bridge's state");
	rc = bridge_file_write(state_dir, BRIDGE_STATE_FILE, o, 0644, err);
	json_decref(o);
	return rc;
}
