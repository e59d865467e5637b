/*
 * sandbox-fixture.h: the fixture of the tests that run allowed calls in
 * real sandboxes (test-sandbox.c, test-egress.c, test-escape.c,
 * test-hostile-files.c, test-load.c), under the runtime named
 * by sb_kind: a fresh home and data tree per case under /var/lib (not
 * /tmp, which every sandbox has its own of), brokerd started with that
 * runtime and the case's extra configuration, calls made as the model
 * makes them, and the checks every case ends with.
 *
 * Ownership: sb_setup allocates the fixture and sb_teardown frees it and
 * removes everything it made, also brokerd's empty cgroups.
 */
#ifndef RH_SANDBOX_FIXTURE_H
#define RH_SANDBOX_FIXTURE_H

#include <limits.h>
#include <stdbool.h>

#include "harness.h"

#define SB_TIMEOUT_MS	3000
#define SB_MEMORY_MB	64
#define SB_OUTPUT_BYTES	65536
#define SB_SESSION	"sandbox-1"
/* Short: the home's socket paths must fit sun_path. */
#define SB_TEST_TOP	"/var/lib/bx-sandbox-XXXXXX"

/* "podman" or "bwrap", from the test's command line. */
extern const char *sb_kind;

struct sb_fixture {
	char		 top[PATH_MAX];		/* all of the test's files */
	struct rh_home	 home;
	char		 data[PATH_MAX];	/* the granted tree */
	char		 outside[PATH_MAX];	/* beside it, never granted */
	char		 home_id[17];
	int		 calls;
	struct rh_answer last;			/* of the last call */
	const char	*extra;			/* brokerd.toml after [runner] */
	int		 max_running;		/* [runner] max_running; 0: 1 */
	int		 timeout_ms;	/* [runner] timeout_ms; 0: SB_TIMEOUT_MS */
	int		 probes;		/* sb_after_case's calls */
};

/* cmocka setup and teardown; sb_setup_with adds extra to brokerd.toml. */
int	sb_setup(void **state);
int	sb_setup_with(void **state, const char *extra);
int	sb_teardown(void **state);
/*
 * sb_setup, then docs/a.txt and the grants "shell" and "read" (read_file)
 * of the data tree: where the tests of many calls (test-load,
 * test-crash-runner) start.
 */
int	sb_setup_calls(void **state);
/* brokerd.toml written with the fixture's configuration and extra. */
void	sb_config(struct sb_fixture *);
/* sb_config, then brokerd started; fails the test if it does not start. */
void	sb_start(struct sb_fixture *);
/*
 * brokerd stopped (SIGTERM; the test fails unless it exits 0) and started
 * again with max_running and the fixture's timeout_ms.
 */
void	sb_restart(struct sb_fixture *, int max_running);

void	sb_put(const char *dir, const char *name, const char *text);
/* A grant file: tool, auto, result_class private, constraints key = [list]. */
void	sb_grant(struct sb_fixture *, const char *id, const char *tool,
	    const char *key, const char *list);
/* sb_grant of tool, its paths the data tree alone. */
void	sb_grant_data(struct sb_fixture *, const char *id, const char *tool);

/* One call; its final answer, content (malloc'd) in *content. */
struct rh_answer sb_call(struct sb_fixture *, const char *tool,
	    const char *args, char **content);
/* One call whose arguments are {key: value}; its content (malloc'd). */
char	*sb_call_arg(struct sb_fixture *, const char *tool, const char *key,
	    const char *value);
/* A listener on 127.0.0.1 (SOCK_STREAM or SOCK_DGRAM), its port in *port. */
int	sb_listen_loopback(int type, int *port);
/* A listener on the abstract Unix socket name. */
int	sb_listen_abstract(const char *name);
/* A shell command under the grant "shell"; its content (malloc'd). */
char	*sb_shell(struct sb_fixture *, const char *cwd, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* Call c<n>'s Result record: its status, bytes and sha256 of sent. */
void	sb_expect_record(struct sb_fixture *, int n, bool failed,
	    const char *sent);
/* The last call failed with content exactly fmt's message; its record. */
void	sb_expect_failed(struct sb_fixture *, const char *content,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Nothing of any call is left: directories, cgroups, containers. */
void	sb_expect_nothing_left(struct sb_fixture *);

/* Whether a bxegress of this home runs. */
bool	sb_proxy_running(const struct sb_fixture *);
/* Whether match(pid, ctx) holds for one of the host's processes. */
bool	sb_any_process(bool (*match)(const char *pid, const void *ctx),
	    const void *ctx);
/*
 * The checks after every case: brokerd answers a good client; no
 * directory, cgroup, container, child process or proxy of any call is
 * left; every allowed call has exactly one Result; the chain verifies.
 */
void	sb_after_case(struct sb_fixture *);

#endif
