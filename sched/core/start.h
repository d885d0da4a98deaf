/* start.h — starting the runtime (start.c). */
#ifndef WEFT_START_H
#define WEFT_START_H

#include "base/base.h"

/* On the initial thread, before main, or from the first entry that needs
 * the runtime: 0 when weft runs the program, else -ENOTSUP (weft stays off:
 * loaded late on another thread, or a glibc it cannot run on), or -EBUSY
 * when called from inside the start on its own thread (the program's
 * malloc, called by the start, creating a thread): the caller acts as
 * before the start. */
int wt_runtime_start(void);
bool wt_runtime_on(void);                  /* weft runs the program */

/* The main task's fake tid (task.c gives the others 0x40000000 | id). */
#define WT_MAIN_TID 0x40000001

/* The initial thread's TCB while the process runs without the runtime,
 * until its first need (start.c: dormant); 0 otherwise.  [atomic] set by
 * libweft's constructor, cleared by the start; read relaxed by owner-id
 * lookups (shim.h: wt_self_tid). */
extern _Atomic uintptr_t wt_dormant_tcb;

/* task.c: the top of the initial stack, where main runs until a start
 * that comes after main began (dormant): the main task's stack_hi. */
void wt_runtime_main_stack(char *hi);

#endif
