/* test-config.c: loopd.toml, its defaults and its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loopd/config.h"
#include "proto/defaults.h"
#include "testutil.h"

/* default_home NULL stands for root's default home. */
static struct loop_config *
parse(const char *text, const char *default_home)
{
	struct loop_config *c = NULL;
	struct bx_error err;

	if (default_home == NULL)
		default_home = BX_ROOT_HOME;
	if (loop_config_parse("loopd.toml", text, strlen(text), default_home, &c,
	    &err) == -1)
		fail_msg("%s", err.msg);
	return c;
}

static void
refused(const char *text, const char *says)
{
	struct loop_config *c = NULL;
	struct bx_error err;

	assert_int_equal(loop_config_parse("loopd.toml", text, strlen(text),
	    BX_ROOT_HOME, &c, &err), -1);
	assert_null(c);
	if (strstr(err.msg, says) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, says);
}

static void
test_full(void **state)
{
	struct loop_config *c;

	(void)state;
	c = parse("[paths]\nhome = \"/h\"\n[sockets]\nloop = \"/s/loop.sock\"\n"
	    "[model]\nurl = \"http://127.0.0.1:8080\"\nmodel = \"qwen\"\n"
	    "timeout_s = 30\napi_key_file = \"/etc/boxmaker/llama.key\"\n"
	    "max_tokens = 512\n"
	    "[broker]\nsocket = \"/b/broker.sock\"\n"
	    "[turn]\nmax_steps = 4\nmax_s = 90\n", "/env");
	assert_string_equal(c->lc_home, "/h");
	assert_string_equal(c->lc_loop_socket, "/s/loop.sock");
	assert_string_equal(c->lc_model_url, "http://127.0.0.1:8080");
	assert_string_equal(c->lc_model, "qwen");
	assert_int_equal(c->lc_timeout_s, 30);
	assert_string_equal(c->lc_api_key_file, "/etc/boxmaker/llama.key");
	assert_string_equal(c->lc_broker_socket, "/b/broker.sock");
	assert_int_equal(c->lc_max_steps, 4);
	assert_int_equal(c->lc_max_tokens, 512);
	assert_int_equal(c->lc_max_turn_s, 90);
	loop_config_free(c);
}

static void
test_defaults(void **state)
{
	struct loop_config *c;

	(void)state;
	c = parse("[model]\nurl = \"http://m\"\n", "/env/home");
	assert_string_equal(c->lc_home, "/env/home");
	assert_string_equal(c->lc_loop_socket,
	    "/env/home/run/owner-loop/loop.sock");
	assert_string_equal(c->lc_model, LOOP_CONFIG_DEFAULT_MODEL);
	assert_int_equal(c->lc_timeout_s, LOOP_CONFIG_DEFAULT_TIMEOUT_S);
	assert_null(c->lc_broker_socket);
	assert_null(c->lc_api_key_file);
	assert_int_equal(c->lc_max_steps, 16);
	assert_int_equal(c->lc_max_tokens, 4096);
	assert_int_equal(c->lc_max_turn_s, 1800);
	loop_config_free(c);
	c = parse("[model]\nurl = \"http://m\"\n", NULL);
	assert_string_equal(c->lc_home, "/var/lib/boxmaker");
	loop_config_free(c);
}

