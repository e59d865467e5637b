/*
 * config.h: bxbridge.toml into a typed configuration (issue 42). The file
 * sits beside brokerd.toml (proto/defaults.h's configuration directory).
 *
 *	[mattermost] url         required: the server's base URL,
 *	                         https://HOST[:PORT][/PATH]; http:// only for
 *	                         127.0.0.1 (a server on this machine, or a
 *	                         test's). No user information, query or
 *	                         fragment; trailing slashes are dropped.
 *	             token_file  required: the file holding the bot account's
 *	                         personal access token. Only its path is
 *	                         checked here; the launcher reads it (mode
 *	                         0600, the caller's own) and hands the token
 *	                         to the jailed bridge through a pipe.
 *	             owner       required: the owner's Mattermost user id,
 *	                         26 characters of [a-z0-9] (bxbridge/ids.h)
 *	             poll_s      default 3, 1 to 60: how often pending posts'
 *	                         reactions and replies are read
 *	             ca_file     default none (the system's CAs): a private
 *	                         CA's certificate, PEM
 *	[broker]     socket      required: brokerd.toml's [sockets] bridge
 *
 * An unknown table or key, a wrong type or a bad value is an error naming
 * the file, line and key (toml/keys.h); a missing required key names the
 * file and the key. Paths are absolute and in the form proto/path.h
 * checks; the socket path fits a sockaddr_un.
 *
 * Ownership: bridge_config_load() and bridge_config_parse() allocate
 * *ret; the caller frees it with bridge_config_free() (NULL allowed).
 */
#ifndef BXBRIDGE_CONFIG_H
#define BXBRIDGE_CONFIG_H

#include <stddef.h>

#include "proto/error.h"

#define BRIDGE_CONFIG_DEFAULT_POLL_S	3
#define BRIDGE_CONFIG_MAX_POLL_S	60
#define BRIDGE_CONFIG_FILE_MAX		(64 * 1024)
/* The server's URL, scheme to end. */
#define BRIDGE_CONFIG_URL_MAX		2048

struct bridge_config {
	char	*bc_url;		/* no trailing slash */
	char	*bc_token_file;
	char	*bc_owner;		/* BRIDGE_ID_LEN characters */
	int	 bc_poll_s;
	char	*bc_ca_file;		/* NULL: the system's CAs */
	char	*bc_broker_socket;
};

/*
 * Reads the file at path, or when path is NULL bxbridge.toml in the
 * configuration directory (proto/defaults.h); a missing default file is
 * named.
 */
int	bridge_config_load(const char *path, struct bridge_config **ret,
	    struct bx_error *err);
/* Parses len bytes of buf; name is used in messages. */
int	bridge_config_parse(const char *name, const char *buf, size_t len,
	    struct bridge_config **ret, struct bx_error *err);
void	bridge_config_free(struct bridge_config *);

#endif
