/*
 * prompt.c: libedit behind the chat prompt (prompt.h). libedit reads
 * through getc_fn, which waits for a key and for Ctrl-C at once
 * (interrupt.h), so that a SIGINT ends the edit; libedit's own signal
 * handling stays off (it would re-raise the signal to the whole process
 * group).
 */
#include <sys/stat.h>

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <histedit.h>

#include "bxctl/chat/interrupt.h"
#include "bxctl/chat/prompt.h"

struct prompt {
	EditLine	*p_el;
	History		*p_hist;
	HistEvent	 p_ev;
	const char	*p_text;	/* the prompt being shown */
	char		*p_line;	/* the last line, without newline */
	char		 p_path[4096];	/* the history file; "" none */
};

int
prompt_history_path(char *buf, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int n;

	if (state != NULL && state[0] == '/')
		n = snprintf(buf, size, "%s/" PROMPT_HISTORY_FILE, state);
	else if (home != NULL && home[0] == '/')
		n = snprintf(buf, size, "%s/.local/state/" PROMPT_HISTORY_FILE,
		    home);
	else
		return -1;
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Makes the directories above path, 0700 each; failures are left to the
 * history's own write. */
static void
make_parents(const char *path)
{
	char dir[4096], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			return;
		*slash = '/';
	}
}

static char *
prompt_fn(EditLine *el)
{
	struct prompt *p;

	el_get(el, EL_CLIENTDATA, &p);
	return (char *)p->p_text;
}

/* One character from stdin; -1 when a SIGINT came, 0 at end of file. */
static int
getc_fn(EditLine *el, wchar_t *wc)
{
	static mbstate_t st;
	size_t k;
	ssize_t n;
	char c;

	(void)el;
	for (;;) {
		if (interrupt_wait(STDIN_FILENO) != 1)
			return -1;
		n = read(STDIN_FILENO, &c, 1);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n == 0 ? 0 : -1;
		k = mbrtowc(wc, &c, 1, &st);
		if (k == (size_t)-2)
			continue;
		if (k == (size_t)-1) {
			/* Not a character here: the byte as it is. */
			memset(&st, 0, sizeof(st));
			*wc = (unsigned char)c;
		}
		return 1;
	}
}

/* UTF-8 for the editor, whatever the environment says, if it can. */
static void
use_utf8(void)
{
	const char *loc = setlocale(LC_CTYPE, "");

	if (loc == NULL || strcmp(loc, "C") == 0 ||
	    strcmp(loc, "POSIX") == 0)
		setlocale(LC_CTYPE, "C.UTF-8");
}

struct prompt *
prompt_open(void)
{
	struct prompt *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	use_utf8();
	p->p_el = el_init("bxctl", stdin, stderr, stderr);
	p->p_hist = history_init();
	if (p->p_el == NULL || p->p_hist == NULL) {
		prompt_close(p);
		return NULL;
	}
	history(p->p_hist, &p->p_ev, H_SETSIZE, PROMPT_HISTORY_MAX);
	history(p->p_hist, &p->p_ev, H_SETUNIQUE, 1);
	el_set(p->p_el, EL_CLIENTDATA, p);
	el_set(p->p_el, EL_EDITOR, "emacs");
	el_set(p->p_el, EL_SIGNAL, 0);
	el_set(p->p_el, EL_PROMPT, prompt_fn);
	el_set(p->p_el, EL_GETCFN, getc_fn);
	el_set(p->p_el, EL_HIST, history, p->p_hist);
	if (prompt_history_path(p->p_path, sizeof(p->p_path)) == -1)
		p->p_path[0] = '\0';
	else
		history(p->p_hist, &p->p_ev, H_LOAD, p->p_path);
	return p;
}

void
prompt_close(struct prompt *p)
{
	if (p == NULL)
		return;
	if (p->p_el != NULL)
		el_end(p->p_el);
	if (p->p_hist != NULL)
		history_end(p->p_hist);
	free(p->p_line);
	free(p);
}

/* One edited line, without its newline. */
static const char *
edit(struct prompt *p, const char *text, bool *ret_interrupted)
{
	const char *line;
	size_t len;
	int n;

	p->p_text = text;
	*ret_interrupted = false;
	line = el_gets(p->p_el, &n);
	if (line == NULL || n <= 0) {
		*ret_interrupted = interrupt_pending();
		return NULL;
	}
	free(p->p_line);
	if ((p->p_line = strdup(line)) == NULL)
		return NULL;
	len = strlen(p->p_line);
	if (len > 0 && p->p_line[len - 1] == '\n')
		p->p_line[len - 1] = '\0';
	return p->p_line;
}

const char *
prompt_read(struct prompt *p, const char *text, bool *ret_interrupted)
{
	const char *line = edit(p, text, ret_interrupted);

	if (line == NULL || line[0] == '\0')
		return line;
	history(p->p_hist, &p->p_ev, H_ENTER, line);
	/* Saved at once: a chat may end any way at all. */
	if (p->p_path[0] != '\0') {
		make_parents(p->p_path);
		history(p->p_hist, &p->p_ev, H_SAVE, p->p_path);
	}
	return line;
}

const char *
prompt_ask(struct prompt *p, const char *text, bool *ret_interrupted)
{
	return edit(p, text, ret_interrupted);
}
