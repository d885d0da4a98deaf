/* throw.h — a broken invariant (throw.c): "weft: fatal: msg", SIGABRT. */
#ifndef WEFT_THROW_H
#define WEFT_THROW_H

#include "base.h"

WT_NORETURN void wt_throw(const char *msg);

#endif
