/*
 * dlsym.c — dlsym(RTLD_NEXT, "pthread_create") from a library after weft.
 *
 * A library loaded after libweft.so that looks up "the next"
 * pthread_create gets glibc's and bypasses weft: jemalloc makes its
 * background thread with dlsym(RTLD_NEXT, "pthread_create"), and that
 * thread is then an OS thread weft does not run, started by glibc's
 * pthread_create from a task without weft's thread-pointer pin (in trap
 * mode, sched/stack/tls.c, a revert while glibc blocks every signal kills the
 * process).  So that lookup, from an object after libweft.so in the load
 * order, answers weft's own pthread_create, as a plain call from that
 * object would.  Every other lookup goes to glibc's dlsym unchanged: the
 * exported entry (arch dlsym.S) jumps there with the caller's return
 * address in place, which glibc reads to know whom RTLD_NEXT is next to.
 * Nothing here calls dlopen or dlsym: a sanitizer runtime intercepts
 * dlopen and looks its own functions up this way before it can run.
 * The object weft's own pthread_create calls on (libc's, or a wrapper's
 * such as a sanitizer's interceptor) gets glibc's answer, and so do other
 * names: a library that wraps one chains to the next definition on
 * purpose.
 * export: dlsym
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "shim.h"
#include "base/throw.h"

extern __typeof__(pthread_create) wt_own_pthread_create; /* pthread_create.c */

/* glibc's dlsym, jumped to by dlsym.S.  [atomic] set before first use. */
__attribute__((visibility("hidden"))) void *(*_Atomic wt_dlsym_next)(void *, const char *);
/* libweft.so's map.  [atomic] init may run twice at once, alike. */
static _Atomic(struct link_map *) self_map;
/* The map of the object with the pthread_create that comes after weft's.
 * [atomic] found once, alike by any thread. */
static _Atomic(struct link_map *) next_map;

/* glibc 2.34's version of dlsym first: it exists on every glibc weft
 * supports, so no failing lookup (whose error message glibc allocates, and
 * a program's malloc may call back into weft) comes first. */
static void init(void)
{
	static const char *const vers[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
	void *next = NULL;
	for (size_t i = 0; !next && i < sizeof vers / sizeof vers[0]; i++)
		next = dlvsym(RTLD_NEXT, "dlsym", vers[i]);
	if (!next)
		wt_throw("glibc's dlsym not found");
	Dl_info info;
	struct link_map *lm = NULL;
	if (dladdr1((void *)init, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm)
		atomic_store_explicit(&self_map, lm, memory_order_release);
	atomic_store_explicit(&wt_dlsym_next, next, memory_order_release);
}

/* No libc call: a sanitizer runtime intercepts strcmp and the like, and
 * its interceptors do not work before it has looked their targets up. */
static bool is_pthread_create(const char *s)
{
	const char *w = "pthread_create";
	while (*w && *s == *w)
		s++, w++;
	return !*w && !*s;
}

/* Context: dlsym.S, any thread, before or after the runtime started.
 * Returns weft's function, or NULL to go to glibc's dlsym. */
__attribute__((visibility("hidden"))) void *wt_dlsym_redirect(void *handle, const char *name,
							       void *caller)
{
	if (!atomic_load_explicit(&wt_dlsym_next, memory_order_acquire))
		init();
	if (handle != RTLD_NEXT || !name || !is_pthread_create(name))
		return NULL;
	struct link_map *self = atomic_load_explicit(&self_map, memory_order_acquire);
	Dl_info info;
	struct link_map *from = NULL;
	if (!self || !dladdr1(caller, &info, (void **)&from, RTLD_DL_LINKMAP) || !from ||
	    from == self)
		return NULL;
	/* The object that holds the definition after libweft.so's (libc, or
	 * a wrapper such as a sanitizer's interceptor, which weft's own
	 * pthread_create calls on): its lookup chains on to libc, or weft
	 * and it would call each other for ever. */
	struct link_map *next = atomic_load_explicit(&next_map, memory_order_acquire);
	if (!next) {
		void *f = atomic_load_explicit(&wt_dlsym_next, memory_order_relaxed)(RTLD_NEXT,
										     "pthread_create");
		if (!f || !dladdr1(f, &info, (void **)&next, RTLD_DL_LINKMAP) || !next)
			return NULL;
		atomic_store_explicit(&next_map, next, memory_order_release);
	}
	if (from == next)
		return NULL;
	for (struct link_map *l = self->l_next; l; l = l->l_next)
		if (l == from)
			return (void *)wt_own_pthread_create;
	return NULL; /* a caller before libweft.so: glibc's answer is weft's */
}
