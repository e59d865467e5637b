/*
 * selftest.h: loopd's startup self-test (baseline.md section 7). It proves
 * that every DenyReason has its text for the model, that every tool's
 * argument schema is valid JSON (an object), and that the home is
 * writable (it creates <home>/sessions and <home>/memory, 0700, if
 * missing, and writes, syncs and removes a probe file in sessions/).
 * A failure names the check and ends with the runbook pointer.
 * Nothing here allocates.
 */
#ifndef LOOPD_SELFTEST_H
#define LOOPD_SELFTEST_H

#include "proto/error.h"

int	selftest_run(const char *home, struct bx_error *err);

/* The three checks, for tests. */
int	selftest_denials(struct bx_error *err);
int	selftest_schemas(struct bx_error *err);
int	selftest_home(const char *home, struct bx_error *err);

#endif
