/*
 * test-config.c: bxbridge.toml (src/bxbridge/config.h): a full file, the
 * defaults, every required key, and the refusals, each naming the file,
 * line and key; the file read from disk and a directory refused.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bxbridge/config.h"

#define OWNER	"k4d3m7x9p2q8r5s1t6u0v3w8yz"
#define MM	"[mattermost]\n"
#define TOKEN	"token_file = \"/etc/boxmaker/bridge.token\"\n"
#define WHO	"owner = \"" OWNER "\"\n"
#define BROKER	"[broker]\nsocket = \"/h/run/bridge-broker/bridge.sock\"\n"

static struct bridge_config *
parse(const char *text)
{
	struct bridge_config *c = NULL;
	struct bx_error err;

	if (bridge_config_parse("bxbridge.toml", text, strlen(text), &c,
	    &err) == -1)
		fail_msg("%s", err.msg);
	return c;
}

static void
refused(const char *text, const char *says)
{
	struct bridge_config *c = NULL;
	struct bx_error err;

	assert_int_equal(bridge_config_parse("bxbridge.toml", text,
	    strlen(text), &c, &err), -1);
	assert_null(c);
	if (strstr(err.msg, says) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, says);
}

/* A whole file but for its url line. */
static void
url_refused(const char *url, const char *says)
{
	char text[4096];

	snprintf(text, sizeof(text), MM "url = \"%s\"\n" TOKEN WHO BROKER,
	    url);
	refused(text, says);
}

static void
url_kept(const char *url, const char *want)
{
	struct bridge_config *c;
	char text[4096];

	snprintf(text, sizeof(text), MM "url = \"%s\"\n" TOKEN WHO BROKER,
	    url);
	c = parse(text);
	assert_string_equal(c->bc_url, want);
	bridge_config_free(c);
}

static void
test_full(void **state)
{
	struct bridge_config *c;

	(void)state;
	c = parse("# the bridge\n" MM "url = \"https://chat.example.org\"\n"
	    TOKEN WHO "poll_s = 10\nca_file = \"/etc/boxmaker/ca.pem\"\n"
	    BROKER);
	assert_string_equal(c->bc_url, "https://chat.example.org");
	assert_string_equal(c->bc_token_file, "/etc/boxmaker/bridge.token");
	assert_string_equal(c->bc_owner, OWNER);
	assert_int_equal(c->bc_poll_s, 10);
	assert_string_equal(c->bc_ca_file, "/etc/boxmaker/ca.pem");
	assert_string_equal(c->bc_broker_socket,
	    "/h/run/bridge-broker/bridge.sock");
	bridge_config_free(c);
}

static void
test_defaults(void **state)
{
	struct bridge_config *c;

	(void)state;
	c = parse(MM "url = \"https://chat.example.org\"\n" TOKEN WHO BROKER);
	assert_int_equal(c->bc_poll_s, BRIDGE_CONFIG_DEFAULT_POLL_S);
	assert_int_equal(c->bc_poll_s, 3);
	assert_null(c->bc_ca_file);
	bridge_config_free(c);
	bridge_config_free(NULL);
}

static void
test_required(void **state)
{
	(void)state;
	refused("", "bxbridge.toml: [mattermost] url is required");
	refused(MM TOKEN WHO BROKER, "[mattermost] url is required");
	refused(MM "url = \"https://c.example.org\"\n" WHO BROKER,
	    "[mattermost] token_file is required");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN BROKER,
	    "[mattermost] owner is required");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO,
	    "[broker] socket is required");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO "[broker]\n",
	    "[broker] socket is required");
}

