/*
 * test-config.c: brokerd.toml into struct config (design section 2): the
 * defaults, every key, and the errors that name key and line.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/config.h"
#include "proto/defaults.h"
#include "grants-fixture.h"

/* default_home NULL stands for root's default home. */
static struct config *
parse(const char *text, const char *default_home)
{
	struct config *c = NULL;
	struct bx_error err;

	if (default_home == NULL)
		default_home = BX_ROOT_HOME;
	if (config_parse("brokerd.toml", text, strlen(text), default_home, &c,
	    &err) != 0)
		fail_msg("config_parse: %s", err.msg);
	return c;
}

static void
refused(const char *text, const char *want)
{
	struct config *c = NULL;
	struct bx_error err;

	if (config_parse("brokerd.toml", text, strlen(text), BX_ROOT_HOME, &c,
	    &err) != -1)
		fail_msg("accepted: %s", text);
	assert_null(c);
	if (strstr(err.msg, want) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, want);
}

static void
test_defaults(void **state)
{
	struct config *c;

	(void)state;
	c = parse("", NULL);
	assert_string_equal(c->c_home, "/var/lib/boxmaker");
	assert_string_equal(c->c_grants, "/var/lib/boxmaker/grants");
	assert_string_equal(c->c_broker_socket,
	    "/var/lib/boxmaker/run/loop-broker/broker.sock");
	assert_string_equal(c->c_admin_socket,
	    "/var/lib/boxmaker/run/owner-broker/admin.sock");
	assert_string_equal(c->c_bridge_socket,
	    "/var/lib/boxmaker/run/bridge-broker/bridge.sock");
	assert_int_equal(c->c_ttl_ms, 900000);
	config_free(c);
	config_free(NULL);
}

static void
test_env_home(void **state)
{
	struct config *c;

	(void)state;
	c = parse("", "/home/kyle/.local/share/boxmaker");
	assert_string_equal(c->c_home, "/home/kyle/.local/share/boxmaker");
	assert_string_equal(c->c_grants,
	    "/home/kyle/.local/share/boxmaker/grants");
	assert_string_equal(c->c_admin_socket, "/home/kyle/.local/share/"
	    "boxmaker/run/owner-broker/admin.sock");
	config_free(c);
	/* The file's home wins over the default. */
	c = parse("[paths]\nhome = \"/srv/bx\"\n", "/home/kyle/bx");
	assert_string_equal(c->c_home, "/srv/bx");
	assert_string_equal(c->c_broker_socket,
	    "/srv/bx/run/loop-broker/broker.sock");
	config_free(c);
	c = parse("", "/");
	assert_string_equal(c->c_grants, "/grants");
	config_free(c);
}

static void
test_every_key(void **state)
{
	struct config *c;

	(void)state;
	c = parse("[paths]\nhome = \"/h\"\ngrants = \"/etc/boxmaker/grants\"\n"
	    "[sockets]\nbroker = \"/run/b.sock\"\nadmin = \"/run/a.sock\"\n"
	    "bridge = \"/run/m.sock\"\n"
	    "[approvals]\nttl_ms = 100\n", NULL);
	assert_string_equal(c->c_home, "/h");
	assert_string_equal(c->c_grants, "/etc/boxmaker/grants");
	assert_string_equal(c->c_broker_socket, "/run/b.sock");
	assert_string_equal(c->c_admin_socket, "/run/a.sock");
	assert_string_equal(c->c_bridge_socket, "/run/m.sock");
	assert_int_equal(c->c_ttl_ms, 100);
	config_free(c);
}

static void
test_errors(void **state)
{
	char text[400];

	(void)state;
	refused("[paths]\nhome = \"/h\"\n[sokets]\n",
	    "brokerd.toml:3: unknown table or key \"sokets\"");
	refused("[paths]\nhomes = \"/h\"\n",
	    "brokerd.toml:2: unknown key \"paths.homes\"");
	refused("[sockets]\nloop = \"/a\"\n",
	    "brokerd.toml:2: unknown key \"sockets.loop\"");
	refused("\n[approvals]\nttl = 5\n",
	    "brokerd.toml:3: unknown key \"approvals.ttl\"");
	refused("ttl_ms = 5\n", "brokerd.toml:1: unknown table or key");
	refused("paths = 5\n", "brokerd.toml:1: \"paths\" must be a table");
	refused("[approvals]\nttl_ms = \"15m\"\n",
	    "brokerd.toml:2: approvals.ttl_ms must be an integer");
	refused("[approvals]\nttl_ms = 0\n", "ttl_ms must be 1 to");
	refused("[approvals]\nttl_ms = -5\n", "ttl_ms must be 1 to");
	refused("[approvals]\nttl_ms = 86400001\n", "ttl_ms must be 1 to");
	refused("[paths]\nhome = 1\n", "paths.home must be a string");
	refused("[paths]\nhome = \"var/lib\"\n",
	    "brokerd.toml:2: paths.home: not an absolute path");
	refused("[paths]\ngrants = \"/a//b\"\n", "paths.grants: has an empty");
	refused("[paths]\nhome = \"/a\\u0000b\"\n", "NUL");
	/* A key holding a NUL is unknown, not the key before the NUL. */
	refused("[paths]\n\"grants\\u0000\" = \"/x\"\ngrants = \"/y\"\n",
	    "brokerd.toml:2: unknown key \"paths.grants\\u0000\"");
	refused("\"paths\\u0000\" = {}\n",
	    "brokerd.toml:1: unknown table or key \"paths\\u0000\"");
	refused("[paths\n", "brokerd.toml:1:");
	snprintf(text, sizeof(text), "[sockets]\nadmin = \"/%0120d\"\n", 0);
	refused(text, "brokerd.toml:2: sockets.admin: a socket path is at "
	    "most 107 bytes");
	/* A home whose default socket would be too long says so. */
	snprintf(text, sizeof(text), "[paths]\nhome = \"/%090d\"\n", 0);
	refused(text, "sockets.broker (by default /");
	/* bridge.sock's default is the longest: the first one too long. */
	snprintf(text, sizeof(text), "[paths]\nhome = \"/%077d\"\n", 0);
	refused(text, "sockets.bridge (by default /");
}

