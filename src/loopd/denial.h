/*
 * denial.h: the texts a denial reaches the model as (design section 8).
 * loopd writes them itself, as tool results of class public, untrusted
 * false, so a denial is something the model can explain, never an error.
 */
#ifndef LOOPD_DENIAL_H
#define LOOPD_DENIAL_H

#include "proto/types.h"

/* The static text for reason, or NULL if the table lacks it (the self-test
 * refuses to start then). */
const char	*denial_text(enum bx_deny reason);

#endif
