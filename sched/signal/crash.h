/*
 * crash.h — faults in tasks: stack growth and overflow reports, trap-mode
 * repairs, crash backtraces (crash.c).
 */
#ifndef WEFT_CRASH_H
#define WEFT_CRASH_H

#include <setjmp.h>
#include <ucontext.h>

#include "core/runtime.h"

void wt_crash_init(void);
char *wt_crash_altstack(void);
void wt_crash_altstack_free(char *p);      /* before the thread exits */

/* Reads that may fault, caught as the kernel's get_user fails: between
 * wt_catch_begin and wt_catch_end on m's thread, a fault inside the
 * bytes last named by wt_catch_at jumps to jb's sigsetjmp (savesigs 0:
 * the fault handler blocks nothing), which returns 1, and the catch is
 * over.  No switch in between (weft's own code).  Context: a worker. */
void wt_catch_begin(struct wt_m *m, sigjmp_buf *jb);
void wt_catch_end(struct wt_m *m);
static inline void wt_catch_at(struct wt_m *m, const volatile void *a, size_t n)
{
	m->catch_lo = (uintptr_t)a;
	m->catch_hi = (uintptr_t)a + n;
	atomic_signal_fence(memory_order_seq_cst);
}

#endif
