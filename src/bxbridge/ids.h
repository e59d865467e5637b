/*
 * ids.h: Mattermost's ids (users, posts, channels) as the bridge accepts
 * them: exactly BRIDGE_ID_LEN characters of [a-z0-9] (Mattermost's form), so
 * that an id from bxbridge.toml or from the server is never anything that
 * could change the meaning of a URL path or of a message it is shown in;
 * and the one bound on a thread that the client (mm.h) and the answer
 * reader (answer.h) both keep.
 *
 * Nothing here allocates.
 */
#ifndef BXBRIDGE_IDS_H
#define BXBRIDGE_IDS_H

#include <stdbool.h>
#include <stddef.h>

#define BRIDGE_ID_LEN	26
/* The most posts of a thread the bridge reads, asks for and judges. */
#define BRIDGE_THREAD_MAX	200

/* Whether s[0..len) is an id of that form. */
bool	bridge_id_valid(const char *s, size_t len);

#endif