static void
test_unknown(void **state)
{
	(void)state;
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO
	    "pol_s = 3\n" BROKER,
	    "bxbridge.toml:5: unknown key \"mattermost.pol_s\"");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO BROKER
	    "[paths]\nhome = \"/h\"\n",
	    "bxbridge.toml:7: unknown table or key \"paths\"");
	refused("token = \"x\"\n", "bxbridge.toml:1: unknown table or key "
	    "\"token\"");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO BROKER
	    "timeout = 3\n", "unknown key \"broker.timeout\"");
	/* The parser is the strict one: a key twice is an error. */
	refused(MM "url = \"https://a.example.org\"\n"
	    "url = \"https://b.example.org\"\n" TOKEN WHO BROKER,
	    "bxbridge.toml:3:");
}

static void
test_poll(void **state)
{
	(void)state;
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO
	    "poll_s = 0\n" BROKER,
	    "bxbridge.toml:5: mattermost.poll_s must be 1 to 60");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO
	    "poll_s = 61\n" BROKER, "mattermost.poll_s must be 1 to 60");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO
	    "poll_s = \"3\"\n" BROKER, "mattermost.poll_s must be an integer");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO
	    "poll_s = 1.5\n" BROKER, "mattermost.poll_s must be an integer");
}

static void
test_owner(void **state)
{
	static const char *const bad[] = {
		"k4d3m7x9p2q8r5s1t6u0v3w8y",	/* 25 */
		"k4d3m7x9p2q8r5s1t6u0v3w8yzz",	/* 27 */
		"K4d3m7x9p2q8r5s1t6u0v3w8yz",	/* upper case */
		"k4d3m7x9p2q8r5s1t6u0v3w8y-",
		"@k4d3m7x9p2q8r5s1t6u0v3w8y",
		"",
	};
	char text[1024];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), MM "url = \"https://c.example."
		    "org\"\n" TOKEN "owner = \"%s\"\n" BROKER, bad[i]);
		refused(text, "bxbridge.toml:4: mattermost.owner must be a "
		    "Mattermost user id: 26 characters of a-z and 0-9");
	}
	refused(MM "url = \"https://c.example.org\"\n" TOKEN "owner = 7\n"
	    BROKER, "mattermost.owner must be a Mattermost user id");
}

static void
test_url(void **state)
{
	(void)state;
	url_kept("https://chat.example.org", "https://chat.example.org");
	url_kept("https://chat.example.org/", "https://chat.example.org");
	url_kept("https://chat.example.org:8443/team/",
	    "https://chat.example.org:8443/team");
	url_kept("https://10.1.2.3", "https://10.1.2.3");
	url_kept("https://[fd00::1]:443", "https://[fd00::1]:443");
	url_kept("https://mattermost", "https://mattermost");
	url_kept("http://127.0.0.1:8065", "http://127.0.0.1:8065");
	url_kept("http://127.0.0.1", "http://127.0.0.1");
	url_kept("http://127.0.0.1/mm", "http://127.0.0.1/mm");

	/* Plain http carries the token in the clear: loopback only. */
	url_refused("http://chat.example.org", "bxbridge.toml:2: "
	    "mattermost.url may use http:// only for 127.0.0.1");
	url_refused("http://127.0.0.1.example.org",
	    "may use http:// only for 127.0.0.1");
	url_refused("http://127.0.0.10:8065",
	    "may use http:// only for 127.0.0.1");
	url_refused("http://localhost:8065",
	    "may use http:// only for 127.0.0.1");
	url_refused("http://[::1]:8065", "may use http:// only for 127.0.0.1");
	url_refused("ftp://chat.example.org", "must start with https://");
	url_refused("HTTPS://chat.example.org", "must start with https://");
	url_refused("chat.example.org", "must start with https://");
	url_refused("https://", "must start with https://");
	url_refused("https:///path", "needs a host");
	url_refused("https://user:pw@chat.example.org",
	    "must not carry a user name or password");
	url_refused("http://x@127.0.0.1", "must not carry a user name");
	url_refused("https://chat.example.org:0", "needs a host");
	url_refused("https://chat.example.org:65536", "needs a host");
	url_refused("https://chat.example.org:", "needs a host");
	url_refused("https://chat.example.org:08443", "needs a host");
	url_refused("https://chat_example.org", "needs a host");
	url_refused("https://[fd00::1", "needs a host");
	url_refused("https://[]", "needs a host");
	url_refused("https://chat.example.org/?x=1", "no query");
	url_refused("https://chat.example.org/#top", "no query");
	url_refused("https://chat.example.org/a b", "printable ASCII");
	url_refused("https://chat.example.org/\\u00e9", "printable ASCII");
	url_refused("https://chat.example.org/\\u0007", "printable ASCII");
	refused(MM "url = 443\n" TOKEN WHO BROKER,
	    "bxbridge.toml:2: mattermost.url must be a string");
	refused(MM "url = \"\"\n" TOKEN WHO BROKER,
	    "mattermost.url must be 1 to 2048 bytes");
}

