/*
 * state.h: each session's taint and untrusted flag (design section 4), kept
 * in <home>/broker/sessions/<id>.json as {"taint":"private","untrusted":false},
 * and the per-session hold that serializes a session's calls from decision to
 * Result record (baseline section 6).
 *
 * A session with no file is at private, trusted. A file that exists but
 * cannot be read or parsed is an error: the caller denies every call of that
 * session with state_unreadable. Writes are atomic: <id>.json.tmp, fsync,
 * rename over <id>.json, fsync the directory.
 *
 * state_open allocates the store; state_close frees it (NULL is allowed).
 * Every function is safe to call from several threads.
 */
#ifndef BROKERD_STATE_H
#define BROKERD_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"
#include "proto/types.h"

/* A state file larger than this is damaged: the real one is 40 bytes. */
#define STATE_FILE_MAX	4096

/* The runbook entry every state_unreadable message points at. */
#define STATE_RUNBOOK	"see docs/runbook.md#broker-state-damaged"

struct state_value {
	enum bx_class	taint;
	bool		untrusted;
};

/*
 * The seam through which every state file is written, so tests can make it
 * fail. write puts len bytes at buf into the file name inside the directory
 * dir, atomically; it returns 0 or -1 and fills err.
 */
struct state_writer {
	int	(*write)(void *ctx, const char *dir, const char *name,
		    const void *buf, size_t len, struct bx_error *err);
	void	*ctx;
};

struct state_store;

/* Opens <home>/broker/sessions, creating missing directories with mode 0700. */
struct state_store	*state_open(const char *home, struct bx_error *);
void			 state_close(struct state_store *);

/* Replaces the writer (the default is state_write_atomic); NULL restores it. */
void	state_set_writer(struct state_store *, const struct state_writer *);

/* The default writer: tmp file, fsync, rename, fsync of the directory. */
int	state_write_atomic(void *ctx, const char *dir, const char *name,
	    const void *buf, size_t len, struct bx_error *);

/*
 * Reads the session's state; a missing file gives private, trusted. Fails if
 * the id is not a SessionId or the file cannot be read or parsed; the message
 * names the file.
 */
int	state_read(struct state_store *, const char *session,
	    struct state_value *ret, struct bx_error *);

/*
 * Calls fn with the id of each session that has a state file, in no
 * order; names that are not <SessionId>.json (a .tmp left by a crash) are
 * passed over. Fails only if the directory cannot be read.
 */
int	state_each(struct state_store *, void (*fn)(void *ctx,
	    const char *session), void *ctx, struct bx_error *);

/* Writes the session's state through the writer. */
int	state_write(struct state_store *, const char *session,
	    const struct state_value *, struct bx_error *);

/*
 * Writes after, the session's state after a result, through the writer,
 * unless it equals before, the state read for the decision under the same
 * hold: what is on disk is then already after (a missing file reads as
 * private and trusted), and a write and three syncs would change nothing.
 */
int	state_store_changed(struct state_store *, const char *session,
	    const struct state_value *before, const struct state_value *after,
	    struct bx_error *);

/* The state after a result: taint the higher of the two, untrusted sticky. */
struct state_value	state_raise(struct state_value, enum bx_class,
			    bool untrusted);

/*
 * A hold on one session, owned by the caller (usually inside its call's
 * context) so holding never allocates. Its fields are the store's.
 */
struct state_hold {
	char			 sh_session[BX_ID_MAX + 1];
	bool			 sh_held;
	struct state_hold	*sh_next;
};

/*
 * Holds the session for one call: waits while another call holds it.
 * state_release lets the next one in and accepts a hold that is not held;
 * it may run on another thread than state_hold did.
 */
void	state_hold(struct state_store *, struct state_hold *,
	    const char *session);
void	state_release(struct state_store *, struct state_hold *);

#endif
