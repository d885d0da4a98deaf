/*
 * real.c — the table of libc originals (see real.h).
 *
 * Resolved on first use, from whichever entry point runs first: weft can be
 * entered before its constructor (an allocator calling pthread_self while it
 * initialises).  dlsym(RTLD_NEXT) does not allocate when the name exists.
 */
#include <dlfcn.h>
#include <stdatomic.h>

#include "real.h"
#include "print.h"
#include "throw.h"

struct wt_real real;
static _Atomic int done;

static void *must(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p) {
		wt_print("weft: libc has no %s; this libc is not supported\n", name);
		wt_throw("missing libc symbol");
	}
	return p;
}

static void *maybe(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

void wt_real_init(void)
{
	if (atomic_load_explicit(&done, memory_order_acquire))
		return;
#define R(f) real.f = must(#f)
	R(pthread_create);
	R(pthread_join);
	R(pthread_detach);
	R(pthread_attr_init);
	R(pthread_attr_destroy);
	R(pthread_attr_setdetachstate);
	R(pthread_attr_setstacksize);
	R(pthread_attr_setstack);
	R(pthread_getattr_np);
	R(pthread_sigmask);
	R(sigaction);
	R(pthread_kill);
	R(pthread_setname_np);
	R(pthread_getname_np);
	R(pthread_mutex_lock);
	R(pthread_mutex_trylock);
	R(pthread_mutex_timedlock);
	R(pthread_mutex_unlock);
	R(pthread_mutex_init);
	R(pthread_mutex_destroy);
	R(pthread_mutex_consistent);
	R(pthread_cond_wait);
	R(pthread_cond_timedwait);
	R(pthread_cond_signal);
	R(pthread_cond_broadcast);
	R(pthread_cond_init);
	R(pthread_cond_destroy);
	R(exit);
	R(pthread_exit);
	real.pthread_mutex_clocklock = maybe("pthread_mutex_clocklock");
	real.pthread_cond_clockwait = maybe("pthread_cond_clockwait");
	real.libc_start_main = must("__libc_start_main");
#undef R
	atomic_store_explicit(&done, 1, memory_order_release);
}