/* A BOXMAKER_HOME that is no path fails the load, naming it. */
static void
test_env_bad(void **state)
{
	char *dir = fixture_dir(), *path;
	struct config *c = NULL;
	struct bx_error err;

	(void)state;
	assert_true(asprintf(&path, "%s/brokerd.toml", dir) > 0);
	fixture_text(dir, "brokerd.toml", "");
	assert_int_equal(setenv("BOXMAKER_HOME", "relative/home", 1), 0);
	assert_int_equal(config_load(path, &c, &err), -1);
	unsetenv("BOXMAKER_HOME");
	assert_null(c);
	assert_non_null(strstr(err.msg, "BOXMAKER_HOME gives relative/home"));
	free(path);
	fixture_remove(dir);
	free(dir);
}

static void
test_load(void **state)
{
	char *dir = fixture_dir(), *path;
	struct config *c = NULL;
	struct bx_error err;

	(void)state;
	assert_true(asprintf(&path, "%s/brokerd.toml", dir) > 0);
	assert_int_equal(config_load(path, &c, &err), -1);
	assert_non_null(strstr(err.msg, path));
	fixture_text(dir, "brokerd.toml", "[approvals]\nttl_ms = 1000\n");
	assert_int_equal(setenv("BOXMAKER_HOME", "/tmp/bxhome", 1), 0);
	assert_int_equal(config_load(path, &c, &err), 0);
	assert_string_equal(c->c_home, "/tmp/bxhome");
	assert_int_equal(c->c_ttl_ms, 1000);
	config_free(c);
	c = NULL;
	unsetenv("BOXMAKER_HOME");
	fixture_text(dir, "brokerd.toml", "[approvals]\nttl_ms = true\n");
	assert_int_equal(config_load(path, &c, &err), -1);
	assert_non_null(strstr(err.msg, "brokerd.toml:2:"));
	assert_int_equal(config_load(dir, &c, &err), -1);
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_null(c);
	free(path);
	fixture_remove(dir);
	free(dir);
}

