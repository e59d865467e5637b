/*
 * mm_http.c: one JSON request to Mattermost over libcurl, its answer
 * bounded to MM_MAX_BODY and every failure classified (see mm_http.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "proto/json.h"
#include "proto/utf8.h"
#include "mm_http.h"

struct mm_http {
	CURL			*h_curl;	/* kept: its connection is reused */
	struct curl_slist	*h_headers;	/* the first one holds the token */
	char			*h_url;		/* base, no trailing "/" */
	char			*h_ca_file;
	char			*h_unix_socket;
	bool			 h_https;
	long			 h_connect_timeout_s;
	long			 h_timeout_s;
	int			 h_rate_wait_s;
};

/* One answer's body, read up to MM_MAX_BODY. */
struct body {
	char	*b_data;
	size_t	 b_len;
	bool	 b_too_large;
};

static size_t
collect(char *ptr, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t len = size * n;
	char *grown;

	if (len > MM_MAX_BODY - b->b_len) {
		b->b_too_large = true;
		return 0;
	}
	if ((grown = realloc(b->b_data, b->b_len + len + 1)) == NULL)
		return 0;
	memcpy(grown + b->b_len, ptr, len);
	b->b_len += len;
	grown[b->b_len] = '\0';
	b->b_data = grown;
	return len;
}

/* The token may go in a header: printable ASCII without spaces. */
static int
check_token(const char *token, size_t len, struct bx_error *err)
{
	size_t i;

	if (token == NULL || len == 0)
		return bx_fail(err, "the Mattermost token is empty");
	if (len > MM_TOKEN_MAX)
		return bx_fail(err, "the Mattermost token has %zu bytes, over "
		    "the limit of %d", len, MM_TOKEN_MAX);
	for (i = 0; i < len; i++)
		if (token[i] <= ' ' || token[i] > '~')
			return bx_fail(err, "the Mattermost token has a "
			    "character that cannot go in an HTTP header, at "
			    "byte %zu (a newline or a space?)", i + 1);
	return 0;
}

/*
 * The URL rule: https, or http to 127.0.0.1 only; no user, query or
 * fragment. Sets *ret_https.
 */
static int
check_url(const char *url, bool *ret_https, struct bx_error *err)
{
	char *scheme = NULL, *host = NULL, *part = NULL;
	CURLU *u;
	int r = -1;

	if (url == NULL || url[0] == '\0')
		return bx_fail(err, "the Mattermost url is empty");
	if (strlen(url) >= MM_URL_MAX)
		return bx_fail(err, "the Mattermost url is longer than %d "
		    "bytes", MM_URL_MAX - 1);
	if ((u = curl_url()) == NULL)
		return bx_fail(err, "out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		bx_fail(err, "the Mattermost url \"%s\" is not a URL", url);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &part, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_QUERY, &part, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_FRAGMENT, &part, 0) == CURLUE_OK) {
		bx_fail(err, "the Mattermost url \"%s\" has a user, a query "
		    "or a fragment; give only https://host[:port][/path]", url);
		goto out;
	}
	if (strcmp(scheme, "https") == 0)
		*ret_https = true;
	else if (strcmp(scheme, "http") == 0 && strcmp(host, "127.0.0.1") == 0)
		*ret_https = false;
	else {
		bx_fail(err, "the Mattermost url \"%s\" must be https (http "
		    "only for 127.0.0.1)", url);
		goto out;
	}
	r = 0;
out:
	curl_free(part);
	curl_free(host);
	curl_free(scheme);
	curl_url_cleanup(u);
	return r;
}

static char *
strdup_or_null(const char *s, bool *failed)
{
	char *copy;

	if (s == NULL)
		return NULL;
	if ((copy = strdup(s)) == NULL)
		*failed = true;
	return copy;
}

/* The headers of every request; the first carries the token. */
static struct curl_slist *
make_headers(const char *token, size_t len)
{
	static const char prefix[] = "Authorization: Bearer ";
	struct curl_slist *list, *more;
	char auth[sizeof(prefix) + MM_TOKEN_MAX];

	snprintf(auth, sizeof(auth), "%s%.*s", prefix, (int)len, token);
	list = curl_slist_append(NULL, auth);
	explicit_bzero(auth, sizeof(auth));
	if (list == NULL)
		return NULL;
	if ((more = curl_slist_append(list, "Accept: application/json")) ==
	    NULL ||
	    (more = curl_slist_append(list, "Content-Type: application/json"))
	    == NULL ||
	    (more = curl_slist_append(list, "Expect:")) == NULL) {
		explicit_bzero(list->data, strlen(list->data));
		curl_slist_free_all(list);
		return NULL;
	}
	return more;
}

int
mm_http_new(const struct mm_http_opts *opts, struct mm_http **ret,
    struct bx_error *err)
{
	struct mm_http *h;
	bool https = false, failed = false;
	size_t len;

