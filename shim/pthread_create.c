/*
 * pthread_create.c — thread lifecycle: create, join, detach, exit, self.
 *
 * Every pthread becomes a task (sched/core/task.c).  A pthread_t of a task is
 * its TCB address, as glibc's is, so pthread_self() and glibc's own
 * THREAD_SELF agree.  A pthread_t weft did not make (a thread that existed
 * before weft started) is passed to glibc.
 */
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <string.h>

#include <sys/syscall.h>

#include "shim.h"
#include "process/tidaddr.h"
#include "process/prio.h"
#include "core/proc.h"
#include "signal/sighandler.h"
#include "stack/stack.h"
#include "core/task.h"
#include "stack/tls.h"
#include "core/unjoined.h"

WT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			     void *arg)
{
	if (wt_runtime_start() != 0) {
		wt_real_init();
		/* glibc blocks every signal, then reads TLS (trap mode: pinned). */
		struct wt_pin pin = wt_tls_pin();
		int r = real.pthread_create(th, attr, fn, arg);
		wt_tls_unpin(pin);
		return r;
	}
	int r = wt_task_create(attr, fn, arg, (unsigned long *)th);
	/* A handler held back while the creation held weft's locks (the
	 * task list, slabs, stacks) runs before the caller goes on. */
	wt_sig_unlocked();
	if (r)
		return -r;
	wt_prio_point(); /* created above the caller: it runs first */
	return 0;
}

/* weft's own pthread_create, whatever definition comes first in the
 * process (shim/dlsym.c hands it out). */
extern __typeof__(pthread_create) wt_own_pthread_create
	__attribute__((alias("pthread_create"), visibility("hidden"), nothrow));

/* glibc from 2.43 keeps a thread's state in one word (joinstate): an
 * ended thread's cached descriptor says "exited" whether it was joined or
 * detached, and join, tryjoin, timedjoin and detach on it return 0. */
static bool joins_ended(void)
{
	static int v; /* 0 unknown, 1 no, 2 yes: each thread computes the same */
	int k = __atomic_load_n(&v, __ATOMIC_RELAXED);
	if (!k) {
		unsigned maj = 0, min = 0;
		sscanf(gnu_get_libc_version(), "%u.%u", &maj, &min);
		k = maj > 2 || (maj == 2 && min >= 43) ? 2 : 1;
		__atomic_store_n(&v, k, __ATOMIC_RELAXED);
	}
	return k == 2;
}

/* A pthread_t of weft's whose task is gone, as glibc answers for a
 * descriptor it cached: before 2.43, joined, the tid it set to -1 makes
 * join, timedjoin and detach ESRCH and tryjoin EBUSY; detached, its joinid
 * makes join and detach EINVAL; from 2.43 each is 0 (joins_ended).  try:
 * tryjoin.  -1 when th was never weft's. */
static int ended_join_err(pthread_t th, bool try)
{
	int e = wt_task_ended(th);
	if (e < 0)
		return -1;
	if (joins_ended())
		return 0;
	if (e == WT_ENDED_DETACHED)
		return EINVAL;
	return try ? EBUSY : ESRCH;
}

/* deadline: mono ns, -1 forever, WT_JOIN_TRY. */
static int join(pthread_t th, void **ret, int64_t deadline)
{
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	if (!t) {
		wt_task_lookup_end();
		/* Exited before this join, its record swapped for a small one. */
		if (wt_task_unjoined_end(th, ret, WT_ENDED_JOINED) == 0)
			return 0;
		int e = ended_join_err(th, deadline == WT_JOIN_TRY);
		if (e >= 0)
			return e;
		wt_real_init();
		if (deadline == -1)
			return real.pthread_join(th, ret);
		return ESRCH;
	}
	if (t == wt_cur()) {
		wt_task_lookup_end();
		return EDEADLK;
	}
	int r = wt_task_join(t, ret, deadline); /* ends the lookup section */
	wt_sig_unlocked(); /* a join that did not park took weft's locks */
	if (r == -ECANCELED)
		wt_cancel_act();
	return -r;
}

WT_EXPORT int pthread_join(pthread_t th, void **ret)
{
	wt_testcancel();
	return join(th, ret, -1);
}
WT_OWN(pthread_join);

WT_EXPORT int pthread_tryjoin_np(pthread_t th, void **ret)
{
	return join(th, ret, WT_JOIN_TRY);
}

