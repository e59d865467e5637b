/* e2e_broker.c: libbrokerd serving a test home (see e2e_broker.h). */
#include <sys/stat.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/serve.h"
#include "recording.h"
#include "e2e_broker.h"

struct e2e_broker {
	char			 eb_grants[4096];
	char			 eb_broker_sock[108];
	char			 eb_admin_sock[108];
	struct recording	 eb_rec;
	struct runtime		 eb_runtime;
	struct audit		*eb_audit;
	struct state_store	*eb_state;
	struct approvals	*eb_approvals;
	struct broker		*eb_broker;
	struct serve		*eb_serve;
	pthread_t		 eb_thread;
};

static void
die(const char *what, const struct bx_error *err)
{
	fprintf(stderr, "e2e_broker: %s: %s\n", what, err->msg);
	abort();
}

static void *
run(void *arg)
{
	struct e2e_broker *b = arg;
	struct bx_error err;

	if (serve_run(b->eb_serve, &err) == -1)
		die("serve_run", &err);
	return NULL;
}

struct e2e_broker *
e2e_broker_start(const char *home)
{
	struct audit_config ac = { .home = home };
	struct broker_config bc;
	struct serve_config sc;
	struct e2e_broker *b;
	struct bx_error err;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		abort();
	snprintf(b->eb_grants, sizeof(b->eb_grants), "%s/grants", home);
	mkdir(b->eb_grants, 0700);
	snprintf(b->eb_broker_sock, sizeof(b->eb_broker_sock),
	    "%s/run/loop-broker/broker.sock", home);
	snprintf(b->eb_admin_sock, sizeof(b->eb_admin_sock),
	    "%s/run/owner-broker/admin.sock", home);
	recording_init(&b->eb_rec);
	b->eb_runtime = recording_runtime(&b->eb_rec);
	if (audit_open(&ac, &b->eb_audit, &err) != 0)
		die("audit_open", &err);
	if ((b->eb_state = state_open(home, &err)) == NULL)
		die("state_open", &err);
	if ((b->eb_approvals = approvals_new()) == NULL)
		abort();
	memset(&bc, 0, sizeof(bc));
	bc.grants_dir = b->eb_grants;
	bc.ttl_ms = 60000;
	bc.audit = b->eb_audit;
	bc.state = b->eb_state;
	bc.approvals = b->eb_approvals;
	bc.runtime = &b->eb_runtime;
	if ((b->eb_broker = broker_new(&bc, &err)) == NULL)
		die("broker_new", &err);
	memset(&sc, 0, sizeof(sc));
	sc.broker_socket = b->eb_broker_sock;
	sc.admin_socket = b->eb_admin_sock;
	sc.broker = b->eb_broker;
	sc.stop_fd = -1;
	if ((b->eb_serve = serve_new(&sc, &err)) == NULL)
		die("serve_new", &err);
	if (pthread_create(&b->eb_thread, NULL, run, b) != 0)
		abort();
	return b;
}

void
e2e_broker_stop(struct e2e_broker *b)
{
	if (b == NULL)
		return;
	serve_stop(b->eb_serve);
	pthread_join(b->eb_thread, NULL);
	serve_free(b->eb_serve);
	broker_free(b->eb_broker);
	approvals_free(b->eb_approvals);
	state_close(b->eb_state);
	audit_close(b->eb_audit);
	recording_free(&b->eb_rec);
	free(b);
}

const char *
e2e_broker_socket(const struct e2e_broker *b)
{
	return b->eb_broker_sock;
}

size_t
e2e_broker_runs(struct e2e_broker *b)
{
	return recording_count(&b->eb_rec);
}
