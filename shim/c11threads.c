/*
 * c11threads.c — C11 threads (<threads.h>): thrd_*, mtx_*, cnd_*,
 * call_once, as weft's pthread functions.
 *
 * glibc (2.34 and later, in libc.so.6) implements each C11 name by a call
 * to its internal __pthread_* alias, which no interposition reaches: its
 * thrd_create would make an OS thread weft does not know (its mutex and
 * condition waits would block workers, and in trap mode the thread
 * pointer switching breaks around it), its call_once waits with a raw
 * futex.  So the C11 names are weft's here, each the pthread function
 * glibc's calls (nptl/thrd_*.c, mtx_*.c, cnd_*.c, call_once.c), with
 * glibc's mapping of the error number (thrd_err_map): 0 thrd_success,
 * ENOMEM thrd_nomem, ETIMEDOUT thrd_timedout, EBUSY thrd_busy, any other
 * thrd_error.  The calls go to weft's own definitions by their hidden
 * aliases (WT_OWN), as glibc's go to its internal ones.
 *
 * A thrd_create thread is a task made with WT_ATTR_C11 (sched/core/task.h):
 * default attributes, and a start routine returning int, whose value,
 * widened as glibc widens it, is what thrd_join gives back (and
 * pthread_join sees).  The types are glibc's pthread ones under other
 * names (thrd_t pthread_t, mtx_t pthread_mutex_t, cnd_t pthread_cond_t,
 * once_flag pthread_once_t), as glibc asserts.
 *
 * Left to glibc: tss_create, tss_delete, tss_get, tss_set (glibc's
 * pthread keys, which weft leaves to glibc too: the values live in the
 * calling task's own descriptor, and a task's exit runs their destructors,
 * sched/core/task.c), and the versions of these names in libpthread.so.0 of a
 * glibc before 2.34 (not supported, sched/base/real.h).
 */
#include <threads.h>

#include "shim.h"
#include "process/prio.h"
#include "signal/sighandler.h"
#include "core/task.h"

_Static_assert(sizeof(thrd_t) == sizeof(pthread_t), "thrd_t is a pthread_t");
_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "mtx_t is a pthread_mutex_t");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "cnd_t is a pthread_cond_t");
_Static_assert(sizeof(once_flag) == sizeof(pthread_once_t), "once_flag is a pthread_once_t");

/* weft's own definitions (WT_OWN in their files). */
WT_OWN_DECL(pthread_join);
WT_OWN_DECL(pthread_detach);
WT_OWN_DECL(pthread_exit);
WT_OWN_DECL(pthread_self);
WT_OWN_DECL(sched_yield);
WT_OWN_DECL(clock_nanosleep);
WT_OWN_DECL(pthread_mutex_init);
WT_OWN_DECL(pthread_mutex_lock);
WT_OWN_DECL(pthread_mutex_trylock);
WT_OWN_DECL(pthread_mutex_timedlock);
WT_OWN_DECL(pthread_mutex_unlock);
WT_OWN_DECL(pthread_mutex_destroy);
WT_OWN_DECL(pthread_cond_init);
WT_OWN_DECL(pthread_cond_wait);
WT_OWN_DECL(pthread_cond_timedwait);
WT_OWN_DECL(pthread_cond_signal);
WT_OWN_DECL(pthread_cond_broadcast);
WT_OWN_DECL(pthread_cond_destroy);
WT_OWN_DECL(pthread_once);

/* glibc's thrd_err_map. */
static int err_map(int e)
{
	switch (e) {
	case 0: return thrd_success;
	case ENOMEM: return thrd_nomem;
	case ETIMEDOUT: return thrd_timedout;
	case EBUSY: return thrd_busy;
	default: return thrd_error;
	}
}

WT_EXPORT int thrd_create(thrd_t *thr, thrd_start_t fn, void *arg)
{
	if (wt_runtime_start() != 0) {
		/* As pthread_create: weft is off, or this is its own start. */
		wt_real_init();
		struct wt_pin pin = wt_tls_pin();
		int r = real.thrd_create(thr, fn, arg);
		wt_tls_unpin(pin);
		return r;
	}
	int r = wt_task_create(WT_ATTR_C11, (void *(*)(void *))(void *)fn, arg, thr);
	wt_sig_unlocked(); /* as pthread_create */
	if (r)
		return err_map(-r);
	wt_prio_point();
	return thrd_success;
}

