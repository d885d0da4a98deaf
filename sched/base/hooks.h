/*
 * hooks.h — the three calls base/ makes into the runtime above it.
 *
 * base/ includes no header of another folder of sched/ (sched/README.md).
 * Two of its last resorts need a layer above: a message printed on a
 * thread whose descriptor table is weft's own goes to the program's
 * stderr through io/privfd.c's helper, and a broken invariant marks every
 * live stack into the core (stack/stack.c) before it dies.  Those calls
 * are declared here, owned by base/, and defined where they live (whose
 * headers include this one, so a definition that strays from its
 * declaration does not compile): plain calls, as they were.
 */
#ifndef WEFT_BASE_HOOKS_H
#define WEFT_BASE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

/* io/privfd.c.  A message to the program's stderr (descriptor 2 of its
 * table), from any thread of weft's, one of its own table included.
 * Context: not a signal handler. */
void wt_privfd_say(const char *buf, size_t n);
/* io/privfd.c.  The calling thread's table is weft's own: its descriptor 2
 * is not the program's stderr (print.c says its messages through
 * wt_privfd_say).  One gettid when such a thread exists; reads no TLS.
 * Context: any. */
bool wt_privfd_self(void);

/* stack/stack.c.  A fatal fault: every live home slot's top into a core
 * (signal/crash.c, throw.c). */
void wt_stack_dump_all(void);

#endif
