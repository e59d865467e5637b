/*
 * mm_types.c: the id check and the destructors of mm_types.h.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_types.h"

bool
mm_id_valid(const char *id)
{
	size_t i;

	if (id == NULL)
		return false;
	for (i = 0; i < MM_ID_LEN; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') ||
		    (id[i] >= '0' && id[i] <= '9')))
			return false;
	return id[MM_ID_LEN] == '\0';
}

void
mm_post_clear(struct mm_post *p)
{
	if (p == NULL)
		return;
	free(p->message);
	memset(p, 0, sizeof(*p));
}
