/*
 * log.h: where brokerd's lines go. The broker and the runner both write to
 * it; only the program (serve_main.c) decides where a line ends up, so that
 * no library module prints.
 *
 * Ownership: the caller owns the sink and its ctx; both must outlive every
 * module that was given it.
 */
#ifndef BROKERD_LOG_H
#define BROKERD_LOG_H

/* One line each, without the newline. */
struct broker_log {
	void	(*line)(void *ctx, const char *line);
	void	*ctx;
};

#endif