static int timedjoin(pthread_t th, void **ret, clockid_t clk, const struct timespec *abs)
{
	if (abs && !wt_ts_valid(abs))
		return EINVAL;
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
		return EINVAL;
	wt_testcancel();
	return join(th, ret, abs ? wt_deadline(clk, abs) : -1);
}

WT_EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abs)
{
	return timedjoin(th, ret, CLOCK_REALTIME, abs);
}

WT_EXPORT int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clk,
				   const struct timespec *abs)
{
	return timedjoin(th, ret, clk, abs);
}

WT_EXPORT int pthread_detach(pthread_t th)
{
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	if (t) {
		int r = -wt_task_detach(t);
		wt_task_lookup_end();
		return r;
	}
	wt_task_lookup_end();
	if (wt_task_unjoined_end(th, NULL, WT_ENDED_DETACHED) == 0)
		return 0;
	{
		int e = ended_join_err(th, false);
		if (e >= 0)
			return e;
		wt_real_init();
		return real.pthread_detach(th);
	}
}
WT_OWN(pthread_detach);

WT_EXPORT void pthread_exit(void *ret)
{
	/* glibc's forced unwind runs cleanup handlers and C++ destructors and
	 * lands in the cancel buffer of the task's first frame (sched/core/task.c). */
	wt_task_unwind(ret);
}
WT_OWN(pthread_exit);

WT_EXPORT pthread_t pthread_self(void)
{
	return (pthread_t)wt_arch_tcb_self();
}
WT_OWN(pthread_self);

WT_EXPORT int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

WT_EXPORT int pthread_getattr_np(pthread_t th, pthread_attr_t *a)
{
	wt_real_init();
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	struct wt_unjoined u;
	char *top;
	size_t size, guard;
	bool detached = false;
	/* glibc asks the kernel for the thread's CPU mask with the tid in its
	 * descriptor: 0 once the thread has exited, which names the caller.
	 * 1,024 CPUs at most: a bigger buffer is a stack page more in every
	 * parked task that asked (default_small_stack's bound). */
	uint64_t mask[16];
	size_t masklen;
	if (t && !(t->main && t->slot < 0)) {
		top = t->stack_top;
		size = t->stack_size;
		guard = t->user_stack ? 0 : t->guard_size;
		detached = wt_task_detached(t);
		masklen = wt_shim_attr_aff(wt_task_dead(t) ? NULL : t, (cpu_set_t *)mask, sizeof mask);
	} else if (!t && wt_runtime_on() && wt_unjoined_find(wt_tls_tp_of(th), &u)) {
		/* Exited unjoined, a small record left (sched/core/unjoined.c). */
		top = u.stack_top;
		size = u.stack_size;
		guard = u.guard_size;
		masklen = wt_shim_attr_aff(NULL, (cpu_set_t *)mask, sizeof mask);
	} else {
		wt_task_lookup_end();
		return real.pthread_getattr_np(th, a);
	}
	wt_task_lookup_end();
	real.pthread_attr_init(a);
	/* As glibc reports a thread: the whole block, TCB and static TLS at its
	 * top, the guard (as the attr asked) under it; a program-supplied stack
	 * as given, with no guard.  A growable stack reports its native size,
	 * which it has from the start (sched/stack/stack.c). */
	pthread_attr_setstack(a, top - size, size);
	pthread_attr_setguardsize(a, guard);
	pthread_attr_setdetachstate(a, detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE);
	if (masklen && pthread_attr_setaffinity_np(a, masklen, (cpu_set_t *)mask) != 0) {
		pthread_attr_destroy(a);
		return ENOMEM;
	}
	return 0;
}

/* glibc's header redirects pthread_yield to sched_yield; define the real
 * name through an asm label.  export: pthread_yield */
int wt_pthread_yield(void) __asm__("pthread_yield");
__attribute__((visibility("default"))) int wt_pthread_yield(void)
{
	wt_yield();
	wt_cancel_async_point();
	return 0;
}

WT_EXPORT int sched_yield(void)
{
	if (!wt_cur())
		return (int)wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	wt_yield();
	wt_cancel_async_point();
	return 0;
}
WT_OWN(sched_yield);

/* The program's new default attribute: glibc keeps it, and weft takes its
 * stack size (its stacksize word, 0 when the attribute has none, in which
 * case glibc keeps the old default size) and guard for the threads it
 * creates without them. */
