/*
 * setxid.h — a change of user or group ids applied to every OS thread of
 * the process, as POSIX wants and glibc does for its own threads
 * (setxid.c).
 */
#ifndef WEFT_SETXID_H
#define WEFT_SETXID_H

#include <signal.h>

#include "base/base.h"

/* Makes system call nr(a, b, c) (setuid, setresuid, setgroups, ...) on
 * every thread, the caller's last.  0 or -errno.  Context: any; blocks
 * the calling thread until every thread has made it. */
long wt_setxid(long nr, long a, long b, long c);
/* The SIGURG handler: a request of wt_setxid's?  Then it is done. */
bool wt_setxid_signal(const siginfo_t *si);
void wt_setxid_poll(void);                 /* sysmon, which blocks SIGURG */
void wt_setxid_fork_reset(void);

#endif
