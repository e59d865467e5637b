/*
 * secret_call.c: a secret read for one call, its host checked, and made
 * into what the runner needs (secret_call.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/secret.h"
#include "brokerd/secret_call.h"
#include "proto/types.h"
#include "proto/wipe.h"

/* "Basic " before basic's base64 of user:value in its header value. */
#define BASIC_PREFIX	"Basic "

struct secret_call {
	char			 sc_name[BX_ID_MAX + 1];
	char			*sc_header;	/* "Name: value\n" */
	size_t			 sc_header_len;
	struct bx_redactor	*sc_redactor;
};

static int
unusable(struct bx_error *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
unusable(struct bx_error *err, const char *name, const char *fmt, ...)
{
	char why[BX_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return bx_fail(err, "the secret %s cannot be used: %s; "
	    SECRET_CALL_RUNBOOK, name, why);
}

/*
 * The forms an echo is searched for (redact.h): the value, the whole
 * header value, and for basic the base64 of user:value alone.
 */
static struct bx_redactor *
redactor_of(const struct secret *s, struct bx_error *err)
{
	const char *forms[3], *hv = secret_header_value(s);
	size_t n = 0;

	forms[n++] = secret_value(s);
	if (strcmp(hv, forms[0]) != 0)
		forms[n++] = hv;
	if (secret_kind(s) == SECRET_BASIC &&
	    strncmp(hv, BASIC_PREFIX, strlen(BASIC_PREFIX)) == 0)
		forms[n++] = hv + strlen(BASIC_PREFIX);
	return bx_redactor_new(secret_name(s), forms, n, err);
}

static int
build(struct secret_call *sc, const struct secret *s, struct bx_error *err)
{
	const char *name = secret_header_name(s), *hv = secret_header_value(s);
	struct bx_error rerr;

	sc->sc_header_len = strlen(name) + 2 + strlen(hv) + 1;
	if ((sc->sc_header = malloc(sc->sc_header_len + 1)) == NULL)
		return unusable(err, sc->sc_name, "out of memory");
	snprintf(sc->sc_header, sc->sc_header_len + 1, "%s: %s\n", name, hv);
	if ((sc->sc_redactor = redactor_of(s, &rerr)) == NULL)
		return unusable(err, sc->sc_name, "its redaction cannot be "
		    "made: %s", rerr.msg);
	return 0;
}

int
secret_call_open(const char *config_dir, const char *name, const char *host,
    struct secret_call **ret, struct bx_error *err)
{
	struct secret_call *sc = NULL;
	struct secret *s = NULL;
	struct bx_error why;
	int rc = -1;

	if (config_dir == NULL)
		return unusable(err, name, "brokerd was started without a "
		    "configuration directory to find it in");
	if (secret_load(config_dir, name, &s, &why) == -1)
		return unusable(err, name, "%s", why.msg);
	if (!secret_has_host(s, host)) {
		unusable(err, name, "%s is not among its hosts (%s:%lld); "
		    "nothing was sent", host, secret_file(s),
		    (long long)secret_hosts_line(s));
		goto out;
	}
	if ((sc = calloc(1, sizeof(*sc))) == NULL) {
		unusable(err, name, "out of memory");
		goto out;
	}
	snprintf(sc->sc_name, sizeof(sc->sc_name), "%s", secret_name(s));
	if (build(sc, s, err) == -1)
		goto out;
	*ret = sc;
	sc = NULL;
	rc = 0;
out:
	secret_call_free(sc);
	secret_free(s);
	return rc;
}

void
secret_call_free(struct secret_call *sc)
{
	if (sc == NULL)
		return;
	bx_wipe_free(sc->sc_header, sc->sc_header_len);
	bx_redactor_free(sc->sc_redactor);
	free(sc);
}

const char *
secret_call_name(const struct secret_call *sc)
{
	return sc->sc_name;
}

const char *
secret_call_header(const struct secret_call *sc)
{
	return sc->sc_header;
}

const struct bx_redactor *
secret_call_redactor(const struct secret_call *sc)
{
	return sc->sc_redactor;
}
