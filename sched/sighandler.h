/*
 * sighandler.h — the program's signal handlers run through weft's
 * trampoline, which defers those that interrupt weft's own code
 * (sighandler.c).
 */
#ifndef WEFT_SIGHANDLER_H
#define WEFT_SIGHANDLER_H

#include <signal.h>

#include "base.h"

/* The program's handlers for the signals weft owns a handler for
 * (SIGSEGV, SIGBUS, SIGURG, SIGQUIT, ...), recorded by sigaction's shim.
 * [written by sigaction on the program's behalf; read by the handlers] */
extern struct sigaction wt_user_sa[65];
extern bool wt_user_sa_set[65];

void wt_sig_trampoline(int sig, siginfo_t *si, void *uc);
void wt_sig_defer_poke(void);               /* sysmon: poke threads with deferred ones */
void wt_sig_redeliver(void *uc);            /* a poke on this thread: raise them again */
bool wt_sig_main_info(int sig, siginfo_t *out); /* siginfo of a signal moved to main */

#endif