static void
test_paths(void **state)
{
	(void)state;
	refused(MM "url = \"https://c.example.org\"\n"
	    "token_file = \"bridge.token\"\n" WHO BROKER,
	    "bxbridge.toml:3: mattermost.token_file: ");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO
	    "ca_file = \"../ca.pem\"\n" BROKER,
	    "bxbridge.toml:5: mattermost.ca_file: ");
	refused(MM "url = \"https://c.example.org\"\n" TOKEN WHO
	    "[broker]\nsocket = \"/tmp/"
	    "0123456789012345678901234567890123456789012345678901234567890123"
	    "456789012345678901234567890123456789/bridge.sock\"\n",
	    "bxbridge.toml:6: broker.socket: ");
}

static void
test_load(void **state)
{
	static const char text[] = MM "url = \"http://127.0.0.1:8065\"\n"
	    TOKEN WHO BROKER;
	char dir[] = "/tmp/test-bxbridge-config.XXXXXX", path[128];
	struct bridge_config *c = NULL;
	struct bx_error err;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/bxbridge.toml", dir);
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(bridge_config_load(path, &c, &err), 0);
	assert_string_equal(c->bc_url, "http://127.0.0.1:8065");
	bridge_config_free(c);

	c = NULL;
	assert_int_equal(bridge_config_load(dir, &c, &err), -1);
	assert_null(c);
	assert_non_null(strstr(err.msg, "is a directory, not bxbridge.toml"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(bridge_config_load(path, &c, &err), -1);
	assert_non_null(strstr(err.msg, path));

	/* The default is bxbridge.toml in the configuration directory. */
	assert_int_equal(setenv("XDG_CONFIG_HOME", dir, 1), 0);
	assert_int_equal(setenv("HOME", dir, 1), 0);
	assert_int_equal(bridge_config_load(NULL, &c, &err), -1);
	assert_non_null(strstr(err.msg, "no configuration at "));
	assert_non_null(strstr(err.msg, "/boxmaker/bxbridge.toml: write one"));
	assert_int_equal(rmdir(dir), 0);
}

/* examples/bxbridge.toml loads, with what its comments say. */
static void
test_example(void **state)
{
	struct bridge_config *c = NULL;
	const char *root = getenv("BX_SOURCE_ROOT");
	struct bx_error err;
	char path[4096];

	(void)state;
	assert_non_null(root);
	snprintf(path, sizeof(path), "%s/examples/bxbridge.toml", root);
	if (bridge_config_load(path, &c, &err) == -1)
		fail_msg("%s", err.msg);
	assert_string_equal(c->bc_url, "https://chat.example.org");
	assert_string_equal(c->bc_owner, OWNER);
	assert_int_equal(c->bc_poll_s, BRIDGE_CONFIG_DEFAULT_POLL_S);
	assert_null(c->bc_ca_file);
	assert_string_equal(c->bc_broker_socket,
	    "/var/lib/boxmaker/run/bridge-broker/bridge.sock");
	bridge_config_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_required),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_poll),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
