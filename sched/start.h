/* start.h — starting the runtime (start.c). */
#ifndef WEFT_START_H
#define WEFT_START_H

#include "base.h"

/* On the initial thread, before main, or from the first entry that needs
 * the runtime: 0 when weft runs the program, else -ENOTSUP (weft stays off:
 * loaded late on another thread, or a glibc it cannot run on), or -EBUSY
 * when called from inside the start on its own thread (the program's
 * malloc, called by the start, creating a thread): the caller acts as
 * before the start. */
int wt_runtime_start(void);
bool wt_runtime_on(void);                  /* weft runs the program */

#endif
