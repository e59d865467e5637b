/*
 * test-fake-llama.c: the fake llama-server answers from its script in
 * llama-server's shape, records what it was sent, and refuses bad scripts.
 * An endless answer stops at the request's max_tokens as llama-server's
 * does, and a client that goes away in the middle of one is counted.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>

#include "fake_llama.h"

/* Generous: how long a test waits for the fake to see a client go. */
#define GONE_WAIT_MS	20000

struct buf {
	char	*data;
	size_t	 len;
};

static size_t
collect(char *ptr, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;
	char *grown;

	grown = realloc(b->data, b->len + size * n + 1);
	assert_non_null(grown);
	memcpy(grown + b->len, ptr, size * n);
	b->len += size * n;
	grown[b->len] = '\0';
	b->data = grown;
	return size * n;
}

/* POSTs body to the fake; returns the HTTP status and the body in *out. */
static long
post(struct fake_llama *fl, const char *body, struct buf *out)
{
	char url[128];
	long status = 0;
	CURL *c;

	out->data = NULL;
	out->len = 0;
	fake_llama_url(fl, url, sizeof(url) - 32);
	strcat(url, "/v1/chat/completions");
	c = curl_easy_init();
	assert_non_null(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	return status;
}

static struct fake_llama *
start(const char *script)
{
	struct fake_llama_opts opts = { .script = script };
	struct fake_llama *fl = NULL;
	struct bx_error err;

	if (fake_llama_start(&opts, &fl, &err) == -1)
		fail_msg("%s", err.msg);
	return fl;
}

static void
test_tool_call_shape(void **state)
{
	struct fake_llama *fl;
	json_t *body, *msg, *call;
	struct buf out;
	char *rec;

	(void)state;
	fl = start("[{\"tool_calls\":[{\"name\":\"call_tool\",\"arguments\":"
	    "{\"name\":\"read_file\",\"arguments\":{\"path\":\"/x\"}}}]},"
	    "{\"text\":\"done\"}]");
	assert_int_equal(post(fl, "{\"model\":\"m1\",\"messages\":[]}", &out),
	    200);
	body = json_loads(out.data, 0, NULL);
	assert_non_null(body);
	assert_string_equal(json_string_value(json_object_get(body, "model")),
	    "m1");
	assert_non_null(json_object_get(body, "usage"));
	msg = json_object_get(json_array_get(json_object_get(body, "choices"),
	    0), "message");
	/* As llama-server: content "" beside the calls, ids of 32. */
	assert_string_equal(json_string_value(json_object_get(msg,
	    "content")), "");
	call = json_array_get(json_object_get(msg, "tool_calls"), 0);
	assert_string_equal(json_string_value(json_object_get(call, "type")),
	    "function");
	assert_int_equal(strlen(json_string_value(json_object_get(call, "id"))),
	    32);
	assert_int_equal(strspn(json_string_value(json_object_get(call, "id")),
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
	    32);
	call = json_object_get(call, "function");
	assert_string_equal(json_string_value(json_object_get(call, "name")),
	    "call_tool");
	/* llama-server sends arguments as a JSON string, not an object. */
	assert_string_equal(json_string_value(json_object_get(call,
	    "arguments")),
	    "{\"name\":\"read_file\",\"arguments\":{\"path\":\"/x\"}}");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(json_object_get(body, "choices"), 0),
	    "finish_reason")), "tool_calls");
	json_decref(body);
	free(out.data);

	assert_int_equal(post(fl, "{\"second\":true,\"messages\":[]}", &out),
	    200);
	assert_non_null(strstr(out.data, "\"content\":\"done\""));
	assert_non_null(strstr(out.data, "\"finish_reason\":\"stop\""));
	free(out.data);

	assert_int_equal(fake_llama_request_count(fl), 2);
	rec = fake_llama_request(fl, 1);
	assert_string_equal(rec, "{\"second\":true,\"messages\":[]}");
	free(rec);
	assert_null(fake_llama_request(fl, 2));

	/* Exhausted: a clear server error, still recorded. */
	assert_int_equal(post(fl, "{\"messages\":[]}", &out), 500);
	assert_non_null(strstr(out.data, "script exhausted"));
	free(out.data);
	assert_int_equal(fake_llama_request_count(fl), 3);
	fake_llama_stop(fl);
}