WT_EXPORT int thrd_join(thrd_t thr, int *res)
{
	void *v;
	int e = wt_own_pthread_join(thr, &v);
	if (res && e == 0)
		*res = (int)(uintptr_t)v;
	return err_map(e);
}

WT_EXPORT int thrd_detach(thrd_t thr)
{
	return err_map(wt_own_pthread_detach(thr));
}

WT_EXPORT _Noreturn void thrd_exit(int res)
{
	wt_own_pthread_exit((void *)(uintptr_t)res);
}

WT_EXPORT thrd_t thrd_current(void)
{
	return wt_own_pthread_self();
}

WT_EXPORT int thrd_equal(thrd_t a, thrd_t b)
{
	return a == b;
}

/* A relative sleep on CLOCK_REALTIME, as glibc's: 0 slept, -1 a signal
 * interrupted it (*rem, when given, the time left), -2 it failed. */
WT_EXPORT int thrd_sleep(const struct timespec *d, struct timespec *rem)
{
	int r = wt_own_clock_nanosleep(CLOCK_REALTIME, 0, d, rem);
	return r == 0 ? 0 : r == EINTR ? -1 : -2;
}

WT_EXPORT void thrd_yield(void)
{
	wt_own_sched_yield();
}

/* glibc's: recursive for mtx_recursive with mtx_plain or mtx_timed, normal
 * for any other type (an unknown one included: it is not refused). */
WT_EXPORT int mtx_init(mtx_t *m, int type)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	bool rec = type == (mtx_plain | mtx_recursive) || type == (mtx_timed | mtx_recursive);
	pthread_mutexattr_settype(&a, rec ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL);
	return err_map(wt_own_pthread_mutex_init((pthread_mutex_t *)m, &a));
}

WT_EXPORT int mtx_lock(mtx_t *m)
{
	return err_map(wt_own_pthread_mutex_lock((pthread_mutex_t *)m));
}

WT_EXPORT int mtx_trylock(mtx_t *m)
{
	return err_map(wt_own_pthread_mutex_trylock((pthread_mutex_t *)m));
}

/* abs: a TIME_UTC time, CLOCK_REALTIME's. */
WT_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict abs)
{
	return err_map(wt_own_pthread_mutex_timedlock((pthread_mutex_t *)m, abs));
}

WT_EXPORT int mtx_unlock(mtx_t *m)
{
	return err_map(wt_own_pthread_mutex_unlock((pthread_mutex_t *)m));
}

WT_EXPORT void mtx_destroy(mtx_t *m)
{
	wt_own_pthread_mutex_destroy((pthread_mutex_t *)m);
}

WT_EXPORT int cnd_init(cnd_t *c)
{
	return err_map(wt_own_pthread_cond_init((pthread_cond_t *)c, NULL));
}

WT_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	return err_map(wt_own_pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m));
}

/* abs: a TIME_UTC time (cnd_init's condition waits on CLOCK_REALTIME). */
WT_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
			    const struct timespec *restrict abs)
{
	return err_map(wt_own_pthread_cond_timedwait((pthread_cond_t *)c, (pthread_mutex_t *)m,
						     abs));
}

WT_EXPORT int cnd_signal(cnd_t *c)
{
	return err_map(wt_own_pthread_cond_signal((pthread_cond_t *)c));
}

WT_EXPORT int cnd_broadcast(cnd_t *c)
{
	return err_map(wt_own_pthread_cond_broadcast((pthread_cond_t *)c));
}

/* Waits for waiters woken but not yet counted out, as pthread_cond_destroy. */
WT_EXPORT void cnd_destroy(cnd_t *c)
{
	wt_own_pthread_cond_destroy((pthread_cond_t *)c);
}

WT_EXPORT void call_once(once_flag *flag, void (*fn)(void))
{
	wt_own_pthread_once((pthread_once_t *)flag, fn);
}
