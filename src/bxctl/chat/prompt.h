/*
 * prompt.h: the interactive prompt of bxctl chat, with libedit's line
 * editing (emacs keys, arrows) and a history kept per user in
 *
 *	$XDG_STATE_HOME/boxmaker/chat_history
 *	(~/.local/state/boxmaker/chat_history without it)
 *
 * (directory 0700, file 0600, the last PROMPT_HISTORY_MAX messages). Only
 * the messages go into the history: prompt_ask() edits a line the same
 * way, for the answers to approvals, and keeps none of them.
 *
 * A SIGINT while a line is edited (interrupt.h) ends the edit: both read
 * functions return NULL with *ret_interrupted true, and the terminal is
 * as it was. End of file is NULL with *ret_interrupted false.
 *
 * Ownership: prompt_open() allocates and prompt_close() frees (NULL
 * allowed); the line returned is the prompt's, valid until its next read.
 */
#ifndef BXCTL_PROMPT_H
#define BXCTL_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#define PROMPT_HISTORY_MAX	1000
#define PROMPT_HISTORY_FILE	"boxmaker/chat_history"

struct prompt;

/*
 * A prompt on stdin, echoing on stderr; NULL if memory or the terminal
 * failed (the caller then reads stdin plainly). A history that cannot be
 * read or written is done without, silently: it is a convenience.
 */
struct prompt	*prompt_open(void);
void		 prompt_close(struct prompt *);
/* A message, added to the history when not empty. No newline. */
const char	*prompt_read(struct prompt *, const char *text,
		    bool *ret_interrupted);
/* An answer, kept out of the history. No newline. */
const char	*prompt_ask(struct prompt *, const char *text,
		    bool *ret_interrupted);
/* Where the history is kept, into buf (size bytes); -1 if there is no
 * home to keep it in. */
int		 prompt_history_path(char *buf, size_t size);

#endif
