/*
 * main.c: bxegress's entry (bxegress.h has the whole program's story):
 * the command line, the setup, then the loop until SIGTERM or SIGINT.
 */
#include <unistd.h>

#include "bxegress/bxegress.h"

int
main(int argc, char *argv[])
{
	/* Static: the connections' buffers are half a megabyte. */
	static struct egress e;
	static struct bx_filter_prog filter;
	pid_t parent = getppid();
	sigset_t poll_mask;
	size_t i;

	options_parse(argc, argv, &e.e_cfg);
	setup_descriptors(&e.e_cfg);
	setup_filter_read(&e.e_cfg, &filter);
	setup_signals(&poll_mask);
	setup_resolver();
	setup_drop_privileges();
	setup_parent_death(parent);
	setup_filter_install(&e.e_cfg, &filter);
	e.e_listen = e.e_cfg.ec_listen_fd;
	for (i = 0; i < EGRESS_MAX_CLIENTS; i++) {
		e.e_conns[i].c_state = CONN_FREE;
		e.e_conns[i].c_client = -1;
		e.e_conns[i].c_server = -1;
	}
	return loop_run(&e, &poll_mask);
}
