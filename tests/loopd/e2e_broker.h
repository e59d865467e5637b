/*
 * e2e_broker.h: brokerd in-process for loopd's end-to-end test: the real
 * libbrokerd (audit writer, state store, approvals, broker, serve) over
 * real broker.sock and admin.sock in a test home, with the recording
 * runtime of tests/brokerd. Kept apart from the test so that brokerd's
 * headers and loopd's never meet in one file.
 *
 * Ownership: e2e_broker_start() allocates and starts the serving thread;
 * e2e_broker_stop() stops it and frees everything (NULL allowed).
 */
#ifndef E2E_BROKER_H
#define E2E_BROKER_H

#include <stddef.h>

struct e2e_broker;

/* Serves with the grants in <home>/grants; aborts the test if it cannot. */
struct e2e_broker	*e2e_broker_start(const char *home);
void			 e2e_broker_stop(struct e2e_broker *);
const char		*e2e_broker_socket(const struct e2e_broker *);
/* How many calls reached the runtime. */
size_t			 e2e_broker_runs(struct e2e_broker *);

#endif
