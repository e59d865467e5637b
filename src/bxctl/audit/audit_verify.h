/*
 * audit_verify.h: `bxctl audit verify [--home PATH] [--anchor SEQ:HASH]...
 * [--anchors FILE]`, which reads every
 * <home>/audit/NAME.jsonl in name order itself (no daemon) and runs the
 * ChainVerifier over it. Output on stdout:
 *
 *	audit: ok, <n> records, head <hex>
 *	recovered: <file>:<line>: ...		one line per recovery,
 *	accepted break: <file>:<line>: ...	accepted break,
 *	abandoned: decision <seq> ...		abandoned approval,
 *	clock warning: <file>:<line>: ...	clock warning,
 *	torn tail: <file>:<line>: ...		and a torn tail
 *
 * or the first failure as `<file>:<line>: <what>` and exit status 1; then
 * one line per anchor (anchors.h):
 *
 *	anchor <seq>:<hex>: ok (<file>:<line>)
 *	anchor <seq>:<hex>: failed: <why>	and exit status 1
 */
#ifndef BXCTL_AUDIT_VERIFY_H
#define BXCTL_AUDIT_VERIFY_H

#include "bxctl/common/cli.h"

int	cmd_audit_verify(const struct cli_command *, int argc, char **argv);

#endif
