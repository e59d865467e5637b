/*
 * render.c: the request post and the patched post (see render.h). Each
 * message is composed whole, then measured: when backtick runs make the
 * fences so long that the post would pass RENDER_POST_MAX, it is composed
 * again with half the room for the arguments, which always ends.
 */
#include <sys/types.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bxbridge/render.h"
#include "proto/escape.h"

/* The shortest fence Markdown knows. */
#define FENCE_MIN	3

/* Writes s (NULL: nothing) escaped and cut to RENDER_FIELD_MAX bytes. */
static void
put_field(FILE *fp, const char *s)
{
	char buf[RENDER_FIELD_MAX + 1];

	fputs(escape_buf(s == NULL ? "" : s, buf, sizeof(buf)), fp);
}

static void
put_time(FILE *fp, int64_t ms)
{
	char buf[BX_TIME_LEN + 1];

	if (ms <= 0 || ms > BX_TIME_MAX_MS) {
		fputs("not known", fp);
		return;
	}
	bx_time_format(ms, buf);
	fputs(buf, fp);
}

/* The first byte of a line of at most take bytes: at a character's start. */
static size_t
char_start(const char *s, size_t take)
{
	while (take > 0 && ((unsigned char)s[take] & 0xc0) == 0x80)
		take--;
	return take;
}

/*
 * One line of the arguments (len bytes at line) escaped, in at most left
 * bytes. Returns the bytes written, or -1 if memory ran out; *cut is set
 * when not all of the line was.
 */
static ssize_t
put_args_line(FILE *fp, const char *line, size_t len, size_t left, bool *cut)
{
	char *piece, *esc = NULL, *buf = NULL;
	size_t take = len, n;
	ssize_t r = -1;

	/* Each byte prints as one or more: past left + 1 none would show. */
	if (take > left + 1)
		take = char_start(line, left + 1);
	if ((piece = strndup(line, take)) == NULL ||
	    (esc = escape_string(piece, take)) == NULL)
		goto out;
	if ((n = strlen(esc)) <= left) {
		fputs(esc, fp);
		*cut = take < len;
		r = (ssize_t)n;
		goto out;
	}
	*cut = true;
	r = 0;
	/* escape_buf needs room for one escape and "...". */
	if (left < 4)
		goto out;
	if ((buf = malloc(left + 1)) == NULL) {
		r = -1;
		goto out;
	}
	fputs(escape_buf(piece, buf, left + 1), fp);
	r = (ssize_t)strlen(buf);
out:
	free(buf);
	free(esc);
	free(piece);
	return r;
}

/*
 * The arguments, line by line, in at most budget bytes; *cut is set when
 * not all of them were written. -1 if memory ran out.
 */
static int
put_args(FILE *fp, const char *args, size_t budget, bool *cut)
{
	const char *line = args == NULL ? "" : args, *nl;
	size_t left = budget, len;
	ssize_t n;

	*cut = false;
	for (;;) {
		nl = strchr(line, '\n');
		len = nl == NULL ? strlen(line) : (size_t)(nl - line);
		if ((n = put_args_line(fp, line, len, left, cut)) == -1)
			return -1;
		left -= (size_t)n;
		if (*cut || nl == NULL)
			return 0;
		if (left == 0) {
			*cut = true;
			return 0;
		}
		fputc('\n', fp);
		left--;
		line = nl + 1;
	}
}

/* The fields of pa, one a line, as the block's text. */
static int
put_fields(FILE *fp, const struct bx_pending_approval *pa, size_t budget,
    bool *cut)
{
	fprintf(fp, "approval   %" PRIu64 "\ntool       ", pa->approval);
	put_field(fp, pa->tool);
	fputs("\nsession    ", fp);
	put_field(fp, pa->session);
	fputs("\ncall       ", fp);
	put_field(fp, pa->call);
	fputs("\ngrant      ", fp);
	put_field(fp, pa->grant);
	fprintf(fp, "\ntaint      %s\ncreated    ", bx_class_name(pa->taint));
	put_time(fp, pa->created);
	fputs("\nexpires    ", fp);
	put_time(fp, pa->expires);
	fputs("\narguments\n", fp);
	return put_args(fp, pa->arguments, budget, cut);
}

/*
 * text inside a fence of backticks longer than any run of them in it, on
 * lines of their own.
 */
