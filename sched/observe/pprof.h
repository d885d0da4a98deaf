/*
 * pprof.h — WEFTDEBUG=cpuprofile=FILE: CPU samples of the tasks, written
 * at exit in the pprof format (pprof.c).
 */
#ifndef WEFT_PPROF_H
#define WEFT_PPROF_H

#include <signal.h>

#include "base/base.h"
#include "core/hooks.h"

struct wt_m;
/* wt_prof_on and the calls the runtime makes: core/hooks.h. */
/* si_value of weft profile's SIGURG: WT_PROF_MAGIC << 32 | seconds << 20 |
 * the caller's descriptor ("wefp" in ASCII; tools/pprof.py sends it). */
#define WT_PROF_MAGIC 0x77656670u
#define WT_PROF_MAGIC_MUTEX 0x7765666du /* "wefm": the mutex profile */
#define WT_PROF_MAGIC_BLOCK 0x77656662u /* "wefb": the block profile */
/* WEFTDEBUG=mutexprofile=FILE: contended waits for a mutex of weft's, by
 * the waiter's call site and the unlocking holder's, count and delay. */
extern _Atomic bool wt_mprof_on;           /* [atomic] recording */
static inline bool wt_mprof_active(void)
{
	return atomic_load_explicit(&wt_mprof_on, memory_order_relaxed);
}
void wt_mprof_unlock(const void *m, void *site); /* the program unlocked m at site */
void wt_mprof_waited(const void *m, void *site, int64_t t0); /* got m, waiting since t0 */

#endif
