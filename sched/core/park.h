/*
 * park.h — the parking lot (park.c): waiters keyed by address, for tasks
 * (which park) and threads weft did not create (which block on a futex).
 */
#ifndef WEFT_PARK_H
#define WEFT_PARK_H

#include "base/base.h"

/* How a wait ended: wt_park's result. */
enum wt_park_result {
	WT_PARK_WOKEN = 0,
	WT_PARK_TIMEDOUT = 1,
	WT_PARK_INVALID = 2,   /* validate() said no: never parked */
	WT_PARK_CANCELED = 3,  /* pthread_cancel ended a cancelable wait */
	WT_PARK_INTR = 4,      /* a signal for the task: its handler ran, as after EINTR */
};

enum { WT_WAITER_WAITING = 0, WT_WAITER_WOKEN = 1 };

struct wt_waiter {
	struct wt_waiter *next;     /* [bucket lock] */
	const void *addr;           /* [bucket lock] key */
	struct wt_task *task;       /* [const] NULL for an OS thread that is not a task */
	_Atomic int state;          /* [atomic] WT_WAITER_*; the futex word for threads */
	int result;                 /* [bucket lock] enum wt_park_result */
	bool cancelable;            /* [const] pthread_cancel may end this wait */
	bool counted;               /* [const] addr is a counted key: leaving the
				     * queue takes this waiter out of its count */
	int prio;                   /* [bucket lock; fixed while queued] the
				     * task's SCHED_FIFO/RR priority as it
				     * queued; 0 for any other policy */
	uintptr_t token;            /* [bucket lock] value passed by the waker */
};

/* Parks the caller on addr if validate(addr, arg) still holds under the
 * bucket lock.  deadline: mono ns or -1.  Returns enum wt_park_result.
 * Context: a task (parks) or any thread (blocks on a futex). */
int wt_park(const void *addr, bool (*validate)(const void *, uintptr_t), uintptr_t arg,
	    int64_t deadline, bool cancelable);
int wt_park_sleep(int64_t deadline);          /* a task's sleep: nobody wakes it */

/* Counted keys (a condition variable's): the key is a 32-bit sequence
 * word and the 32-bit word after it counts the waiters queued on it (or
 * about to be); both are written only under the key's bucket lock, so a
 * waker reads the count without a lock and a woken waiter never touches
 * either again.
 *   wt_park_release: parks on key, counted in as it is queued; once the
 *     task is off its stack, release(m, arg) runs on its worker (m; its g0
 *     or the next task), and only then may a waker's ready run it: the
 *     caller's lock is released without a window where a wake could be
 *     lost.  A wait that never queues runs release(NULL, arg) itself
 *     before it returns, as does an OS thread after it queued.
 *   wt_park_count_in / wt_park_counted: for a caller that must release
 *     its lock itself first: count in (returns the key's value), release,
 *     then park while the key still holds that value; counted out however
 *     the wait ends (wt_park_count_out if it never gets to park).
 *   wt_unpark_bump: the key's value moves on, then up to n are woken. */
typedef void (*wt_park_release_fn)(struct wt_m *m, void *arg);
int wt_park_release(const void *key, int64_t deadline, bool cancelable,
		    wt_park_release_fn release, void *arg);
unsigned wt_park_count_in(const void *key);
void wt_park_count_out(const void *key);
int wt_park_counted(const void *key, unsigned seq, int64_t deadline, bool cancelable);
int wt_unpark_bump(const void *key, int n);
bool wt_park_woken_counted(struct wt_task *t); /* see park.c */
/* A validate for a 32-bit sequence word: it still holds seq. */
bool wt_seq_unchanged(const void *key, uintptr_t seq);          /* a task's sleep: nobody wakes it */
int wt_unpark(const void *addr, int n);        /* wakes up to n; returns count */
int wt_unpark_token(const void *addr, int n, uintptr_t token);
int wt_unpark_g0(const void *addr, int n, struct wt_m *m); /* on m's g0 */
bool wt_park_has_waiters(const void *addr);
/* Dequeues up to n task waiters into list (linked by schedlink), to be made
 * runnable together (wt_inject); returns the count. */
int wt_unpark_collect(const void *addr, int n, struct wt_task **list);
void wt_park_cancel(struct wt_task *t);        /* pthread_cancel of a parked t */
bool wt_park_interrupt(struct wt_task *t);     /* a signal for t: true if taken out of a wait */
bool wt_park_intr_locked(struct wt_task *t);   /* after_park: a signal came as t switched out */
void wt_park_fork_reset(void);

#endif
