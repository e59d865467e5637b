/*
 * secret-search.c: the needles of a secret and the search for them
 * (secret-search.h). The forms come from echo_forms, the same lines
 * tls-host echoes, so that what is searched for is what the redaction is
 * tested against; this file only cuts each line down to the part that a
 * text holding that form of the subject must contain.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "echo-forms.h"
#include "secret-search.h"

#define JSON_START	"{\"auth\":\""
#define JSON_END	"\"}"
#define RUN_BYTES	8	/* the shortest occurrence searched for */

static char *
copy(const char *s, size_t len)
{
	char *p;

	if ((p = strndup(s, len)) == NULL)
		err(1, "a needle of %zu bytes", len);
	return p;
}

/* Adds label's needle of len bytes at s, unless an equal one is there. */
static void
add(struct secret_needles *sn, const char *label, size_t label_len,
    const char *s, size_t len)
{
	struct secret_needle *list;
	size_t i;

	if (len == 0)
		return;
	sn->sn_forms++;
	for (i = 0; i < sn->sn_count; i++)
		if (strlen(sn->sn_list[i].sn_text) == len &&
		    memcmp(sn->sn_list[i].sn_text, s, len) == 0)
			return;
	list = reallocarray(sn->sn_list, sn->sn_count + 1, sizeof(*list));
	if (list == NULL)
		err(1, "%zu needles", sn->sn_count + 1);
	sn->sn_list = list;
	list[sn->sn_count].sn_label = copy(label, label_len);
	list[sn->sn_count].sn_text = copy(s, len);
	sn->sn_count++;
}

/*
 * The base64 alignment K of a form "b64-K-..." or "b64url-K-...", or -1
 * for a form that is no base64.
 */
static int
base64_alignment(const char *form, size_t len)
{
	size_t n;

	if (len > 7 && strncmp(form, "b64url-", 7) == 0)
		n = 7;
	else if (len > 4 && strncmp(form, "b64-", 4) == 0)
		n = 4;
	else
		return -1;
	return form[n] >= '0' && form[n] <= '2' ? form[n] - '0' : -1;
}

/*
 * One line "SUBJECT FORM: TEXT" of len bytes; *subject_len is the length
 * of the subject's raw form, set by its first line.
 */
static void
add_line(struct secret_needles *sn, const char *line, size_t len,
    size_t *subject_len)
{
	const char *sep, *form, *text;
	size_t label_len, text_len, first, end;
	int k;

	if ((sep = memmem(line, len, ": ", 2)) == NULL ||
	    (form = memchr(line, ' ', (size_t)(sep - line))) == NULL)
		errx(1, "echo_forms wrote a line without \"SUBJECT FORM: \"");
	form++;
	label_len = (size_t)(sep - line);
	text = sep + 2;
	text_len = len - label_len - 2;
	if ((size_t)(sep - form) == 3 && strncmp(form, "raw", 3) == 0)
		*subject_len = text_len;
	if ((k = base64_alignment(form, (size_t)(sep - form))) >= 0) {
		/*
		 * Character i of the base64 text stands for bits 6i to 6i+5
		 * of the k filler bytes and the subject: those wholly of the
		 * subject are the ones any text around it leaves alone.
		 */
		first = (8 * (size_t)k + 5) / 6;
		end = 8 * ((size_t)k + *subject_len) / 6;
		if (end > text_len || first >= end)
			errx(1, "a base64 line shorter than its subject");
		add(sn, line, label_len, text + first, end - first);
		return;
	}
	if (text_len >= strlen(JSON_START) + strlen(JSON_END) &&
	    strncmp(text, JSON_START, strlen(JSON_START)) == 0) {
		add(sn, line, label_len, text + strlen(JSON_START),
		    text_len - strlen(JSON_START) - strlen(JSON_END));
		return;
	}
	add(sn, line, label_len, text, text_len);
}

void
secret_needles_make(struct secret_needles *sn, const char *header,
    const char *secret)
{
	struct echo_body body = { 0 };
	size_t at, end, subject_len = 0, i;
	char label[64];

	sn->sn_list = NULL;
	sn->sn_count = 0;
	sn->sn_forms = 0;
	echo_forms(&body, header, strlen(header));
	for (at = 0; at < body.eb_len; at = end + 1) {
		for (end = at; end < body.eb_len && body.eb_data[end] != '\n';
		    end++)
			;
		add_line(sn, body.eb_data + at, end - at, &subject_len);
	}
	free(body.eb_data);
	for (i = 0; i + RUN_BYTES <= strlen(secret); i++) {
		snprintf(label, sizeof(label), "%d bytes of the secret at %zu",
		    RUN_BYTES, i);
		add(sn, label, strlen(label), secret + i, RUN_BYTES);
	}
}

void
secret_needles_free(struct secret_needles *sn)
{
	size_t i;

	if (sn == NULL)
		return;
	for (i = 0; i < sn->sn_count; i++) {
		free(sn->sn_list[i].sn_label);
		free(sn->sn_list[i].sn_text);
	}
	free(sn->sn_list);
	sn->sn_list = NULL;
	sn->sn_count = 0;
	sn->sn_forms = 0;
}

const struct secret_needle *
secret_search(const struct secret_needles *sn, const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < sn->sn_count; i++)
		if (memmem(text, len, sn->sn_list[i].sn_text,
		    strlen(sn->sn_list[i].sn_text)) != NULL)
			return &sn->sn_list[i];
	return NULL;
}
