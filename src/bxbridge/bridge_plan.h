/*
 * bridge_plan.h: what the Mattermost bridge's jail holds (bxbridge, issue
 * 42), and the ACL entries that let its uid in: a uid of its own
 * (BX_JAIL_BRIDGE, proto/jailid.h), nothing of the owner's but these:
 *
 *	path (the same inside)		inside		ACL entry for the jail
 *	the configuration file		read-only	r
 *	<home>/bridge, its state	read-write	rwx, inherited; the
 *							owner's rwx inherited
 *	[broker] socket's directory	read-only	--x (brokerd gives
 *							bridge.sock rw)
 *	[mattermost] ca_file, if set	read-only	r, when the file is
 *							the caller's (else
 *							its modes decide)
 *	<home>/run/bridge-mattermost	read-only	--x; mattermost.sock
 *							rw (the launcher's)
 *
 * The system's CA certificates (/etc/ssl/certs) are in every jail's /etc,
 * read-only (jail/jail.h), so TLS to the server is checked inside. Its
 * one way out is the relay at BRIDGE_PLAN_RELAY to the Mattermost URL's
 * host and port (jailrun/relay.h).
 *
 * Ownership: as jailrun/plan.h's; the input's strings are only read.
 */
#ifndef BXBRIDGE_BRIDGE_PLAN_H
#define BXBRIDGE_BRIDGE_PLAN_H

#include "jailrun/plan.h"

#define BRIDGE_PLAN_STATE_DIR	"bridge"
#define BRIDGE_PLAN_RELAY_DIR	"run/bridge-mattermost"
#define BRIDGE_PLAN_RELAY_NAME	"mattermost.sock"
#define BRIDGE_PLAN_RELAY	BRIDGE_PLAN_RELAY_DIR "/" BRIDGE_PLAN_RELAY_NAME
/* `bxbridge check`'s relay, so that it never replaces a running bridge's. */
#define BRIDGE_PLAN_CHECK_RELAY_NAME	"check.sock"
#define BRIDGE_PLAN_CHECK_RELAY	BRIDGE_PLAN_RELAY_DIR "/" \
	BRIDGE_PLAN_CHECK_RELAY_NAME

/* What the plan is made from: bxbridge.toml's paths, all absolute. */
struct bridge_plan_input {
	const char	*bp_home;
	const char	*bp_config_path;
	const char	*bp_broker_socket;	/* [broker] socket */
	const char	*bp_ca_file;		/* [mattermost] ca_file, or NULL */
	/* The relay's socket in BRIDGE_PLAN_RELAY_DIR; NULL: mattermost.sock */
	const char	*bp_relay_name;
};

/*
 * The plan for the caller's uid and gid. Makes <home>/bridge (0755) and
 * the socket's directory if they are missing. Fails as jail_plan_start()
 * does, and when ca_file is not a regular file or the socket's directory
 * holds anything else.
 */
int	bridge_plan_make(const struct bridge_plan_input *in,
	    struct jail_plan *ret, struct bx_error *err);

/* Gives the jail's uid the ACL entries of the table above. */
int	bridge_plan_grant(const struct jail_plan *, struct bx_error *err);

#endif
