/* sysmon.h — the monitor thread without a proc (sysmon.c). */
#ifndef WEFT_SYSMON_H
#define WEFT_SYSMON_H

#include "base/base.h"

void wt_sysmon_start(void);
void wt_sysmon_kick(void);                 /* an earlier timer was added */
/* A proc went idle or a program's first real-time policy was set: sysmon,
 * if it sleeps its long sleep with some proc busy, looks again now.  The
 * _spawn form, for a program's second live task, kicks at most once a
 * millisecond. */
void wt_sysmon_shorten(void);
void wt_sysmon_shorten_spawn(void);
void wt_sysmon_fork_reset(void);
extern _Atomic int wt_sysmon_slow;         /* sysmon sleeps longer than its shortest delay */
bool wt_sysmon_self(void);                /* the calling thread is sysmon */
extern _Atomic int wt_sysmon_tid;          /* sysmon's OS thread id, 0 before it runs */
extern _Atomic bool wt_sysmon_made;        /* its thread exists (it may not have run yet) */

#endif
