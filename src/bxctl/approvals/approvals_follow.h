/*
 * approvals_follow.h: `bxctl approvals --follow`, each approval as it
 * starts to wait and again when it is answered or expires, until
 * interrupted: for a second terminal, or a notifier reading the lines.
 *
 * It follows the audit log (audit_follow.h), not admin.sock: the log's
 * Decision of an ask and its Approval record say, in order and without a
 * miss, what waits and what became of it, as brokerd wrote it; brokerd is
 * asked only for what the log does not hold (when an approval expires)
 * and, at the start, for what already waits.
 */
#ifndef BXCTL_APPROVALS_FOLLOW_H
#define BXCTL_APPROVALS_FOLLOW_H

#include <stdbool.h>

/*
 * Follows home's audit log, asking brokerd on admin (a socket path);
 * json: a JSON object per line. Returns only when the chain breaks, the
 * log cannot be read, or output fails: the exit status.
 */
int	approvals_follow(const char *home, const char *admin, bool json);

#endif
