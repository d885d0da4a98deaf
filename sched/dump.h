/* dump.h — SIGQUIT's dump of every task (dump.c). */
#ifndef WEFT_DUMP_H
#define WEFT_DUMP_H

#include <signal.h>

#include "base.h"

extern _Atomic int wt_dump_req;            /* [atomic] SIGQUIT asked; sysmon reads */
void wt_dump_init(void);                   /* start, after sysmon */
void wt_dump_start(void);                  /* sysmon: start the dumper thread */
bool wt_dump_fault(void);                  /* crash.c: a fault in the dumper's walk */
void wt_dump_hide(struct sigaction *old);  /* sigaction: weft's handler reads as SIG_DFL */
void wt_dump_fork_reset(void);

#endif
