/*
 * config.h: loopd.toml into a typed configuration (design section 8).
 *
 *	[paths]   home          default by proto/defaults.h: BOXMAKER_HOME,
 *	                        then /var/lib/boxmaker for root and
 *	                        ~/.local/share/boxmaker for anyone else
 *	[sockets] loop          default <home>/run/owner-loop/loop.sock
 *	[model]   url           required: llama-server's base URL
 *	          model         default "local"
 *	          api_key_file  default none: the file holding llama-server's
 *	                        --api-key, readable by its owner only
 *	          timeout_s     default 300
 *	          max_tokens    default 4096: sent as each request's
 *	                        max_tokens, the most the model may write in
 *	                        one step
 *	[broker]  socket        required when [broker] is there; without the
 *	                        table every non-core tool call fails
 *	[turn]    max_steps     default 16
 *	          max_s         default 1800: the whole turn's wall-clock
 *	                        bound (serve.h)
 *	[jail]    mode          "on" (the default) or "off": whether the
 *	                        turn loop runs in its jail (loopd(8))
 *
 * An unknown table or key, a wrong type or a bad value is an error naming
 * the file, line and key (toml/keys.h). Paths are absolute and in the form
 * proto/path.h checks; socket paths fit a sockaddr_un.
 *
 * Ownership: loop_config_load() and loop_config_parse() allocate *ret; the
 * caller frees it with loop_config_free() (NULL allowed).
 */
#ifndef LOOPD_CONFIG_H
#define LOOPD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

#define LOOP_CONFIG_DEFAULT_MODEL	"local"
#define LOOP_CONFIG_DEFAULT_TIMEOUT_S	300
#define LOOP_CONFIG_DEFAULT_MAX_STEPS	16
#define LOOP_CONFIG_DEFAULT_MAX_TOKENS	4096
#define LOOP_CONFIG_DEFAULT_TURN_S	1800
/* Bounds on what loopd.toml may ask for. */
#define LOOP_CONFIG_MAX_TIMEOUT_S	3600
#define LOOP_CONFIG_MAX_STEPS		256
/* The largest context llama.cpp's models have (2^20 tokens). */
#define LOOP_CONFIG_MAX_TOKENS		1048576
/* A day: a turn nobody watches must still end the same day. */
#define LOOP_CONFIG_MAX_TURN_S		86400
#define LOOP_CONFIG_FILE_MAX		(64 * 1024)
/* The model's URL and name. */
#define LOOP_CONFIG_TEXT_MAX		2048

struct loop_config {
	char	*lc_home;
	char	*lc_loop_socket;
	char	*lc_model_url;
	char	*lc_model;
	char	*lc_api_key_file;	/* NULL: send no key */
	int	 lc_timeout_s;
	int	 lc_max_tokens;
	char	*lc_broker_socket;	/* NULL: no [broker] */
	int	 lc_max_steps;
	int	 lc_max_turn_s;	/* [turn] max_s */
	bool	 lc_jail_off;	/* [jail] mode = "off" */
};

/*
 * Reads the file at path, or the default loopd.toml (proto/defaults.h)
 * when path is NULL; a missing default file says that `bxctl init` writes
 * one. The home defaults by proto/defaults.h.
 */
int	loop_config_load(const char *path, struct loop_config **ret,
	    struct bx_error *err);
/*
 * Parses len bytes of buf; name is used in messages. default_home is the
 * home when the file names none; NULL: this user's default
 * (bx_defaults_fill_home), looked up only when the file names none.
 */
int	loop_config_parse(const char *name, const char *buf, size_t len,
	    const char *default_home, struct loop_config **ret,
	    struct bx_error *err);
void	loop_config_free(struct loop_config *);

#endif
