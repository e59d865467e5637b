/*
 * ids.c: the form of a Mattermost id (see ids.h).
 */
#include "bxbridge/ids.h"

bool
bridge_id_valid(const char *s, size_t len)
{
	size_t i;

	if (len != BRIDGE_ID_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}
