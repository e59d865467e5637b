/*
 * mm_types.c: the id check and the destructors of mm_types.h.
 */
#include <stdlib.h>
#include <string.h>

#include "bxbridge/ids.h"
#include "mm_types.h"

/* A C string that is an id: the form is ids.c's, one check for both. */
bool
mm_id_valid(const char *id)
{
	return id != NULL && bridge_id_valid(id, strlen(id));
}

void
mm_post_clear(struct mm_post *p)
{
	if (p == NULL)
		return;
	free(p->message);
	memset(p, 0, sizeof(*p));
}
