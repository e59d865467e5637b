/*
 * options.c: bxegress's command line (bxegress.h). brokerd writes it, but
 * it is checked as closely as a peer's input: every number in its range,
 * every pattern and CIDR by the same functions brokerd's configuration
 * uses, each option once (--allow excepted), and nothing unknown. Every
 * option before --allow must be given; brokerd always gives --seccomp too.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bxegress/bxegress.h"
#include "proto/help.h"
#include "proto/hostname.h"

/* The highest descriptor Linux hands out by default (fs.nr_open). */
#define EGRESS_FD_MAX		1048576

enum option {
	OPT_LISTEN_FD,
	OPT_REPORT_FD,
	OPT_CONNECT_MS,
	OPT_IDLE_MS,
	OPT_MAX_BYTES,
	OPT_ALLOW,
	OPT_SECCOMP,
	OPT_MAX
};

static const char *const option_names[OPT_MAX] = {
	[OPT_LISTEN_FD] = "--listen-fd",
	[OPT_REPORT_FD] = "--report-fd",
	[OPT_CONNECT_MS] = "--connect-timeout-ms",
	[OPT_IDLE_MS] = "--idle-timeout-ms",
	[OPT_MAX_BYTES] = "--max-bytes",
	[OPT_ALLOW] = "--allow",
	[OPT_SECCOMP] = "--seccomp",
};

static const char usage_text[] =
    "usage: bxegress --listen-fd N --report-fd N --connect-timeout-ms MS\n"
    "           --idle-timeout-ms MS --max-bytes N [--allow CIDR]...\n"
    "           [--seccomp FILE] -- PATTERN...\n";

static void
usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	die(EXIT_USAGE, usage_text, fmt, ap);
}

/* Decimal digits only, from min to max; no sign, no spaces, no suffix. */
static uint64_t
number(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = 0;
	const char *p;

	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' || p - s >= 12)
			break;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s || *p != '\0' || v < min || v > max)
		usage("%s \"%s\" is not a number from %llu to %llu", opt, s,
		    (unsigned long long)min, (unsigned long long)max);
	return v;
}

static enum option
find_option(const char *arg)
{
	int o;

	for (o = 0; o < OPT_MAX; o++)
		if (strcmp(arg, option_names[o]) == 0)
			return (enum option)o;
	usage("unknown option \"%s\"", arg);
}

static void
set_allow(struct egress_config *cfg, const char *text)
{
	struct bx_error err;

	if (cfg->ec_nallow == BX_CIDR_MAX_ALLOW)
		usage("at most %d --allow ranges", BX_CIDR_MAX_ALLOW);
	if (bx_cidr_parse(text, &cfg->ec_allow[cfg->ec_nallow], &err) == -1)
		usage("--allow \"%s\" %s", text, err.msg);
	cfg->ec_nallow++;
}

static void
set_option(struct egress_config *cfg, enum option o, const char *v)
{
	const char *name = option_names[o];

	switch (o) {
	case OPT_LISTEN_FD:
		cfg->ec_listen_fd = (int)number(name, v, 0, EGRESS_FD_MAX);
		break;
	case OPT_REPORT_FD:
		cfg->ec_report_fd = (int)number(name, v, 0, EGRESS_FD_MAX);
		break;
	case OPT_CONNECT_MS:
		cfg->ec_connect_ms = (int)number(name, v, EGRESS_CONNECT_MIN,
		    EGRESS_CONNECT_MAX);
		break;
	case OPT_IDLE_MS:
		cfg->ec_idle_ms = (int)number(name, v, EGRESS_IDLE_MIN,
		    EGRESS_IDLE_MAX);
		break;
	case OPT_MAX_BYTES:
		cfg->ec_max_bytes = number(name, v, EGRESS_BYTES_MIN,
		    EGRESS_BYTES_MAX);
		break;
	case OPT_SECCOMP:
		if (v[0] != '/')
			usage("--seccomp \"%s\" is not an absolute path", v);
		cfg->ec_seccomp = v;
		break;
	case OPT_ALLOW:
	case OPT_MAX:
		set_allow(cfg, v);
		break;
	}
}

static void
set_patterns(struct egress_config *cfg, char *const *patterns, size_t n)
{
	struct bx_error err;
	size_t i;

	if (n == 0)
		usage("no host pattern after --");
	if (n > EGRESS_MAX_PATTERNS)
		usage("at most %d host patterns", EGRESS_MAX_PATTERNS);
	for (i = 0; i < n; i++)
		if (bx_host_pattern_check(patterns[i], strlen(patterns[i]),
		    &err) == -1)
			usage("host pattern \"%s\": %s", patterns[i], err.msg);
	cfg->ec_patterns = (const char *const *)patterns;
	cfg->ec_npatterns = n;
}

void
options_parse(int argc, char *argv[], struct egress_config *cfg)
{
	bool seen[OPT_MAX] = { false };
	enum option o;
	int i;

	if (bx_help_asked(argc, argv, 1) ||
	    (argc == 2 && strcmp(argv[1], "help") == 0)) {
		fputs(usage_text, stdout);
		exit(fflush(stdout) == 0 ? 0 : EXIT_USAGE);
	}
	memset(cfg, 0, sizeof(*cfg));
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
		o = find_option(argv[i]);
		if (i + 1 >= argc)
			usage("%s needs a value", argv[i]);
		if (o != OPT_ALLOW && seen[o])
			usage("%s is given twice", argv[i]);
		seen[o] = true;
		set_option(cfg, o, argv[i + 1]);
	}
	if (i >= argc)
		usage("no -- before the host patterns");
	for (o = 0; o < OPT_ALLOW; o++)
		if (!seen[o])
			usage("%s is missing", option_names[o]);
	if (cfg->ec_listen_fd == cfg->ec_report_fd)
		usage("--listen-fd and --report-fd are the same descriptor");
	set_patterns(cfg, argv + i + 1, (size_t)(argc - i - 1));
}
