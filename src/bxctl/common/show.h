/*
 * show.h: how bxctl prints a pending approval, the same two lines in
 * `bxctl approvals` and in `bxctl chat`:
 *
 *	41  2 min ago  expires in 13 min  session chat-1758…  grant g  taint private
 *	    shell {"command": "rm -rf /home/kyle/scratch/build", ...}
 *
 * Durations are whole units rounded down (so "expires in 13 min" never
 * promises time that is not there): under a minute "N s", under an hour
 * "N min", under two days "N h", then "N d". An age below zero (clocks
 * apart) is "0 s"; an approval whose expiry has passed says "expired",
 * and one whose expiry is 0 (not known) says nothing of it.
 * A session id longer than SHOW_SESSION_MAX characters is shown as its
 * first SHOW_SESSION_MAX - 1 characters and "…". The tool and arguments
 * are printed as data (escape.h), as is every string from the peer.
 *
 * And where an approval's answer came from, the same in `bxctl log` and
 * `bxctl approvals --follow`.
 *
 * Nothing here allocates; buffers are the caller's.
 */
#ifndef BXCTL_SHOW_H
#define BXCTL_SHOW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/audit_record.h"
#include "proto/message.h"

/* Longest session id shown whole; longer ones are cut to 9 and "…". */
#define SHOW_SESSION_MAX	10
/* Room for any duration from show_duration(). */
#define SHOW_DURATION_MAX	32

/* ms as "N s", "N min", "N h" or "N d", rounded down; below 0 is "0 s". */
void	show_duration(int64_t ms, char *buf);

/*
 * The shortened session id (SHOW_SESSION_MAX bytes of it at most, plus
 * "…"), escaped, into buf of size bytes.
 */
void	show_session(const char *id, char *buf, size_t size);

/* Prints the two lines for pa at time now (ms); 0, or -1 if a write failed. */
int	show_approval(FILE *, const struct bx_pending_approval *pa,
	    int64_t now);

/*
 * Where an Approval record's answer came from, for after its answer word:
 * "at the terminal" (by "bxctl"), "in Mattermost by USER (post POST)" (an
 * answer from the bridge), "by WHO" for any other answerer, and "" when no
 * one answered (an expiry). Into buf of size bytes, not escaped: the
 * caller prints it as data.
 */
void	show_answered_where(const struct bx_ev_approval *a, char *buf,
	    size_t size);

/* Now, as milliseconds since the epoch (the wall clock). */
int64_t	show_now(void);

#endif