static void
test_raw_and_repeat(void **state)
{
	struct fake_llama *fl;
	struct buf out;
	int i;

	(void)state;
	fl = start("[{\"status\":503,\"body\":\"busy\"},{\"body\":\"not json\"},"
	    "{\"text\":\"again\",\"repeat\":true}]");
	assert_int_equal(post(fl, "{\"messages\":[]}", &out), 503);
	assert_string_equal(out.data, "busy");
	free(out.data);
	assert_int_equal(post(fl, "{\"messages\":[]}", &out), 200);
	assert_string_equal(out.data, "not json");
	free(out.data);
	for (i = 0; i < 3; i++) {
		assert_int_equal(post(fl, "{\"messages\":[]}", &out), 200);
		assert_non_null(strstr(out.data, "again"));
		free(out.data);
	}
	fake_llama_stop(fl);
}

struct held_post {
	struct fake_llama	*fl;
	struct buf		 out;
	long			 status;
	pthread_mutex_t		 lock;
	int			 done;
};

static void *
held_post_thread(void *arg)
{
	struct held_post *hp = arg;
	long status;

	status = post(hp->fl, "{\"messages\":[]}", &hp->out);
	pthread_mutex_lock(&hp->lock);
	hp->status = status;
	hp->done = 1;
	pthread_mutex_unlock(&hp->lock);
	return NULL;
}

static void
test_hold_until_released(void **state)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	struct held_post hp = { 0 };
	pthread_t tid;
	int i, done;

	(void)state;
	hp.fl = start("[{\"hold\":true,\"text\":\"released\"}]");
	pthread_mutex_init(&hp.lock, NULL);
	assert_int_equal(pthread_create(&tid, NULL, held_post_thread, &hp), 0);
	/* The request is recorded before the hold, so this wait is bounded. */
	for (i = 0; i < 3000 && fake_llama_request_count(hp.fl) == 0; i++)
		nanosleep(&pause, NULL);
	assert_int_equal(fake_llama_request_count(hp.fl), 1);
	pthread_mutex_lock(&hp.lock);
	done = hp.done;
	pthread_mutex_unlock(&hp.lock);
	/* Held: no answer can have been sent yet, however slow the machine. */
	assert_int_equal(done, 0);
	fake_llama_release(hp.fl);
	pthread_join(tid, NULL);
	assert_int_equal(hp.status, 200);
	assert_non_null(strstr(hp.out.data, "released"));
	free(hp.out.data);
	pthread_mutex_destroy(&hp.lock);
	fake_llama_stop(hp.fl);
}

static void
test_large_body_recorded(void **state)
{
	struct fake_llama *fl;
	struct buf out;
	char *big, *rec;
	size_t n = 3 * 1024 * 1024;

	(void)state;
	fl = start("[{\"text\":\"ok\"}]");
	big = malloc(n + 1);
	assert_non_null(big);
	/* A request as a real server takes it: an object with messages. */
	memset(big, 'a', n);
	memcpy(big, "{\"messages\":[],\"x\":\"", 20);
	memcpy(big + n - 2, "\"}", 2);
	big[n] = '\0';
	assert_int_equal(post(fl, big, &out), 200);
	free(out.data);
	rec = fake_llama_request(fl, 0);
	assert_int_equal(strlen(rec), n);
	assert_memory_equal(rec, big, n);
	free(rec);
	free(big);
	fake_llama_stop(fl);
}

static void
test_bad_scripts(void **state)
{
	static const char *bad[] = {
		"{}", "[1]", "[{\"txt\":\"x\"}]", "[{\"delay_ms\":5}]",
		"[{\"tool_calls\":[{\"arguments\":{}}]}]",
		"[{\"tool_calls\":[{\"name\":\"a\",\"arguments\":1}]}]",
		"[{\"text\":\"a\",\"text\":\"b\"}]", "[",
		"[{\"text\":\"a\",\"hold\":1}]",
		"[{\"endless\":1}]", "[{\"endless\":false}]",
	};
	struct fake_llama_opts opts;
	struct fake_llama *fl = NULL;
	struct bx_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&opts, 0, sizeof(opts));
		opts.script = bad[i];
		assert_int_equal(fake_llama_start(&opts, &fl, &err), -1);
		assert_null(fl);
	}
	opts.script = "[{\"txt\":\"x\"}]";
	fake_llama_start(&opts, &fl, &err);
	assert_non_null(strstr(err.msg, "\"txt\""));
}

