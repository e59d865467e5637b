/*
 * bridge_posts.c: the approval -> post map and its file (bridge_posts.h).
 * The approvals are kept in an approval_list message, whose items the
 * wire's codec writes and reads for the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bxbridge/bridge_file.h"
#include "bxbridge/bridge_posts.h"
#include "proto/message.h"
#include "proto/message_read.h"
#include "proto/message_write.h"

struct bridge_posts {
	char			*dir;
	struct bx_msg		*list;		/* APPROVAL_LIST */
	struct bridge_post	*entries;	/* in step with list's items */
};

static int
posts_save(struct bridge_posts *bp, struct bx_error *err)
{
	struct bx_approval_list *l = &bp->list->approval_list;
	json_t *o, *posts;
	size_t i;
	int rc = -1;

	if ((o = json_object()) == NULL || (posts = json_array()) == NULL) {
		json_decref(o);
		return bx_fail(err, "out of memory saving the bridge's posts");
	}
	json_object_set_new(o, "posts", posts);
	if (bx_msge_pending(o, "approvals", l->items, l->nitems, err) == -1)
		goto out;
	for (i = 0; i < l->nitems; i++)
		if (json_array_append_new(posts,
		    json_string(bp->entries[i].bp_post)) == -1) {
			bx_fail(err, "out of memory saving the bridge's posts");
			goto out;
		}
	rc = bridge_file_write(bp->dir, BRIDGE_POSTS_FILE, o, 0600, err);
out:
	json_decref(o);
	return rc;
}

/* Fills bp's list and entries from the file's JSON. */
static int
posts_parse(struct bridge_posts *bp, const json_t *o, struct bx_error *err)
{
	struct bx_pending_approval *items = NULL;
	const json_t *posts = json_object_get(o, "posts");
	const char *id;
	size_t i, n = 0;
	int rc = -1;

	if (!json_is_object(o) || !json_is_array(posts))
		return bx_fail(err, "%s/%s is not the bridge's posts: no "
		    "\"posts\" array", bp->dir, BRIDGE_POSTS_FILE);
	if (bx_msgd_pending(o, "approvals", &items, &n, err) == -1) {
		bx_error_prefix(err, "%s/%s", bp->dir, BRIDGE_POSTS_FILE);
		goto out;
	}
	if (json_array_size(posts) != n) {
		bx_fail(err, "%s/%s holds %zu approvals and %zu posts",
		    bp->dir, BRIDGE_POSTS_FILE, n, json_array_size(posts));
		goto out;
	}
	for (i = 0; i < n; i++) {
		id = json_string_value(json_array_get(posts, i));
		if (id == NULL || !bridge_id_valid(id, strlen(id))) {
			bx_fail(err, "%s/%s: posts[%zu] is not a post id",
			    bp->dir, BRIDGE_POSTS_FILE, i);
			goto out;
		}
		if (bridge_posts_add(bp, &items[i], id, err) == -1)
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		bx_pending_approval_clear(&items[i]);
	free(items);
	return rc;
}

int
bridge_posts_load(const char *state_dir, struct bridge_posts **ret,
    struct bx_error *err)
{
	struct bridge_posts *bp;
	json_t *o = NULL;
	int r;

	if ((bp = calloc(1, sizeof(*bp))) == NULL ||
	    (bp->dir = strdup(state_dir)) == NULL ||
	    (bp->list = bx_msg_new(BX_MSG_APPROVAL_LIST)) == NULL) {
		bridge_posts_free(bp);
		return bx_fail(err, "out of memory");
	}
	if ((r = bridge_file_read(state_dir, BRIDGE_POSTS_FILE, &o, err)) ==
	    -1 || (r == 0 && posts_parse(bp, o, err) == -1)) {
		json_decref(o);
		bridge_posts_free(bp);
		return -1;
	}
	json_decref(o);
	*ret = bp;
	return 0;
}

void
bridge_posts_free(struct bridge_posts *bp)
{
	size_t i;

	if (bp == NULL)
		return;
	for (i = 0; bp->list != NULL && i < bp->list->approval_list.nitems;
	    i++) {
		free(bp->entries[i].bp_patch);
		free(bp->entries[i].bp_reason);
	}
	free(bp->entries);
	bx_msg_free(bp->list);
	free(bp->dir);
	free(bp);
}

size_t
bridge_posts_count(const struct bridge_posts *bp)
{
	return bp->list->approval_list.nitems;
}

struct bridge_post *
bridge_posts_at(struct bridge_posts *bp, size_t i)
{
	return &bp->entries[i];
}

struct bridge_post *
bridge_posts_find(struct bridge_posts *bp, uint64_t approval)
{
	size_t i;

	for (i = 0; i < bridge_posts_count(bp); i++)
		if (bp->list->approval_list.items[i].approval == approval)
			return &bp->entries[i];
	return NULL;
}

size_t
bridge_posts_pending(const struct bridge_posts *bp)
{
	size_t i, n = 0;

	for (i = 0; i < bridge_posts_count(bp); i++)
		if (bp->entries[i].bp_patch == NULL)
			n++;
	return n;
}

/* The entries point into the list's items: again after it moved. */
static void
posts_relink(struct bridge_posts *bp)
{
	size_t i;

	for (i = 0; i < bridge_posts_count(bp); i++)
		bp->entries[i].bp_approval = &bp->list->approval_list.items[i];
}

int
bridge_posts_add(struct bridge_posts *bp, const struct bx_pending_approval *pa,
    const char *post, struct bx_error *err)
{
	size_t n = bridge_posts_count(bp);
	struct bridge_post *entries;

	entries = realloc(bp->entries, (n + 1) * sizeof(*entries));
	if (entries == NULL)
		return bx_fail(err, "out of memory");
	bp->entries = entries;
	memset(&entries[n], 0, sizeof(entries[n]));
	snprintf(entries[n].bp_post, sizeof(entries[n].bp_post), "%s", post);
	if (bx_msg_add_pending(bp->list, pa) == -1)
		return bx_fail(err, "out of memory");
	posts_relink(bp);
	return posts_save(bp, err);
}

int
bridge_posts_remove(struct bridge_posts *bp, uint64_t approval,
    struct bx_error *err)
{
	struct bx_approval_list *l = &bp->list->approval_list;
	size_t i;

	for (i = 0; i < l->nitems; i++)
		if (l->items[i].approval == approval)
			break;
	if (i == l->nitems)
		return 0;
	bx_pending_approval_clear(&l->items[i]);
	free(bp->entries[i].bp_patch);
	free(bp->entries[i].bp_reason);
	memmove(&l->items[i], &l->items[i + 1],
	    (l->nitems - i - 1) * sizeof(l->items[0]));
	memmove(&bp->entries[i], &bp->entries[i + 1],
	    (l->nitems - i - 1) * sizeof(bp->entries[0]));
	l->nitems--;
	posts_relink(bp);
	return posts_save(bp, err);
}

int
bridge_post_set(char **field, const char *text)
{
	char *copy = NULL;

	if (text != NULL && (copy = strdup(text)) == NULL)
		return -1;
	free(*field);
	*field = copy;
	return 0;
}
