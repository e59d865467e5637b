/*
 * utf8.h: UTF-8 as RFC 3629 has it (no overlong forms, no surrogates,
 * nothing past U+10FFFF), for the checks that must refuse anything else:
 * audit lines (audit_scan.c) and core memory (loopd).
 *
 * Nothing here allocates.
 */
#ifndef BX_UTF8_H
#define BX_UTF8_H

#include <stddef.h>

/*
 * The length of the valid sequence at p, of which avail bytes are there:
 * 1 for an ASCII byte (NUL included), 2 to 4, or 0 if none starts at p.
 */
size_t	bx_utf8_len(const unsigned char *p, size_t avail);

#endif
