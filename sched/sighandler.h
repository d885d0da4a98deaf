/*
 * sighandler.h — the program's signal handlers run through weft's
 * trampoline, which defers those that interrupt weft's own code
 * (sighandler.c).
 */
#ifndef WEFT_SIGHANDLER_H
#define WEFT_SIGHANDLER_H

#include <signal.h>

#include "base.h"

/* sigaction for a signal weft takes (wt_sig_takes): the kernel keeps
 * weft's handler (SIGSEGV, SIGBUS, SIGURG) or gets the trampoline, and the
 * program's handler is recorded.  0 or -errno, as libc's sigaction fails.
 * Context: any (async-signal-safe). */
bool wt_sig_takes(int sig);
int wt_sig_action(int sig, const struct sigaction *sa, struct sigaction *old);

/* The program's handlers for the signals weft takes, one record each
 * (sighandler.c: written on any thread, read by handlers on any thread;
 * a reader sees a record whole and never waits).  Context: any, a signal
 * handler included; sig in 1..64. */
/* The recorded handler in *out (out may be NULL); false: none. */
bool wt_sig_handler_get(int sig, struct sigaction *out);
/* Records sa (NULL: forgets); the previous one in *old (old may be NULL),
 * returning whether there was one. */
bool wt_sig_handler_set(int sig, const struct sigaction *sa, struct sigaction *old);
/* As get, for a delivery: a one-shot handler (SA_RESETHAND) is forgotten. */
bool wt_sig_handler_take(int sig, struct sigaction *out);
void wt_sig_handlers_fork_reset(void);      /* fork child */

void wt_sig_trampoline(int sig, siginfo_t *si, void *uc);
void wt_sig_defer_poke(void);               /* sysmon: poke threads with deferred ones */
void wt_sig_redeliver(void *uc);            /* a poke on this thread: raise them again */
bool wt_sig_main_info(int sig, siginfo_t *out); /* siginfo of a signal moved to main */

#endif