/* How many times needle occurs in haystack. */
static size_t
occurrences(const char *haystack, const char *needle)
{
	size_t n = 0;

	while ((haystack = strstr(haystack, needle)) != NULL) {
		n++;
		haystack += strlen(needle);
	}
	return n;
}

static void
test_endless_stops_at_max_tokens(void **state)
{
	struct fake_llama *fl;
	struct buf out;
	char *rec;

	(void)state;
	fl = start("[{\"endless\":true}]");
	assert_int_equal(post(fl, "{\"model\":\"m\",\"messages\":[],"
	    "\"stream\":true,\"max_tokens\":7}", &out), 200);
	/* Seven tokens, then the length chunk and the end, as llama-server. */
	assert_int_equal(occurrences(out.data, "\"delta\":{\"content\":"
	    "\"on \"}"), 7);
	assert_int_equal(occurrences(out.data, "\"finish_reason\":"
	    "\"length\""), 1);
	assert_non_null(strstr(out.data, "\"predicted_n\":7"));
	assert_non_null(strstr(out.data, "data: [DONE]\n\n"));
	assert_int_equal(fake_llama_hangups(fl), 0);
	rec = fake_llama_request(fl, 0);
	assert_non_null(strstr(rec, "\"max_tokens\":7"));
	free(rec);
	free(out.data);
	fake_llama_stop(fl);
}

/* Takes the first bytes of a stream, then makes libcurl close it. */
static size_t
take_then_close(char *ptr, size_t size, size_t n, void *arg)
{
	size_t *taken = arg;

	(void)ptr;
	*taken += size * n;
	return *taken > 200 ? 0 : size * n;
}

static void
test_endless_client_gone_is_counted(void **state)
{
	struct timespec nap = { 0, 10 * 1000000L };
	struct fake_llama *fl;
	struct timespec start_ts, now_ts;
	char url[128];
	size_t taken = 0;
	long waited;
	CURL *c;

	(void)state;
	/* No max_tokens: it would go on for FAKE_LLAMA_HOLD_MAX_MS. */
	fl = start("[{\"endless\":true,\"chunk_ms\":5}]");
	fake_llama_url(fl, url, sizeof(url) - 32);
	strcat(url, "/v1/chat/completions");
	c = curl_easy_init();
	assert_non_null(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, "{\"messages\":[],"
	    "\"stream\":true}");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, take_then_close);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &taken);
	assert_int_equal(curl_easy_perform(c), CURLE_WRITE_ERROR);
	curl_easy_cleanup(c);
	clock_gettime(CLOCK_MONOTONIC, &start_ts);
	while (fake_llama_hangups(fl) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now_ts);
		waited = (now_ts.tv_sec - start_ts.tv_sec) * 1000 +
		    (now_ts.tv_nsec - start_ts.tv_nsec) / 1000000;
		if (waited > GONE_WAIT_MS)
			fail_msg("waited %d ms for the fake to count the "
			    "client that went away", GONE_WAIT_MS);
		nanosleep(&nap, NULL);
	}
	assert_int_equal(fake_llama_hangups(fl), 1);
	fake_llama_stop(fl);
}

static void
test_not_found(void **state)
{
	struct fake_llama *fl;
	char url[128];
	long status = 0;
	CURL *c;

	(void)state;
	fl = start("[]");
	fake_llama_url(fl, url, sizeof(url) - 32);
	strcat(url, "/nowhere");
	c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	{
		struct buf out = { NULL, 0 };

		curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
		assert_int_equal(curl_easy_perform(c), CURLE_OK);
		free(out.data);
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	assert_int_equal(status, 404);
	curl_easy_cleanup(c);
	assert_int_equal(fake_llama_request_count(fl), 0);
	fake_llama_stop(fl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tool_call_shape),
		cmocka_unit_test(test_raw_and_repeat),
		cmocka_unit_test(test_hold_until_released),
		cmocka_unit_test(test_large_body_recorded),
		cmocka_unit_test(test_bad_scripts),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_endless_stops_at_max_tokens),
		cmocka_unit_test(test_endless_client_gone_is_counted),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
