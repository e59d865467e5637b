/*
 * check.c: `bxbridge check`'s calls and their failures (check.h).
 */
#include <stdio.h>
#include <string.h>

#include "bxbridge/bridge_state.h"
#include "bxbridge/check.h"
#include "mm.h"

/* What a failed call means, as state.json says it. */
struct failure {
	const char	*f_word;
	const char	*f_runbook;	/* the entry: what the owner fixes */
};

static struct failure
failure_of(int status, const char *step)
{
	switch (status) {
	case MM_TOKEN_REFUSED:
		return (struct failure){ "token-refused",
		    BRIDGE_RUNBOOK_TOKEN };
	case MM_RATE_LIMITED:
		return (struct failure){ "rate-limited", BRIDGE_RUNBOOK_RATE };
	case MM_UNREACHABLE:
		return (struct failure){ "unreachable", BRIDGE_RUNBOOK_MM };
	default:
		/* The owner or the DM refused: the id is wrong, or deleted. */
		if (strcmp(step, "users/{owner}") == 0 ||
		    strcmp(step, "channels/direct") == 0)
			return (struct failure){ "not-found",
			    BRIDGE_RUNBOOK_OWNER };
		return (struct failure){ "refused", BRIDGE_RUNBOOK_MM };
	}
}

/* "WORD: STEP failed: what happened; see the entry", WORD first. */
static int
failed(int status, const char *step, struct bx_error *err)
{
	struct failure f = failure_of(status, step);
	char said[BX_ERROR_MAX];

	snprintf(said, sizeof(said), "%s", err->msg);
	return bx_fail(err, "%s: %s failed: %s; see %s", f.f_word, step, said,
	    f.f_runbook);
}

static int
run(struct mm_client *mm, const struct bridge_config *cfg,
    struct bridge_check_result *r, struct bx_error *err)
{
	struct mm_post post;
	int s;

	if ((s = mm_users_me(mm, &r->bc_bot, err)) != MM_OK)
		return failed(s, "users/me", err);
	if ((s = mm_user_get(mm, cfg->bc_owner, &r->bc_owner, err)) != MM_OK)
		return failed(s, "users/{owner}", err);
	if (r->bc_owner.deleted)
		return bx_fail(err, "not-found: users/{owner}: the owner %s "
		    "(@%s) is deactivated; see " BRIDGE_RUNBOOK_OWNER,
		    cfg->bc_owner, r->bc_owner.username);
	if ((s = mm_direct_channel(mm, r->bc_bot.id, cfg->bc_owner,
	    r->bc_dm, err)) != MM_OK)
		return failed(s, "channels/direct", err);
	memset(&post, 0, sizeof(post));
	if ((s = mm_post_create(mm, r->bc_dm, BRIDGE_CHECK_MESSAGE, NULL,
	    &post, err)) != MM_OK)
		return failed(s, "posts (the test post)", err);
	memcpy(r->bc_post, post.id, sizeof(r->bc_post));
	mm_post_clear(&post);
	if ((s = mm_post_delete(mm, r->bc_post, err)) != MM_OK)
		return failed(s, "DELETE posts/{id} (the test post stays in "
		    "the DM)", err);
	return 0;
}

int
bridge_check(const struct bridge_config *cfg, const char *token,
    const char *mm_socket, struct bridge_check_result *ret,
    struct bx_error *err)
{
	struct mm_http_opts opts;
	struct bridge_check_result r;
	struct mm_client *mm;
	int rc;

	memset(&opts, 0, sizeof(opts));
	opts.url = cfg->bc_url;
	opts.token = token;
	opts.token_len = strlen(token);
	opts.ca_file = cfg->bc_ca_file;
	opts.unix_socket = mm_socket;
	if (mm_client_new(&opts, &mm, err) == -1)
		return -1;
	memset(&r, 0, sizeof(r));
	rc = run(mm, cfg, &r, err);
	mm_client_free(mm);
	if (rc == 0)
		*ret = r;
	return rc;
}
