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

#include <stdarg.h>

/* One line each, without the newline. */
struct broker_log {
	void	(*line)(void *ctx, const char *line);
	void	*ctx;
};

/*
 * Formats one line (cut at 2 * BX_ERROR_MAX bytes) and gives it to log;
 * a NULL log is silent.
 */
void	log_say(const struct broker_log *log, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	log_vsay(const struct broker_log *log, const char *fmt, va_list ap)
	    __attribute__((format(printf, 2, 0)));

#endif
