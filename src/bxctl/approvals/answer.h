/*
 * answer.h: the owner's answer to one pending approval, sent on brokerd's
 * admin socket and reported in one line on fp: "approved 41: runs",
 * "approved 41: denied (no_grant)" or "refused 41". Used by `bxctl
 * approve`, `bxctl refuse` and the approval prompt of `bxctl chat`.
 *
 * Each returns the exit status (cli.h): CLI_OK, or CLI_FAIL after printing
 * why on stderr. Nothing is allocated that outlives the call.
 */
#ifndef BXCTL_ANSWER_H
#define BXCTL_ANSWER_H

#include <stdint.h>
#include <stdio.h>

int	answer_approve(const char *admin_path, uint64_t id, FILE *fp);
/*
 * Approves id and leaves a grant for the same call for for_ms
 * (approve_for.h), in the grants directory of brokerd.toml at config
 * (NULL: brokerd's default): "approved 41: runs; grant
 * approved-read-file-41 lets the same call through until ...".
 */
int	answer_approve_for(const char *admin_path, const char *config,
	    uint64_t id, int64_t for_ms, FILE *fp);
/* reason may be NULL (sent as null). */
int	answer_refuse(const char *admin_path, uint64_t id, const char *reason,
	    FILE *fp);

#endif
