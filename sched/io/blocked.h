/*
 * blocked.h — whether a worker's thread runs, and whether it sleeps in a
 * system call that a signal would restart (blocked.c).
 */
#ifndef WEFT_BLOCKED_H
#define WEFT_BLOCKED_H

#include "core/runtime.h"

int64_t wt_thread_cpu_ns(int tid);          /* its CPU clock; -1 unknown */
bool wt_blocked_restartable(struct wt_m *m); /* sysmon: in a restartable call outside weft */

#endif