/* [runner]: the defaults, every key, and the refusals naming key and line. */
static void
test_runner(void **state)
{
	struct config *c;

	(void)state;
	c = parse("", NULL);
	assert_int_equal(c->c_runner.cr_kind, RUNNER_PODMAN);
	assert_int_equal(c->c_runner.cr_timeout_ms, 30000);
	assert_int_equal(c->c_runner.cr_start_timeout_ms, 30000);
	assert_int_equal(c->c_runner.cr_memory_mb, 512);
	assert_int_equal(c->c_runner.cr_pids, 128);
	assert_int_equal(c->c_runner.cr_output_bytes, 262144);
	assert_int_equal(c->c_runner.cr_max_running, 4);
	assert_null(c->c_runner.cr_root);
	assert_null(c->c_runner.cr_user);
	assert_null(c->c_runner.cr_bxtool_path);
	config_free(c);
	c = parse("[runner]\nkind = \"bwrap\"\nroot = \"/srv/root\"\n"
	    "timeout_ms = 100\nstart_timeout_ms = 600000\n"
	    "memory_mb = 65536\npids = 8\n"
	    "output_bytes = 1048576\nmax_running = 64\nuser = \"tools\"\n"
	    "podman_runtime = \"runc\"\npodman_path = \"/opt/podman\"\n"
	    "bwrap_path = \"bwrap\"\nbxtool_path = \"/opt/bxtool\"\n", NULL);
	assert_int_equal(c->c_runner.cr_kind, RUNNER_BWRAP);
	assert_string_equal(c->c_runner.cr_root, "/srv/root");
	assert_int_equal(c->c_runner.cr_timeout_ms, 100);
	assert_int_equal(c->c_runner.cr_start_timeout_ms, 600000);
	assert_int_equal(c->c_runner.cr_memory_mb, 65536);
	assert_int_equal(c->c_runner.cr_pids, 8);
	assert_int_equal(c->c_runner.cr_output_bytes, 1048576);
	assert_int_equal(c->c_runner.cr_max_running, 64);
	assert_string_equal(c->c_runner.cr_user, "tools");
	assert_string_equal(c->c_runner.cr_podman_runtime, "runc");
	assert_string_equal(c->c_runner.cr_podman_path, "/opt/podman");
	assert_string_equal(c->c_runner.cr_bwrap_path, "bwrap");
	assert_string_equal(c->c_runner.cr_bxtool_path, "/opt/bxtool");
	config_free(c);
	c = parse("[runner]\nkind = \"refuse\"\nuser = \"\"\n", NULL);
	assert_int_equal(c->c_runner.cr_kind, RUNNER_REFUSE);
	assert_null(c->c_runner.cr_user);
	config_free(c);
	refused("[runner]\nkind = \"docker\"\n",
	    "brokerd.toml:2: runner.kind must be \"podman\", \"bwrap\" or");
	refused("[runner]\ntimeout = 5\n",
	    "brokerd.toml:2: unknown key \"runner.timeout\"");
	refused("[runner]\n\ntimeout_ms = 99\n",
	    "brokerd.toml:3: runner.timeout_ms must be 100 to 3600000");
	refused("[runner]\ntimeout_ms = 3600001\n", "100 to 3600000");
	refused("[runner]\nstart_timeout_ms = 999\n",
	    "brokerd.toml:2: runner.start_timeout_ms must be 1000 to 600000");
	refused("[runner]\nmemory_mb = 15\n", "runner.memory_mb must be 16 to "
	    "65536");
	refused("[runner]\npids = 65537\n", "runner.pids must be 8 to 65536");
	refused("[runner]\noutput_bytes = 1023\n",
	    "runner.output_bytes must be 1024 to 1048576");
	refused("[runner]\nmax_running = 0\n", "runner.max_running must be 1 "
	    "to 64");
	refused("[runner]\nmax_running = \"4\"\n",
	    "runner.max_running must be an integer");
	refused("[runner]\nkind = 1\n", "runner.kind must be a string");
	refused("[runner]\nbxtool_path = \"bxtool\"\n",
	    "runner.bxtool_path: not an absolute path");
	refused("[runner]\npodman_path = \"\"\n", "runner.podman_path must "
	    "be 1 to");
	refused("[runner]\nbwrap_path = \"bin/bwrap\"\n",
	    "runner.bwrap_path: not an absolute path");
	refused("runner = 1\n", "\"runner\" must be a table");
}

/* [egress]: the defaults, every key, and the refusals naming key and line. */
static void
test_egress(void **state)
{
	struct config *c;

	(void)state;
	c = parse("", NULL);
	assert_int_equal(c->c_runner.cr_connect_timeout_ms, 10000);
	assert_int_equal(c->c_runner.cr_max_bytes, 16777216);
	assert_null(c->c_runner.cr_ca_file);
	assert_null(c->c_runner.cr_bxegress_path);
	assert_int_equal(c->c_runner.cr_nallow, 0);
	config_free(c);
	c = parse("[egress]\nconnect_timeout_ms = 100\n"
	    "max_bytes = 1073741824\nca_file = \"/srv/ca.pem\"\n"
	    "bxegress_path = \"/opt/bxegress\"\n"
	    "allow_addresses = [\"10.200.0.0/30\", \"fd00:1::/64\"]\n",
	    NULL);
	assert_int_equal(c->c_runner.cr_connect_timeout_ms, 100);
	assert_int_equal(c->c_runner.cr_max_bytes, 1073741824);
	assert_string_equal(c->c_runner.cr_ca_file, "/srv/ca.pem");
	assert_string_equal(c->c_runner.cr_bxegress_path, "/opt/bxegress");
	assert_int_equal(c->c_runner.cr_nallow, 2);
	assert_string_equal(c->c_runner.cr_allow_text[1], "fd00:1::/64");
	assert_int_equal(c->c_runner.cr_allow[0].c_prefix, 30);
	config_free(c);
	refused("[egress]\nconnect_timeout_ms = 60001\n",
	    "brokerd.toml:2: egress.connect_timeout_ms must be 100 to 60000");
	refused("[egress]\nmax_bytes = 1023\n",
	    "egress.max_bytes must be 1024 to 1073741824");
	refused("[egress]\nca_file = \"ca.pem\"\n",
	    "egress.ca_file: not an absolute path");
	refused("[egress]\nproxy = 1\n",
	    "brokerd.toml:2: unknown key \"egress.proxy\"");
	refused("[egress]\nallow_addresses = \"10.200.0.0/30\"\n",
	    "egress.allow_addresses must be an array of strings");
	refused("[egress]\nallow_addresses = [\n\"10.200.0.0/30\",\n"
	    "\"127.0.0.0/8\"]\n", "brokerd.toml:4: egress.allow_addresses[1] "
	    "\"127.0.0.0/8\" covers loopback");
	refused("[egress]\nallow_addresses = [\"10.0.0.0/7\"]\n",
	    "wider than /8");
	refused("[egress]\nallow_addresses = [1]\n",
	    "egress.allow_addresses[0] must be a CIDR string");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_runner),
		cmocka_unit_test(test_egress),
		cmocka_unit_test(test_env_home),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_env_bad),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