	if (check_url(opts->url, &https, err) == -1 ||
	    check_token(opts->token, opts->token_len, err) == -1)
		return -1;
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return bx_fail(err, "out of memory");
	h->h_https = https;
	h->h_connect_timeout_s = opts->connect_timeout_s > 0 ?
	    opts->connect_timeout_s : MM_CONNECT_TIMEOUT_S;
	h->h_timeout_s = opts->timeout_s > 0 ? opts->timeout_s : MM_TIMEOUT_S;
	h->h_rate_wait_s = MM_RATE_WAIT_DEFAULT_S;
	h->h_url = strdup_or_null(opts->url, &failed);
	h->h_ca_file = strdup_or_null(opts->ca_file, &failed);
	h->h_unix_socket = strdup_or_null(opts->unix_socket, &failed);
	h->h_headers = make_headers(opts->token, opts->token_len);
	h->h_curl = curl_easy_init();
	if (failed || h->h_headers == NULL || h->h_curl == NULL) {
		mm_http_free(h);
		return bx_fail(err, "out of memory");
	}
	len = strlen(h->h_url);
	while (len > 0 && h->h_url[len - 1] == '/')
		h->h_url[--len] = '\0';
	*ret = h;
	return 0;
}

void
mm_http_free(struct mm_http *h)
{
	if (h == NULL)
		return;
	if (h->h_headers != NULL)
		explicit_bzero(h->h_headers->data, strlen(h->h_headers->data));
	curl_slist_free_all(h->h_headers);
	curl_easy_cleanup(h->h_curl);
	free(h->h_url);
	free(h->h_ca_file);
	free(h->h_unix_socket);
	free(h);
}

const char *
mm_http_url(const struct mm_http *h)
{
	return h->h_url;
}

int
mm_http_rate_wait_s(const struct mm_http *h)
{
	return h->h_rate_wait_s;
}

int
mm_rate_wait_s(const char *reset, time_t now)
{
	long long value;
	char *end;

	if (reset == NULL)
		return MM_RATE_WAIT_DEFAULT_S;
	errno = 0;
	value = strtoll(reset, &end, 10);
	if (errno != 0 || end == reset || *end != '\0' || value < 0)
		return MM_RATE_WAIT_DEFAULT_S;
	/* Past a year's seconds it can only be an epoch time. */
	if (value > 366LL * 24 * 3600)
		value -= (long long)now;
	if (value < 1)
		return 1;
	return value > MM_RATE_WAIT_MAX_S ? MM_RATE_WAIT_MAX_S : (int)value;
}

int
mm_backoff_s(unsigned int failures)
{
	if (failures == 0)
		return 0;
	if (failures > 6)
		return MM_BACKOFF_MAX_S;
	return 1 << (failures - 1);
}

/*
 * Copies up to MM_ERROR_QUOTE bytes of a server's text into buf (of at
 * least MM_ERROR_QUOTE + 1), whole UTF-8 characters only, control
 * characters and bytes that are not UTF-8 as '?': it goes into logs and
 * bxctl status.
 */
static void
quote(const char *text, size_t len, char *buf)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t i = 0, n = 0, step;

	while (i < len) {
		step = bx_utf8_len(p + i, len - i);
		if (n + (step > 0 ? step : 1) > MM_ERROR_QUOTE)
			break;
		if (step <= 1) {
			buf[n++] = p[i] < ' ' || p[i] == 0x7f || step == 0 ?
			    '?' : (char)p[i];
			i++;
			continue;
		}
		memcpy(buf + n, p + i, step);
		n += step;
		i += step;
	}
	buf[n] = '\0';
}

/*
 * The server's own words for an HTTP error: its error body's message and
 * id ({"id", "message", "status_code", ...}), else the body quoted.
 */
static void
server_words(const struct body *b, char *buf, size_t size)
{
	char message[MM_ERROR_QUOTE + 1], id[MM_ERROR_QUOTE + 1];
	const char *m, *i;
	json_t *root = NULL;

	if (b->b_data != NULL &&
	    bx_json_depth_check(b->b_data, b->b_len, MM_MAX_DEPTH, NULL) == 0)
		root = json_loadb(b->b_data, b->b_len, 0, NULL);
	m = json_string_value(json_object_get(root, "message"));
	i = json_string_value(json_object_get(root, "id"));
	if (m != NULL) {
		quote(m, strlen(m), message);
		quote(i != NULL ? i : "", i != NULL ? strlen(i) : 0, id);
		snprintf(buf, size, "\"%s\"%s%s%s", message, id[0] != '\0' ?
		    " (" : "", id, id[0] != '\0' ? ")" : "");
	} else if (b->b_len > 0) {
		quote(b->b_data, b->b_len, message);
		snprintf(buf, size, "\"%s\"", message);
	} else
		snprintf(buf, size, "(no body)");
	json_decref(root);
}

