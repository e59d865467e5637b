/*
 * redact_pattern.h: the strings the redactor (redact.c) searches for, and
 * the search. A form (a string a secret is sent as) gives eight: itself,
 * its lower-case hex (matched in either case), and for base64 and
 * base64url at each of the three byte alignments the characters that
 * depend on the form's bytes alone (the core). A base64 core widens over
 * the partial character at either end when the form's bits in it agree,
 * and then over the padding.
 *
 * The search is Knuth-Morris-Pratt: every occurrence, overlapping ones
 * too, in time linear in the text whatever the pattern (a value of 4096
 * 'a' over a megabyte of 'a' costs a megabyte of steps).
 *
 * Ownership: a list of patterns belongs to whoever built it with
 * redact_patterns_add() and is freed with redact_patterns_free(), which
 * overwrites every pattern (each is made from a secret) before freeing it.
 */
#ifndef BX_REDACT_PATTERN_H
#define BX_REDACT_PATTERN_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "proto/error.h"

/* Returned by redact_pattern_tail() when the text ends in no start. */
#define REDACT_NONE	SIZE_MAX

struct redact_pattern {
	char		*rp_text;
	size_t		 rp_len;
	uint32_t	*rp_border;	/* KMP: longest border of each prefix */
	bool		 rp_fold;	/* hex: the text's letters lower-cased */
	/* base64 only (rp_alphabet not NULL): */
	const char	*rp_alphabet;
	unsigned	 rp_lbits;	/* form bits low in the char before */
	unsigned	 rp_lval;
	unsigned	 rp_rbits;	/* form bits high in the char after */
	unsigned	 rp_rval;
	unsigned	 rp_pad;	/* '=' after a whole encoding */
};

/*
 * Text searched: rt_len bytes at rt_p, and where each byte came from in
 * the input (rt_map as in redact_decode.h; NULL: the text is the input).
 */
struct redact_text {
	const char	*rt_p;
	size_t		 rt_len;
	const uint32_t	*rt_map;
};

/* Appends the patterns of the len-byte form to *list (n of them). */
int	redact_patterns_add(struct redact_pattern **list, size_t *n,
	    const char *form, size_t len, struct bx_error *err);
void	redact_patterns_free(struct redact_pattern *list, size_t n);

/*
 * Every occurrence of p in t, widened, as input offsets [s, e): sets
 * reach[s] to e where e is greater (reach has an entry per input byte).
 */
void	redact_pattern_find(const struct redact_pattern *p,
	    const struct redact_text *t, uint32_t *reach);

/*
 * The input offset where the longest start of p at the end of t begins
 * (widened at its left), or REDACT_NONE.
 */
size_t	redact_pattern_tail(const struct redact_pattern *p,
	    const struct redact_text *t);

#endif
