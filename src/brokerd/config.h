/*
 * config.h: brokerd.toml into a typed configuration (design section 2).
 *
 *	[paths]     home, grants
 *	[sockets]   broker, admin, bridge
 *	[approvals] ttl_ms
 *	[runner]    how allowed calls run (config_runner.h)
 *	[egress]    http_fetch's proxy (config_runner.h)
 *
 * Every key is optional; an unknown table or key is an error naming it and
 * its line (toml/keys.h). Paths are absolute and in the form proto/path.h
 * checks; socket paths fit a sockaddr_un. Defaults: home by proto/defaults.h
 * (BOXMAKER_HOME, then /var/lib/boxmaker for root and
 * ~/.local/share/boxmaker for anyone else); grants <home>/grants; broker <home>/run/loop-broker/broker.sock; admin
 * <home>/run/owner-broker/admin.sock; bridge
 * <home>/run/bridge-broker/bridge.sock; ttl_ms 900000 (15 minutes).
 *
 * Ownership: config_load() and config_parse() allocate *ret; the caller
 * frees it with config_free() (NULL is allowed). Its strings belong to it.
 */
#ifndef BROKERD_CONFIG_H
#define BROKERD_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "brokerd/runner/runner.h"
#include "proto/error.h"

#define CONFIG_DEFAULT_TTL_MS	900000
/* An approval waits at most a day. */
#define CONFIG_MAX_TTL_MS	(24LL * 60 * 60 * 1000)
/* brokerd.toml is small; a larger file is refused before parsing. */
#define CONFIG_FILE_MAX		(64 * 1024)

struct config {
	char	*c_path;	/* the file read; NULL from config_parse() */
	char	*c_dir;		/* its directory, where secrets/ is; or NULL */
	char	*c_home;
	char	*c_grants;
	char	*c_broker_socket;
	char	*c_admin_socket;
	char	*c_bridge_socket;	/* bxbridge's (issue 42) */
	int64_t			 c_ttl_ms;
	struct config_runner	 c_runner;
};

/*
 * Reads the file at path, or the default brokerd.toml (proto/defaults.h)
 * when path is NULL; a missing default file says that `bxctl init` writes
 * one. The home defaults by proto/defaults.h.
 */
int	config_load(const char *path, struct config **ret,
	    struct bx_error *err);

/*
 * Parses len bytes of buf; name is used in messages. default_home is the
 * home when the file names none; NULL: this user's default
 * (bx_defaults_fill_home), looked up only when the file names none.
 */
int	config_parse(const char *name, const char *buf, size_t len,
	    const char *default_home, struct config **ret, struct bx_error *err);

void	config_free(struct config *);

#endif
