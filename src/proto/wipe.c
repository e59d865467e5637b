/*
 * wipe.c: freeing what held a secret (see wipe.h).
 */
#include <stdlib.h>
#include <string.h>

#include "proto/wipe.h"

void
bx_wipe_free(void *p, size_t len)
{
	if (p == NULL)
		return;
	explicit_bzero(p, len);
	free(p);
}
