/*
 * peercred.c: a connection's peer uid from SO_PEERCRED, and the rules and
 * seen sets of peercred.h.
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/peercred.h"

void
bx_peer_rule_init(struct bx_peer_rule *rule, const char *socket)
{
	memset(rule, 0, sizeof(*rule));
	rule->pr_socket = socket;
}

int
bx_peer_rule_add(struct bx_peer_rule *rule, uid_t uid, struct bx_error *err)
{
	if (bx_peer_rule_allows(rule, uid))
		return 0;
	if (rule->pr_nuid == BX_PEER_RULE_MAX)
		return bx_fail(err, "%s can serve at most %d uids",
		    rule->pr_socket, BX_PEER_RULE_MAX);
	rule->pr_uid[rule->pr_nuid++] = uid;
	return 0;
}

bool
bx_peer_rule_allows(const struct bx_peer_rule *rule, uid_t uid)
{
	size_t i;

	for (i = 0; i < rule->pr_nuid; i++)
		if (rule->pr_uid[i] == uid)
			return true;
	return false;
}

int
bx_peer_uid(int fd, uid_t *ret, struct bx_error *err)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1)
		return bx_fail(err, "SO_PEERCRED: %s", strerror(errno));
	if (len != sizeof(cred))
		return bx_fail(err, "SO_PEERCRED: a short answer");
	*ret = cred.uid;
	return 0;
}

/* "uid 0", "uids 1000 and 0", "uids 1000, 4242 and 0", "no uid". */
static void
uid_list(const struct bx_peer_rule *rule, char *buf, size_t size)
{
	size_t i, used;

	if (rule->pr_nuid == 0) {
		snprintf(buf, size, "no uid");
		return;
	}
	used = (size_t)snprintf(buf, size, "%s", rule->pr_nuid == 1 ? "uid" :
	    "uids");
	for (i = 0; i < rule->pr_nuid && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%u",
		    i == 0 ? " " : i + 1 == rule->pr_nuid ? " and " : ", ",
		    (unsigned)rule->pr_uid[i]);
}

int
bx_peer_check(int fd, const struct bx_peer_rule *rule, uid_t *ret_uid,
    struct bx_error *err)
{
	struct bx_error why;
	char uids[128];
	uid_t uid;

	if (bx_peer_uid(fd, &uid, &why) == -1) {
		*ret_uid = BX_PEER_UID_UNKNOWN;
		return bx_fail(err, "refused a connection on %s: the kernel "
		    "would not say whose it is (%s); %s", rule->pr_socket,
		    why.msg, BX_PEER_RUNBOOK);
	}
	*ret_uid = uid;
	if (bx_peer_rule_allows(rule, uid))
		return 0;
	uid_list(rule, uids, sizeof(uids));
	return bx_fail(err, "refused a connection on %s from uid %u: %s "
	    "serves only %s; %s", rule->pr_socket, (unsigned)uid,
	    rule->pr_socket, uids, BX_PEER_RUNBOOK);
}

bool
bx_peer_seen_first(struct bx_peer_seen *seen, uid_t uid)
{
	size_t i;

	for (i = 0; i < seen->ps_nuid; i++)
		if (seen->ps_uid[i] == uid)
			return false;
	if (seen->ps_nuid == BX_PEER_SEEN_MAX)
		return false;
	seen->ps_uid[seen->ps_nuid++] = uid;
	return true;
}
