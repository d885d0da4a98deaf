/*
 * crash.h — faults in tasks: stack growth and overflow reports, trap-mode
 * repairs, crash backtraces (crash.c).
 */
#ifndef WEFT_CRASH_H
#define WEFT_CRASH_H

#include <ucontext.h>

#include "base.h"

void wt_crash_init(void);
char *wt_crash_altstack(void);
void wt_crash_altstack_free(char *p);      /* before the thread exits */
void wt_backtrace_ctx(ucontext_t *uc);

#endif
