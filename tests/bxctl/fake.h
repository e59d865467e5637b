/*
 * fake.h: a fake brokerd admin socket and a fake loopd for bxctl's tests,
 * each a thread serving a Unix socket the test chose (in its temp dir).
 * They send whatever bytes the test scripted, hostile ones included, and
 * record every frame bxctl sent, byte for byte.
 *
 * The admin fake answers one frame per connection: the line scripted for
 * the request's kind, or an error frame if none was. The loop fake answers
 * each chat frame with its script, one connection per turn; a script line
 * "@wait" holds the turn until the admin fake has received an approve or
 * refuse, after which lines starting "@approved " or "@refused " are sent
 * (without the prefix) only for that answer. "@gate" holds the turn until
 * the test has called fake_loop_release() once more (the n-th gate of a
 * turn waits for the n-th release); "@hangup" waits for bxctl to close
 * the connection, records the line "@closed" when it does, and ends the
 * turn.
 *
 * Ownership: fake_*_start() allocate; fake_stop() stops the thread, closes
 * the socket and frees everything (NULL is fine). Lines returned by
 * fake_received() stay valid until fake_stop(). Failures abort the test
 * (these are test helpers).
 */
#ifndef BXCTL_TEST_FAKE_H
#define BXCTL_TEST_FAKE_H

#include <stddef.h>

struct fake;

struct fake	*fake_admin_start(const char *path);
/* The line (no newline) answered to requests of kind; NULL: close unanswered. */
void		 fake_admin_reply(struct fake *, const char *kind,
		    const char *line);

/* admin may be NULL if the script has no "@wait". */
struct fake	*fake_loop_start(const char *path, struct fake *admin);
/* Appends a line (no newline) to the script sent for every chat frame. */
void		 fake_loop_script(struct fake *, const char *line);
/* Opens the next "@gate". */
void		 fake_loop_release(struct fake *);

/* Frames received so far, and the i-th of them (NUL-terminated, no newline). */
size_t		 fake_count(struct fake *);
const char	*fake_received(struct fake *, size_t i);

void		 fake_stop(struct fake *);

/*
 * An admin fake and a loop fake on admin.sock and loop.sock in a new temp
 * directory, for tests that run bxctl against both: as cmocka setup and
 * teardown, the pair is *state.
 */
struct fake_pair {
	char		*dir;
	char		 admin_sock[512];
	char		 loop_sock[512];
	struct fake	*admin;
	struct fake	*loop;
};

int		 fake_pair_setup(void **state);
int		 fake_pair_teardown(void **state);

#endif