WT_EXPORT int pthread_setattr_default_np(const pthread_attr_t *a)
{
	wt_real_init();
	int r = real.pthread_setattr_default_np(a);
	if (r == 0) {
		size_t guard = 0;
		pthread_attr_getguardsize(a, &guard);
		wt_stack_prog_default_set(((const size_t *)(const void *)a)[4], guard);
	}
	return r;
}

/* A task's name is its own: the worker's is left alone (README: the
 * kernel's /proc names the OS threads).  Never named, a task has its
 * creator's name, and main the process's (the kernel's comm of the
 * thread, which weft never renames). */
WT_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	if (!t) {
		wt_task_lookup_end();
		if (wt_runtime_on() && wt_task_ended(th) >= 0)
			return strlen(name) > 15 ? ERANGE : ENOENT; /* exited: see below */
		wt_real_init();
		return real.pthread_setname_np(th, name);
	}
	int r = 0;
	if (strlen(name) > 15)
		r = ERANGE;
	else if (wt_task_dead(t))
		r = ENOENT;
	else
		wt_task_name_set(t, name);
	wt_task_lookup_end();
	return r;
}

/* t's name into buf[16]. */
static void task_name(struct wt_task *t, char *buf)
{
	wt_task_name_copy(t, buf);
	if (!buf[0]) {
		wt_real_init();
		real.prctl(PR_GET_NAME, (unsigned long)buf, 0, 0, 0);
	}
}

/* pthread_getname_np and pthread_setname_np on a thread that has exited:
 * glibc opens /proc/self/task/TID/comm with the tid in its descriptor, 0
 * (the kernel cleared it) or -1 (a join set it), and fails with ENOENT,
 * after its ERANGE for a size or a name that cannot be the kernel's. */
WT_EXPORT int pthread_getname_np(pthread_t th, char *buf, size_t len)
{
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	if (!t) {
		wt_task_lookup_end();
		if (wt_runtime_on() && wt_task_ended(th) >= 0)
			return len < 16 ? ERANGE : ENOENT;
		wt_real_init();
		return real.pthread_getname_np(th, buf, len);
	}
	/* glibc: ERANGE below the kernel's 16 bytes, whatever the name. */
	if (len < 16 || wt_task_dead(t)) {
		wt_task_lookup_end();
		return len < 16 ? ERANGE : ENOENT;
	}
	char name[16];
	wt_task_name_copy(t, name);
	wt_task_lookup_end();
	memcpy(buf, name, 16);
	if (!buf[0]) {
		wt_real_init();
		real.prctl(PR_GET_NAME, (unsigned long)buf, 0, 0, 0);
	}
	return 0;
}

/* prctl: PR_SET_NAME and PR_GET_NAME name the calling task, as natively
 * the calling thread (a longer name is cut to 15 bytes, as the kernel
 * does); PR_GET_TID_ADDRESS gives the task's clear-tid word
 * (sched/process/tidaddr.c); every other option is libc's. */
WT_EXPORT int prctl(int op, ...)
{
	va_list ap;
	va_start(ap, op);
	unsigned long a = va_arg(ap, unsigned long), b = va_arg(ap, unsigned long);
	unsigned long c = va_arg(ap, unsigned long), d = va_arg(ap, unsigned long);
	va_end(ap);
	struct wt_task *t = wt_cur();
	wt_real_init();
	if (t && op == PR_GET_TID_ADDRESS) {
		if (!a) { /* the kernel's put_user fails */
			errno = EFAULT;
			return -1;
		}
		*(unsigned long *)a = wt_tidaddr_get(t);
		return 0;
	}
	if (!t || (op != PR_SET_NAME && op != PR_GET_NAME)) {
		int r = real.prctl(op, a, b, c, d);
		wt_prio_creds_changed(); /* capability sets, secure bits */
		return r;
	}
	char buf[16];
	if (op == PR_SET_NAME) {
		/* The kernel copies at most 15 bytes and fails on a bad address;
		 * an address weft cannot read is left to it. */
		if (!a)
			return real.prctl(op, a, b, c, d);
		const char *name = (const char *)a;
		int i = 0;
		for (; i < 15 && name[i]; i++)
			buf[i] = name[i];
		buf[i] = 0;
		wt_task_name_set(t, buf);
		return 0;
	}
	if (!a)
		return real.prctl(op, a, b, c, d);
	task_name(t, buf);
	memcpy((char *)a, buf, 16);
	return 0;
}
