/*
 * pprof.h — WEFTDEBUG=cpuprofile=FILE: CPU samples of the tasks, written
 * at exit in the pprof format (pprof.c).
 */
#ifndef WEFT_PPROF_H
#define WEFT_PPROF_H

#include <signal.h>

#include "base/base.h"

struct wt_m;
extern bool wt_prof_on;                    /* [const after start] profiling */
void wt_prof_start(struct wt_m *m0);       /* core/start.c: before sysmon; m0 runs main */
void wt_prof_worker(struct wt_m *m);       /* a new worker, on its own thread */
bool wt_prof_signal(const siginfo_t *si, void *uc); /* SIGURG handler: a tick or a request? */
/* si_value of weft profile's SIGURG: WT_PROF_MAGIC << 32 | seconds << 20 |
 * the caller's descriptor ("wefp" in ASCII; tools/pprof.py sends it). */
#define WT_PROF_MAGIC 0x77656670u
/* WEFTDEBUG=mutexprofile=FILE: contended waits for a mutex of weft's, by
 * the waiter's call site and the unlocking holder's, count and delay. */
extern bool wt_mprof_on;                   /* [const after start] */
void wt_mprof_unlock(const void *m, void *site); /* the program unlocked m at site */
void wt_mprof_waited(const void *m, void *site, int64_t t0); /* got m, waiting since t0 */
bool wt_prof_req(void);                    /* sysmon: a request waits */
void wt_prof_poll(void);                   /* sysmon: starts its profiler thread */

#endif
