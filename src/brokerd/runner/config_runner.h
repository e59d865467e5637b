/*
 * config_runner.h: the [runner] table of brokerd.toml (how allowed calls
 * run; M3b). Every key is optional, unknown keys are errors, and numbers
 * are range-checked with a message naming the key and its line:
 *
 *	kind		"podman" (default), "bwrap" or "refuse" (M3a's runtime)
 *	root		a prepared root filesystem whose usr/ replaces the
 *			host's /usr in the sandbox ("" : the host's /usr)
 *	timeout_ms	100 .. 3,600,000	(30,000)   the tool's wall time,
 *			from bxtool's "started" line
 *	start_timeout_ms 1,000 .. 600,000	(30,000)   the runtime's own
 *			start, from its fork to that line
 *	memory_mb	16 .. 65,536		(512)      swap and /tmp included
 *	pids		8 .. 65,536		(128)      processes and threads
 *	output_bytes	1,024 .. 1,048,576	(262,144)  what a call returns
 *	max_running	1 .. 64			(4)        sandboxes at once
 *	user		"" (brokerd's own) or a user name tools run as
 *	podman_runtime	"" (podman's default) or podman's --runtime
 *	podman_path	"podman", bwrap_path "bwrap": found on PATH unless
 *			absolute
 *	bxtool_path	"" : the installed helper (RUNNER_BXTOOL_INSTALLED)
 *
 * The [egress] table (http_fetch's proxy, bxegress) lands in the same
 * struct, since every call's runner reads both:
 *
 *	connect_timeout_ms	100 .. 60,000		(10,000)
 *	max_bytes		1,024 .. 1 GiB		(16 MiB) relayed per
 *				call, both ways, TLS included
 *	ca_file			"" or a PEM bundle the sandbox's curl trusts
 *				besides the system's (test hosts)
 *	allow_addresses		CIDRs exempt from the private-address
 *				refusal, for test hosts (proto/netaddr.h
 *				says what load refuses)
 *	bxegress_path		"" : the installed proxy
 *				(RUNNER_BXEGRESS_INSTALLED)
 *
 * Ownership: the strings belong to the struct config that holds the tables
 * and are freed by config_runner_clear.
 */
#ifndef BROKERD_CONFIG_RUNNER_H
#define BROKERD_CONFIG_RUNNER_H

#include <stdint.h>

#include "proto/error.h"
#include "proto/netaddr.h"
#include "toml/keys.h"
#include "toml/toml.h"

enum runner_kind {
	RUNNER_PODMAN,
	RUNNER_BWRAP,
	RUNNER_REFUSE,
	RUNNER_KIND_MAX
};

#define RUNNER_DEFAULT_TIMEOUT_MS	30000
#define RUNNER_DEFAULT_START_TIMEOUT_MS	30000
#define RUNNER_DEFAULT_MEMORY_MB	512
#define RUNNER_DEFAULT_PIDS		128
#define RUNNER_DEFAULT_OUTPUT_BYTES	262144
#define RUNNER_DEFAULT_MAX_RUNNING	4
#define EGRESS_DEFAULT_CONNECT_MS	10000
#define EGRESS_DEFAULT_MAX_BYTES	(16 * 1024 * 1024)

struct config_runner {
	enum runner_kind	 cr_kind;
	char			*cr_root;		/* NULL: none */
	int64_t			 cr_timeout_ms;
	int64_t			 cr_start_timeout_ms;
	int64_t			 cr_memory_mb;
	int64_t			 cr_pids;
	int64_t			 cr_output_bytes;
	int64_t			 cr_max_running;
	char			*cr_user;		/* NULL: brokerd's */
	char			*cr_podman_runtime;	/* NULL: default */
	char			*cr_podman_path;
	char			*cr_bwrap_path;
	char			*cr_bxtool_path;	/* NULL: installed */
	/* [egress] */
	int64_t			 cr_connect_timeout_ms;
	int64_t			 cr_max_bytes;
	char			*cr_ca_file;		/* NULL: none */
	char			*cr_bxegress_path;	/* NULL: installed */
	char			*cr_allow_text[BX_CIDR_MAX_ALLOW];
	struct bx_cidr		 cr_allow[BX_CIDR_MAX_ALLOW];
	size_t			 cr_nallow;
};

/* The defaults above, before any key is read. */
void	config_runner_defaults(struct config_runner *);

/*
 * The keys of [runner] and [egress], at offsets in struct config_runner,
 * for toml_keys_decode (toml/keys.h).
 */
extern const struct toml_key config_runner_keys[];
extern const struct toml_key config_egress_keys[];

/* Frees the strings; the struct itself is its holder's. */
void	config_runner_clear(struct config_runner *);

/* "podman", "bwrap", "refuse". */
const char	*config_runner_kind_name(enum runner_kind);

#endif
