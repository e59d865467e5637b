/*
 * recording.h: a recording Runtime for tests (design section 7: "tests use
 * a recording fake"). It copies every run_spec it is given and answers with
 * whatever the test set: content, a tool failure, or unavailable.
 *
 * Built as its own small library (recording_dep) so that loopd's end-to-end
 * test can drive libbrokerd with it too. The caller owns the struct
 * recording; recording_init sets it up and recording_free frees what it
 * recorded. It is safe to run from several threads at once.
 */
#ifndef TESTS_BROKERD_RECORDING_H
#define TESTS_BROKERD_RECORDING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "brokerd/runner/runner.h"

/* The most mounts or egress patterns one recorded call keeps. */
#define RECORDING_MAX_ITEMS	16

struct recorded_call {
	enum bx_tool	 tool;
	char		*path;		/* copies of the parsed arguments */
	char		*content;
	char		*command;
	char		*cwd;
	char		*url;
	size_t		 nmounts;
	char		*mounts[RECORDING_MAX_ITEMS];
	bool		 writable[RECORDING_MAX_ITEMS];
	bool		 has_egress;
	size_t		 negress;
	char		*egress[RECORDING_MAX_ITEMS];
};

struct recording {
	pthread_mutex_t		 lock;
	struct recorded_call	*calls;
	size_t			 count;
	size_t			 cap;
	/* What every run answers; the defaults are RUN_OK and "content". */
	enum run_status		 status;
	char			 text[256];
	bool			 truncated;
	/* When true, run returns -1 (it cannot even say why). */
	bool			 hard_fail;
};

void		 recording_init(struct recording *);
void		 recording_free(struct recording *);
/* The Runtime that records into r. */
struct runtime	 recording_runtime(struct recording *);
/* How many calls it has seen. */
size_t		 recording_count(struct recording *);

#endif