static void
put_block(FILE *fp, const char *text)
{
	size_t run = 0, longest = 0, fence, i;
	const char *p;

	for (p = text; *p != '\0'; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = longest < FENCE_MIN ? FENCE_MIN : longest + 1;
	for (i = 0; i < fence; i++)
		fputc('`', fp);
	fprintf(fp, "\n%s\n", text);
	for (i = 0; i < fence; i++)
		fputc('`', fp);
	fputc('\n', fp);
}

/* A stream into a new string; closed by stream_end(). */
struct stream {
	FILE	*s_fp;
	char	*s_buf;
	size_t	 s_len;
};

static int
stream_start(struct stream *s)
{
	s->s_buf = NULL;
	s->s_len = 0;
	return (s->s_fp = open_memstream(&s->s_buf, &s->s_len)) == NULL ?
	    -1 : 0;
}

/* The string written, or NULL (and nothing kept) if a write failed. */
static char *
stream_end(struct stream *s)
{
	bool failed = ferror(s->s_fp) != 0;

	if (fclose(s->s_fp) != 0 || failed) {
		free(s->s_buf);
		return NULL;
	}
	return s->s_buf;
}

/* The data block of pa into fp, the arguments in at most budget bytes. */
static int
put_data(FILE *fp, const struct bx_pending_approval *pa, size_t budget,
    bool *cut)
{
	struct stream s;
	char *text;
	int r;

	if (stream_start(&s) == -1)
		return -1;
	r = put_fields(s.s_fp, pa, budget, cut);
	if ((text = stream_end(&s)) == NULL || r == -1) {
		free(text);
		return -1;
	}
	put_block(fp, text);
	free(text);
	if (*cut)
		fprintf(fp, "The arguments are %zu bytes, more than a post "
		    "holds: only their start is shown. `bxctl approvals` "
		    "shows them whole while the call waits, `bxctl log` "
		    "after.\n", pa->arguments == NULL ? 0 :
		    strlen(pa->arguments));
	return 0;
}

static void
put_how_to_answer(FILE *fp, const struct bx_pending_approval *pa)
{
	fputs("To answer, react with :white_check_mark: or :+1: to approve, "
	    "or :x: or :-1: to refuse; or reply in this thread with `approve`, "
	    "or `refuse` and an optional reason. At the terminal: `bxctl "
	    "approve ", fp);
	fprintf(fp, "%" PRIu64 "` or `bxctl refuse %" PRIu64 "`. Unanswered, "
	    "the call is refused at ", pa->approval, pa->approval);
	put_time(fp, pa->expires);
	fputs(".\n", fp);
}

/* A reason is whoever typed it's text: data too, in a block of its own. */
static void
put_reason(FILE *fp, const char *reason)
{
	char buf[RENDER_REASON_MAX + 1];

	put_block(fp, escape_buf(reason, buf, sizeof(buf)));
}

static const char *
where_name(enum render_where w)
{
	return w == RENDER_TERMINAL ? "at the terminal (bxctl)" :
	    "here in Mattermost";
}

/* The patched post's first lines: what happened, and where. */
static void
put_outcome(FILE *fp, const struct bx_pending_approval *pa,
    const struct render_outcome *o)
{
	const struct bx_outcome *d = o->ro_decision;

	switch (o->ro_result) {
	case RENDER_APPROVED:
		fprintf(fp, "**Approved** %s (approval %" PRIu64 ").",
		    where_name(o->ro_where), pa->approval);
		if (d != NULL && d->kind == BX_OUTCOME_DENIED)
			fprintf(fp, " brokerd decided again and denied the "
			    "call: %s.", bx_deny_name(d->reason));
		/* An ask grant's re-decision is ask: approved, it runs too. */
		else if (d != NULL && (d->kind == BX_OUTCOME_ALLOWED ||
		    d->kind == BX_OUTCOME_ASK))
			fputs(" The call runs.", fp);
		fputc('\n', fp);
		break;
	case RENDER_REFUSED:
		fprintf(fp, "**Refused** %s (approval %" PRIu64 ").",
		    where_name(o->ro_where), pa->approval);
		if (o->ro_reason == NULL || o->ro_reason[0] == '\0') {
			fputs(" No reason given.\n", fp);
			break;
		}
		fputs(" The reason:\n", fp);
		put_reason(fp, o->ro_reason);
		break;
	case RENDER_EXPIRED:
		fprintf(fp, "**Expired** unanswered (approval %" PRIu64 "): "
		    "the call did not run.\n", pa->approval);
		break;
	case RENDER_GONE:
		fprintf(fp, "**No longer waiting** (approval %" PRIu64 "): "
		    "answered at the terminal (bxctl), or the call ended.\n",
		    pa->approval);
		break;
	}
}

/*
 * The whole post, the arguments in at most budget bytes; o NULL: the
 * request.
 */
static char *
compose(const struct bx_pending_approval *pa, const struct render_outcome *o,
    size_t budget)
{
	struct stream s;
	bool cut;
	int r;

	if (stream_start(&s) == -1)
		return NULL;
	if (o == NULL)
		fprintf(s.s_fp, "**Boxmaker asks: may this tool call run?** "
		    "(approval %" PRIu64 ")\n", pa->approval);
	else
		put_outcome(s.s_fp, pa, o);
	r = put_data(s.s_fp, pa, budget, &cut);
	if (o == NULL && r == 0)
		put_how_to_answer(s.s_fp, pa);
	if (r == -1) {
		free(stream_end(&s));
		return NULL;
	}
	return stream_end(&s);
}

static int
render(const struct bx_pending_approval *pa, const struct render_outcome *o,
    char **ret, struct bx_error *err)
{
	size_t budget = RENDER_ARGS_MAX;
	char *msg;

	for (;;) {
		if ((msg = compose(pa, o, budget)) == NULL)
			return bx_fail(err, "out of memory");
		if (strlen(msg) < RENDER_POST_MAX)
			break;
		free(msg);
		/* The fields and the reason alone always fit. */
		if (budget == 0)
			return bx_fail(err, "approval %" PRIu64 ": the post "
			    "does not fit in %d bytes", pa->approval,
			    RENDER_POST_MAX);
		budget /= 2;
	}
	*ret = msg;
	return 0;
}

int
render_request(const struct bx_pending_approval *pa, char **ret,
    struct bx_error *err)
{
	return render(pa, NULL, ret, err);
}

int
render_outcome(const struct bx_pending_approval *pa,
    const struct render_outcome *o, char **ret, struct bx_error *err)
{
	return render(pa, o, ret, err);
}
