/*
 * cases.h: the groups of test-bxegress. The cases that need no name
 * resolved are in test-bxegress.c; those that resolve names and connect
 * are in cases-net.c and run only inside tests/egress/testnet.sh.
 */
#ifndef BXE_TEST_CASES_H
#define BXE_TEST_CASES_H

/* cases-net.c: fails, never skips, outside the test network. */
int	net_cases(void);

#endif