static void
test_refusals(void **state)
{
	(void)state;
	refused("[model]\nurl = \"http://m\"\ncolour = 1\n",
	    "loopd.toml:3: unknown key \"model.colour\"");
	refused("[model]\nurl = \"http://m\"\n\n[extra]\n",
	    "loopd.toml:4: unknown table or key \"extra\"");
	refused("home = \"/x\"\n[model]\nurl = \"http://m\"\n",
	    "loopd.toml:1: unknown table or key \"home\"");
	refused("[paths]\nhome = \"/x\"\n", "[model] url is required");
	refused("[model]\nurl = \"http://m\"\n[broker]\n",
	    "[broker] needs socket");
	refused("[model]\nurl = \"http://m\"\n[broker]\nsocket = \"rel\"\n",
	    "loopd.toml:4: broker.socket: not an absolute path");
	refused("[model]\nurl = \"http://m\"\napi_key_file = \"key\"\n",
	    "loopd.toml:3: model.api_key_file: not an absolute path");
	refused("[model]\nurl = \"http://m\"\ntimeout_s = \"5\"\n",
	    "loopd.toml:3: model.timeout_s must be an integer");
	refused("[model]\nurl = \"http://m\"\ntimeout_s = 0\n",
	    "model.timeout_s must be 1 to");
	refused("[model]\nurl = \"http://m\"\n[turn]\nmax_steps = 0\n",
	    "turn.max_steps must be 1 to");
	refused("[model]\nurl = \"http://m\"\nmax_tokens = 0\n",
	    "loopd.toml:3: model.max_tokens must be 1 to 1048576");
	refused("[model]\nurl = \"http://m\"\nmax_tokens = 1048577\n",
	    "loopd.toml:3: model.max_tokens must be 1 to 1048576");
	refused("[model]\nurl = \"http://m\"\nmax_tokens = 4096.0\n",
	    "loopd.toml:3: model.max_tokens must be an integer");
	refused("[model]\nurl = \"http://m\"\n[turn]\nmax_s = 0\n",
	    "loopd.toml:4: turn.max_s must be 1 to 86400");
	refused("[model]\nurl = \"http://m\"\n[turn]\nmax_s = 86401\n",
	    "loopd.toml:4: turn.max_s must be 1 to 86400");
	refused("[model]\nurl = \"http://m\"\n[turn]\nmax_s = -5\n",
	    "loopd.toml:4: turn.max_s must be 1 to 86400");
	refused("[model]\nurl = \"\"\n",
	    "loopd.toml:2: model.url must be 1 to 2048 bytes without NUL");
	refused("[model]\nurl = \"http://m\"\n[paths]\nhome = \"/a/../b\"\n",
	    "loopd.toml:4: paths.home: has a . or .. component");
	refused("[model]\nurl = \"http://m\"\n[broker]\nsocket = \"/run//b.sock\"\n",
	    "loopd.toml:4: broker.socket: has an empty component");
	refused("[model]\nurl = \"http://m\"\n[sockets]\nloop = \"/"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n",
	    "at most 107 bytes");
	refused("[model]\nurl = \"http://m\"\n[model]\n", "loopd.toml:3");
	refused("[model]\nurl = 'x'\nurl = 'y'\n", "loopd.toml:3");
}

static void
test_load_missing_file(void **state)
{
	struct loop_config *c = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(loop_config_load("/nonexistent/loopd.toml", &c,
	    &err), -1);
	assert_string_equal(err.msg, "/nonexistent/loopd.toml: cannot open: "
	    "No such file or directory");
	assert_null(c);
}

static void
test_load_not_a_config_file(void **state)
{
	char *dir = tu_tmpdir(), path[4096], want[4200], *big;
	struct loop_config *c = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(loop_config_load(dir, &c, &err), -1);
	snprintf(want, sizeof(want), "%s is a directory, not loopd.toml", dir);
	assert_string_equal(err.msg, want);
	assert_null(c);

	assert_non_null(big = malloc(LOOP_CONFIG_FILE_MAX + 1));
	memset(big, '#', LOOP_CONFIG_FILE_MAX + 1);
	tu_write(dir, "big.toml", big, LOOP_CONFIG_FILE_MAX + 1);
	free(big);
	snprintf(path, sizeof(path), "%s/big.toml", dir);
	assert_int_equal(loop_config_load(path, &c, &err), -1);
	snprintf(want, sizeof(want), "%s is larger than %d bytes", path,
	    LOOP_CONFIG_FILE_MAX);
	assert_string_equal(err.msg, want);
	assert_null(c);
	tu_rmtree(dir);
}

/* examples/loopd.toml names the paths loopd and brokerd use by default. */
static void
test_example_matches_defaults(void **state)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	struct loop_config *c;
	char *text;

	(void)state;
	assert_non_null(root);
	text = tu_read(root, "examples/loopd.toml");
	assert_non_null(text);
	c = parse(text, NULL);
	free(text);
	assert_string_equal(c->lc_home, BX_ROOT_HOME);
	assert_string_equal(c->lc_broker_socket, BX_ROOT_HOME
	    "/run/loop-broker/broker.sock");
	assert_string_equal(c->lc_loop_socket, BX_ROOT_HOME
	    "/run/owner-loop/loop.sock");
	assert_null(c->lc_api_key_file);
	assert_int_equal(c->lc_max_tokens, LOOP_CONFIG_DEFAULT_MAX_TOKENS);
	assert_int_equal(c->lc_max_turn_s, LOOP_CONFIG_DEFAULT_TURN_S);
	loop_config_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_load_not_a_config_file),
		cmocka_unit_test(test_example_matches_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
