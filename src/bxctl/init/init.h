/*
 * init.h: the text of the files `bxctl init` writes (init_text.c): this
 * user's brokerd.toml and loopd.toml, with every path written out, an
 * example grant, and a commented bxbridge.toml (the Mattermost bridge's,
 * valid TOML but not set up: the keys only the owner knows are commented
 * out, so `bxbridge check` names what to fill in). Paths are TOML basic strings, escaped; a path that is
 * not UTF-8, or whose sockets would not fit a sockaddr_un, is refused.
 *
 * Ownership: init_text_make() fills the caller's struct with malloc'd
 * strings; init_text_clear() frees them (a zeroed struct is allowed).
 */
#ifndef BXCTL_INIT_H
#define BXCTL_INIT_H

#include "proto/defaults.h"
#include "proto/error.h"

/* How long the example grant lasts from the day init writes it. */
#define INIT_EXAMPLE_DAYS	90

struct init_text {
	char	*it_brokerd;		/* brokerd.toml */
	char	*it_loopd;		/* loopd.toml */
	char	*it_grants;		/* the grants directory */
	char	*it_example_path;	/* beside it: <home>/example-grant.toml */
	char	*it_example;		/* its text */
	char	*it_bxbridge;		/* bxbridge.toml, not set up */
};

/*
 * runtime is "podman" or "bwrap"; user_dir is the user's home directory
 * for the example's path (NULL: the Boxmaker home's parent is not
 * guessed, the example names /home/you).
 */
int	init_text_make(const struct bx_defaults *, const char *runtime,
	    const char *user_dir, struct init_text *ret, struct bx_error *);
void	init_text_clear(struct init_text *);

#endif
