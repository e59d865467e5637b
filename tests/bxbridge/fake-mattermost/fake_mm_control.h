/*
 * fake_mm_control.h: the fake Mattermost server's scripting over HTTP,
 * for tests that run it as a program (main.c): requests under /fake/,
 * taken without a token and never logged.
 *
 *	POST /fake/user  {"id", "username", "is_bot"}
 *	POST /fake/react {"user_id", "post_id", "emoji_name"}
 *	POST /fake/reply {"user_id", "root_id", "message", "props", "type"}
 *	                 (props and type optional) -> 201 and the post
 *	POST /fake/fail  {"kind": "rate" | "401" | "403" | "500" |
 *	                 "400_garbled" | "hangup" | "huge" | "huge_unsized",
 *	                 "count", "reset"}
 *	GET  /fake/posts -> {"dm", "posts": {id: Post}} (live posts)
 *
 * Bad requests get 400 with a Mattermost error body saying what.
 */
#ifndef FAKE_MM_CONTROL_H
#define FAKE_MM_CONTROL_H

#include "fake_mm_state.h"

void	fake_mm_control(struct fm_state *, const char *method,
	    const char *path, const char *body, struct fm_answer *);

#endif
