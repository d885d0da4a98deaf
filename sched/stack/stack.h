/*
 * stack.h — task stacks carved from one reserved arena (stack.c).
 */
#ifndef WEFT_STACK_H
#define WEFT_STACK_H

#include "base/hooks.h"
#include "core/runtime.h"

/* 0 or -errno; fixed: exactly size bytes, no growth (stack.c). */
int wt_stack_alloc(struct wt_task *t, size_t size, size_t guard, bool fixed);
int wt_stack_user(struct wt_task *t, char *addr, size_t size); /* pthread_attr_setstack */
void wt_stack_touched(uintptr_t addr, size_t len); /* the program remapped it */
/* Before the kernel writes [buf, buf + len): a guard page there moves first. */
void wt_stack_prepare(const void *buf, size_t len);
/* How a released task ended, remembered by its free home slot so that a
 * stale pthread_t gets glibc's answers (core/task.c: wt_task_ended). */
enum { WT_ENDED_UNKNOWN = 0, WT_ENDED_JOINED = 1, WT_ENDED_DETACHED = 2 };
void wt_stack_free(struct wt_task *t, struct wt_p *p, int ended); /* ended: WT_ENDED_* */
struct wt_task *wt_stack_owner(uintptr_t addr); /* task whose slot holds addr */
/* A joinable task exited: its slot goes back now, its pthread_t stays
 * reserved (true), or it keeps its stack until its join (false).
 * Context: g0. */
bool wt_stack_exit_release(struct wt_task *t, struct wt_p *p);
void wt_stack_unjoined_end(uintptr_t tp, int ended); /* its join or detach */
bool wt_stack_in_arena(uintptr_t addr);
int wt_stack_ended(uintptr_t addr); /* WT_ENDED_* of a free slot's last task; -1: not the arena */

/* What a fault at a guard page was (wt_stack_grow). */
enum { WT_NOT_GUARD = 0, WT_GROWN = 1, WT_OVERFLOW = 2 };
struct wt_overflow {
	size_t limit, depth;            /* bytes */
	struct wt_task *blocker;        /* a task whose stack lies below, or NULL */
};
int wt_stack_grow(struct wt_task *t, uintptr_t addr, struct wt_overflow *info);
void wt_stack_scavenge(int64_t now);       /* sysmon: return free slots' memory */
void wt_stack_idle_trim(void);             /* an idle worker: trim malloc's heaps after a scavenge */
bool wt_stack_prefault(void);               /* an idle worker: one fresh slot made ready */
bool wt_stack_idle_work(void);             /* wt_stack_idle_trim has something to do (sysmon) */
void wt_stack_stats(long *live, long *warm, long *nslots);
/* wt_stack_dump_all (a fatal fault: every live stack's top into a core):
 * base/hooks.h, for base/throw.c and signal/crash.c. */
void wt_stack_fork_reset(void);
extern size_t wt_default_stack, wt_stack_max;
/* The program's default thread stack (pthread_setattr_default_np): a size
 * (0: none set) that threads created without one get, fixed, and the
 * guard that threads created without an attribute get. */
void wt_stack_prog_default_set(size_t size, size_t guard);
size_t wt_stack_prog_default(size_t *guard);
extern const char *wt_guard_method;

#endif