static int
http_error(struct mm_http *h, const char *method, const char *path,
    long status, const struct body *b, struct bx_error *err)
{
	struct curl_header *reset = NULL;
	char words[2 * MM_ERROR_QUOTE + 16];

	server_words(b, words, sizeof(words));
	if (status == 429) {
		if (curl_easy_header(h->h_curl, "X-Ratelimit-Reset", 0,
		    CURLH_HEADER, -1, &reset) != CURLHE_OK)
			reset = NULL;
		h->h_rate_wait_s = mm_rate_wait_s(reset != NULL ?
		    reset->value : NULL, time(NULL));
		bx_fail(err, "Mattermost %s rate-limited %s %s (HTTP 429): "
		    "waiting %d s as its X-Ratelimit-Reset says", h->h_url,
		    method, path, h->h_rate_wait_s);
		return MM_RATE_LIMITED;
	}
	if (status == 401 || status == 403) {
		bx_fail(err, "Mattermost %s refused the bot's token (HTTP %ld "
		    "to %s %s): %s; check token_file and that the token is "
		    "not revoked", h->h_url, status, method, path, words);
		return MM_TOKEN_REFUSED;
	}
	if (status >= 500) {
		bx_fail(err, "Mattermost %s failed %s %s (HTTP %ld): %s; "
		    "trying again later", h->h_url, method, path, status,
		    words);
		return MM_UNREACHABLE;
	}
	bx_fail(err, "Mattermost %s refused %s %s (HTTP %ld): %s", h->h_url,
	    method, path, status, words);
	return MM_REFUSED;
}

static int
transfer_error(const struct mm_http *h, const char *method, const char *path,
    CURLcode rc, const struct body *b, const char *detail,
    struct bx_error *err)
{
	if (b->b_too_large || rc == CURLE_FILESIZE_EXCEEDED) {
		bx_fail(err, "Mattermost %s answered %s %s with more than %d "
		    "bytes, the most the bridge reads; refused", h->h_url,
		    method, path, MM_MAX_BODY);
		return MM_REFUSED;
	}
	bx_fail(err, "Mattermost %s could not be reached for %s %s: %s; "
	    "trying again later", h->h_url, method, path,
	    detail[0] != '\0' ? detail : curl_easy_strerror(rc));
	return MM_UNREACHABLE;
}

/* The options of one request, set anew each time on the kept handle. */
static int
setup(struct mm_http *h, const char *method, const char *url,
    const char *body, struct body *b, char *detail)
{
	CURL *c = h->h_curl;

	curl_easy_reset(c);
	if (curl_easy_setopt(c, CURLOPT_URL, url) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR,
	    h->h_https ? "https" : "http") != CURLE_OK)
		return -1;
	if (h->h_unix_socket != NULL &&
	    curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, h->h_unix_socket) !=
	    CURLE_OK)
		return -1;
	if (h->h_ca_file != NULL &&
	    curl_easy_setopt(c, CURLOPT_CAINFO, h->h_ca_file) != CURLE_OK)
		return -1;
	/* No proxy from the environment: the way out is the URL's or the
	 * relay socket's, nothing else. */
	curl_easy_setopt(c, CURLOPT_PROXY, "");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, h->h_connect_timeout_s);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, h->h_timeout_s);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)MM_MAX_BODY);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->h_headers);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body != NULL) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)strlen(body));
	}
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
	return 0;
}

/* A 2xx answer's body as JSON, depth-checked before jansson recurses. */
static int
parse_answer(const struct mm_http *h, const char *method, const char *path,
    const struct body *b, json_t **ret, struct bx_error *err)
{
	json_error_t jerr;
	json_t *root;

	if (b->b_len == 0) {
		bx_fail(err, "Mattermost %s answered %s %s with an empty body",
		    h->h_url, method, path);
		return MM_REFUSED;
	}
	if (bx_json_depth_check(b->b_data, b->b_len, MM_MAX_DEPTH, err) == -1) {
		bx_error_prefix(err, "Mattermost %s's answer to %s %s",
		    h->h_url, method, path);
		return MM_REFUSED;
	}
	root = json_loadb(b->b_data, b->b_len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		bx_fail(err, "Mattermost %s answered %s %s with a body that is "
		    "not JSON: %s", h->h_url, method, path, jerr.text);
		return MM_REFUSED;
	}
	*ret = root;
	return MM_OK;
}

int
mm_http_call(struct mm_http *h, const char *method, const char *path,
    const json_t *body, json_t **ret, struct bx_error *err)
{
	char url[MM_URL_MAX * 2], detail[CURL_ERROR_SIZE] = "";
	char *text = NULL;
	struct body b = { 0 };
	long status = 0;
	CURLcode rc;
	int r;

	if ((size_t)snprintf(url, sizeof(url), "%s%s", h->h_url, path) >=
	    sizeof(url))
		return bx_fail(err, "the Mattermost request path is too long");
	if (body != NULL && (text = json_dumps(body, JSON_COMPACT)) == NULL)
		return bx_fail(err, "cannot encode the Mattermost request");
	if (setup(h, method, url, text, &b, detail) == -1) {
		free(text);
		return bx_fail(err, "libcurl refused the request's options "
		    "(is it built with https and Unix sockets?)");
	}
	rc = curl_easy_perform(h->h_curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(h->h_curl, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK)
		r = transfer_error(h, method, path, rc, &b, detail, err);
	else if (status < 200 || status > 299)
		r = http_error(h, method, path, status, &b, err);
	else
		r = parse_answer(h, method, path, &b, ret, err);
	free(b.b_data);
	free(text);
	return r;
}
