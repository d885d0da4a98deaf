/*
 * shmap.h — the address ranges this process maps shared (shmap.c): where a
 * futex word another process may see can lie.
 */
#ifndef WEFT_SHMAP_H
#define WEFT_SHMAP_H

#include "base/base.h"

/* Whether the futex word at addr may be in memory another process maps:
 * in a range a MAP_SHARED mmap, an mremap of one or a shmat made, or
 * anywhere once the table could not keep up (full, or torn by a fork).
 * Errors are on the shared side: a wait asks, a wake never does (it wakes
 * parked tasks first, then the kernel's waiters).  Context: any; no
 * system call, no lock, never blocks (a reader that meets a change under
 * way retries, and after 1,000 tries answers shared). */
bool wt_shmap_shared(const void *addr);

/* A flagless FUTEX_WAKE of up to n waiters on w made by weft itself (a
 * task's clear-tid word at its exit, a robust mutex its owner left): the
 * program's own waiters on w may be parked tasks (shim/syscall.c), woken
 * first; the kernel's waiters get what is left.  Returns the count woken.  Context: a task or g0; may
 * make a system call; never parks. */
int wt_shmap_wake(_Atomic int *w, int n);

/* What the program did, told after the kernel said yes (the result in
 * hand, before it goes back to the program).  Context: any thread, with
 * or without the runtime; takes shmap's lock only when the table
 * changes; never parks or allocates.
 *   mmap:   [p, p+len) is now what flags say (MAP_SHARED or
 *           MAP_SHARED_VALIDATE: shared; anything else: private);
 *   munmap: [p, p+len) is no longer mapped;
 *   mremap: [old, old+oldlen) moved or grew to [p, p+newlen) (MREMAP_*
 *           flags; an oldlen of 0 duplicates a shared mapping);
 *   shmat:  the System V segment id is attached at p;
 *   shmdt:  the segment attached at p is detached. */
void wt_shmap_mmap(void *p, size_t len, int flags);
void wt_shmap_munmap(void *p, size_t len);
void wt_shmap_mremap(void *old, size_t oldlen, void *p, size_t newlen, int flags);
void wt_shmap_shmat(void *p, int id);
void wt_shmap_shmdt(const void *p);

/* Fork child: a change cut short by the fork leaves the table untrusted
 * (every address counts as shared from then on). */
void wt_shmap_fork_reset(void);

#endif
