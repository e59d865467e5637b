/*
 * grants.h: the owner's grant files (design section 3, "Files" and
 * "Loading") read into a grant set.
 *
 * grants_load() reads every *.toml file of the grants directory, each time
 * it is called: there is no cache, so a change applies to the next call.
 * A file that breaks any loading rule becomes a problem, and one problem
 * makes the whole set invalid (every call is then denied with
 * grants_invalid). Problems are sorted and fingerprinted so that a program
 * can print them once per distinct set of problems.
 *
 * Ownership: grants_load() and grants_new() allocate a struct grants; the
 * caller frees it with grants_free() (NULL is allowed). Every grant,
 * problem and string inside belongs to the set and lives until it is freed.
 */
#ifndef BROKERD_GRANTS_H
#define BROKERD_GRANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
#include "proto/types.h"

/* More *.toml files than this in the directory is itself a problem. */
#define GRANTS_MAX_FILES	10000
/* A grant file larger than this is a problem, not read. */
#define GRANTS_FILE_MAX		(64 * 1024)
/* At most this many entries in each of paths, hosts and patterns. */
#define GRANTS_MAX_CONSTRAINTS	256
/* Where the owner reads what to do about a problem. */
#define GRANTS_RUNBOOK		"see docs/runbook.md#grants-invalid"

/* In order of restrictiveness: the larger wins among matching grants. */
enum grant_mode {
	GRANT_MODE_AUTO,
	GRANT_MODE_ASK,
	GRANT_MODE_DENY,
	GRANT_MODE_MAX
};

struct grant {
	char		 g_id[BX_ID_MAX + 1];	/* the file stem */
	enum bx_tool	 g_tool;
	enum grant_mode	 g_mode;
	enum bx_class	 g_max_taint;
	enum bx_class	 g_result_class;
	bool		 g_untrusted;
	int64_t		 g_expires;		/* ms since the epoch */
	char		**g_paths;
	size_t		 g_npaths;
	char		**g_hosts;
	size_t		 g_nhosts;
	/*
	 * The secret an http_fetch grant sends (secret.h), "" for none:
	 * only its name, checked for form; loading never reads the file.
	 */
	char		 g_secret[BX_ID_MAX + 1];
	/*
	 * The file's bytes as read and decoded, kept so that only the
	 * matched grant is hashed, and of exactly what was decided on.
	 */
	char		*g_bytes;
	size_t		 g_len;
};

/*
 * Maps to the protocol's GrantProblem. Control characters in the file name
 * and in the text are kept written as \u00XX, so a problem prints as one
 * harmless line.
 */
struct grant_problem {
	char		*gp_file;
	int64_t		 gp_line;	/* 0 when there is no line */
	char		*gp_problem;
};

struct grants {
	struct grant		*gs_grants;	/* sorted by id, byte order */
	size_t			 gs_len;
	struct grant_problem	*gs_problems;	/* sorted: file, line, text */
	size_t			 gs_nproblems;
	size_t			 gs_cap;
	size_t			 gs_pcap;
	bool			 gs_finished;
};

const char	*grant_mode_name(enum grant_mode);

/* The name of the secret the grant sends, or NULL when it names none. */
const char	*grant_secret(const struct grant *);

/* The SHA-256 of the grant file's bytes, as the grant was read. */
int		 grant_sha256(const struct grant *, struct bx_hash *ret,
		    struct bx_error *err);

/*
 * Reads the directory dir. Returns 0 with a finished set, valid or not
 * (see grants_valid()); an unreadable directory is a problem too. Returns
 * -1 only when memory runs out.
 */
int	grants_load(const char *dir, struct grants **ret,
	    struct bx_error *err);

/*
 * Building a set by hand, as grants_load() does: add each file's bytes
 * (file is its path, whose last component gives the id; a valid grant
 * keeps a copy of the bytes) or a problem
 * found without reading it, then finish, which sorts the set. Adding to a
 * finished set is an error. These return -1 only when memory runs out.
 */
int	grants_new(struct grants **ret, struct bx_error *err);
int	grants_add_file(struct grants *, const char *file, const char *buf,
	    size_t len, struct bx_error *err);
int	grants_add_problem(struct grants *, const char *file, int64_t line,
	    const char *problem, struct bx_error *err);
void	grants_finish(struct grants *);
void	grants_free(struct grants *);

/* True when the set has no problems. */
bool	grants_valid(const struct grants *);

/*
 * The SHA-256 of the sorted problems (file, line and text of each): equal
 * for equal sets of problems, whatever order the directory listed the
 * files in, so a program prints a set once and again only when it
 * changes. All zeros when there are none.
 */
int	grants_fingerprint(const struct grants *, struct bx_hash *ret,
	    struct bx_error *err);

/*
 * "<file>:<line>: <problem>", or "<file>: <problem>" with no line, into buf
 * (cut to len bytes, always NUL-terminated). Returns what snprintf does.
 */
int	grants_problem_format(const struct grant_problem *, char *buf,
	    size_t len);

#endif
