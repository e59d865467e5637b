/*
 * sandbox-calls.h: the cases of test-sandbox about a call's life
 * (test-sandbox-calls.c), run by test-sandbox's main with sb_setup and
 * sb_teardown.
 */
#ifndef RH_SANDBOX_CALLS_H
#define RH_SANDBOX_CALLS_H

void	test_limits(void **state);
void	test_caller_hangs_up(void **state);
void	test_brokerd_killed_mid_call(void **state);
void	test_max_running_holds(void **state);

#endif
