/*
 * pi.c — priority inheritance among tasks.
 *
 * A PTHREAD_PRIO_INHERIT mutex (not robust, not process-shared) is weft's
 * own: its __lock word holds the holder's id (the tid field of its TCB,
 * as glibc writes it) and WT_PI_WAITERS while someone waits, the layout of
 * glibc's; waiters park on the word (core/park.c).  A private PI futex a task
 * runs itself through syscall() (FUTEX_LOCK_PI, ...: shim/syscall.c) is
 * the same kind of word, holding the id gettid gives the holder.  The kernel's PI futexes are
 * not used: they name OS threads, and a task moves between workers.
 *
 * Lending.  A task that waits records the word in t->pi_wait (rtq.lock);
 * a holder's boost is the highest eff of the tasks waiting on words it
 * holds, and its eff the higher of that and its own priority (prio.c), so
 * it runs from the real-time queue at that priority.  The boost is
 * recomputed when a waiter starts or stops waiting and when the holder
 * releases a word, and follows a chain (the holder itself waiting on a
 * word held by a third task) up to 16 links.  Each recomputation walks the
 * list of all tasks under alllock: contention on these mutexes is rare,
 * and tasks are few where they are used.
 *
 * Hand-over.  A release wakes every waiter; they run in priority order
 * (the highest first, as the kernel hands a PI futex over) and the first
 * to run takes the word; the others park again.
 */
#include <errno.h>

#include "core/runtime.h"
#include "core/park.h"
#include "pi.h"
#include "prio.h"
#include "core/rtq.h"
#include "core/task.h"
#include "cpuclock.h"

/* A waiter sleeps only while the word still says someone waits: an
 * unlock that cleared the bit has woken (or will find) nobody parked, and
 * a task that took the word meanwhile without waiting did not set it, so
 * its unlock would wake no one. */
static bool still_held(const void *addr, uintptr_t arg)
{
	(void)arg;
	return atomic_load_explicit((_Atomic int *)addr, memory_order_relaxed) & WT_PI_WAITERS;
}

/* The holder a word names: by the tid field of its TCB (a mutex's), or
 * by the id gettid gives it (a futex the program runs itself through
 * syscall(), shim/syscall.c).  The two kinds of id never meet.  [alllock] */
static struct wt_task *task_of_tid(int tid)
{
	for (struct wt_task *t = wt_sched.alltasks; t; t = t->alllink)
		if (t->tid == tid)
			return t;
	return wt_task_by_kernel_id_locked(tid);
}

/* The holder of a word (tid) gets the highest eff of the tasks that wait
 * on words it holds; then the task it waits for, along the chain.
 * Context: any; takes alllock, then rtq.lock. */
static void recompute(int tid)
{
	struct wt_task *requeue[16];
	int nrq = 0;
	wt_lock(&wt_sched.alllock);
	for (int depth = 0; depth < 16 && tid; depth++) {
		struct wt_task *o = task_of_tid(tid);
		if (!o)
			break;
		wt_rtq_lock();
		int b = 0;
		int kid = wt_task_kernel_id(o);
		for (struct wt_task *w = wt_sched.alltasks; w; w = w->alllink) {
			if (!w->pi_wait)
				continue;
			int h = WT_PI_TID(atomic_load_explicit((_Atomic int *)w->pi_wait,
							       memory_order_relaxed));
			if (h != o->tid && h != kid)
				continue;
			int e = atomic_load_explicit(&w->eff, memory_order_relaxed);
			if (e > b)
				b = e;
		}
		int old = atomic_load_explicit(&o->eff, memory_order_relaxed);
		atomic_store_explicit(&o->boost, b, memory_order_relaxed);
		if (wt_prio_update_locked(o))
			requeue[nrq++] = o;
		bool moved = atomic_load_explicit(&o->eff, memory_order_relaxed) != old;
		const void *next = o->pi_wait;
		wt_rtq_unlock();
		if (!moved || !next)
			break;
		tid = WT_PI_TID(atomic_load_explicit((_Atomic int *)next, memory_order_relaxed));
	}
	wt_unlock(&wt_sched.alllock);
	for (int i = 0; i < nrq; i++)
		wt_prio_requeue_other(requeue[i]);
}

static void set_wait(struct wt_task *t, const void *w)
{
	wt_rtq_lock();
	t->pi_wait = w;
	wt_rtq_unlock();
}

int wt_pi_trylock(_Atomic int *w, int me)
{
	int z = 0;
	return atomic_compare_exchange_strong_explicit(w, &z, me, memory_order_acquire,
						       memory_order_relaxed)
		       ? 0
		       : -EBUSY;
}

int wt_pi_lock(_Atomic int *w, int me, int64_t deadline, bool cancel)
{
	struct wt_task *t = wt_cur();
	bool waited = false;
	for (;;) {
		int v = atomic_load_explicit(w, memory_order_relaxed);
		if (v == 0) {
			/* After a wait others may still wait: keep the bit. */
			int want = me | (waited ? (int)WT_PI_WAITERS : 0);
			if (atomic_compare_exchange_weak_explicit(w, &v, want, memory_order_acquire,
								  memory_order_relaxed))
				break;
			continue;
		}
		if (!(v & WT_PI_WAITERS) &&
		    !atomic_compare_exchange_weak_explicit(w, &v, v | (int)WT_PI_WAITERS,
							   memory_order_relaxed, memory_order_relaxed))
			continue;
		if (t) {
			set_wait(t, w);
			recompute(WT_PI_TID(v));
		}
		wt_wait_reason("pthread_mutex_lock");
		int r = wt_park(w, still_held, 0, deadline, cancel);
		if (t)
			set_wait(t, NULL);
		waited = true;
		if (r == WT_PARK_TIMEDOUT || r == WT_PARK_CANCELED) {
			int z = 0;
			if (atomic_compare_exchange_strong_explicit(w, &z, me | (int)WT_PI_WAITERS,
								    memory_order_acquire,
								    memory_order_relaxed))
				break;
			int h = WT_PI_TID(atomic_load_explicit(w, memory_order_relaxed));
			if (t && h)
				recompute(h); /* it no longer lends to the holder */
			return r == WT_PARK_CANCELED ? -ECANCELED : -ETIMEDOUT;
		}
	}
	return 0;
}

void wt_pi_unlock(_Atomic int *w)
{
	/* Release: pairs with the acquiring CAS of the next holder. */
	int v = atomic_exchange_explicit(w, 0, memory_order_release);
	if (v & WT_PI_WAITERS)
		wt_unpark(w, 0x7fffffff);
	struct wt_task *t = wt_cur();
	if (t && atomic_load_explicit(&t->boost, memory_order_relaxed))
		recompute(t->tid);
	wt_prio_point();
}
