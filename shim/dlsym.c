/*
 * dlsym.c — dlsym(RTLD_NEXT, name) of a name weft interposes.
 *
 * A library loaded after libweft.so that looks up "the next" definition
 * of an interposed name gets glibc's and bypasses weft: jemalloc makes its
 * background thread with dlsym(RTLD_NEXT, "pthread_create"), and that
 * thread is then an OS thread weft does not run, started by glibc's
 * pthread_create from a task without weft's thread-pointer pin (in trap
 * mode, sched/tls.c, a revert while glibc blocks every signal kills the
 * process).  So such a lookup, from an object after libweft.so in the
 * load order, answers weft's own function, as a plain call of the name
 * from that object would.  Every other lookup (another handle, a name
 * weft does not define, a caller before libweft.so or libweft.so itself)
 * goes to glibc's dlsym unchanged: the exported entry (arch dlsym.S)
 * jumps there with the caller's return address in place, which glibc
 * reads to know whom RTLD_NEXT is next to.
 * export: dlsym
 */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "shim.h"
#include "../sched/throw.h"

/* glibc's dlsym, jumped to by dlsym.S.  [atomic] set before first use. */
__attribute__((visibility("hidden"))) void *(*_Atomic wt_dlsym_next)(void *, const char *);
/* libweft.so's map.  [atomic] init may run twice at once, alike. */
static _Atomic(struct link_map *) self_map;

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

/* A handle of libweft.so, made on the first redirected lookup (not in
 * init: dlopen allocates, and a program's malloc may look names up).  NULL
 * while this thread is making it: the lookups made meanwhile go to glibc. */
static void *self_dlopen(struct link_map *self)
{
	static _Atomic(void *) handle;
	static __thread bool making;
	void *h = atomic_load_explicit(&handle, memory_order_acquire);
	if (h || making)
		return h;
	making = true;
	h = dlopen(self->l_name, RTLD_LAZY | RTLD_NOLOAD);
	making = false;
	atomic_store_explicit(&handle, h, memory_order_release);
	return h;
}

/* Context: dlsym.S, any thread, before or after the runtime started; may
 * itself call dlsym (which comes back here from libweft and goes on).
 * Returns weft's function for name, or NULL to go to glibc's dlsym. */
__attribute__((visibility("hidden"))) void *wt_dlsym_redirect(void *handle, const char *name,
							       void *caller)
{
	if (!atomic_load_explicit(&wt_dlsym_next, memory_order_acquire))
		init();
	if (handle != RTLD_NEXT || !name)
		return NULL;
	struct link_map *self = atomic_load_explicit(&self_map, memory_order_acquire);
	Dl_info info;
	struct link_map *from = NULL;
	if (!self ||
	    !dladdr1(caller, &info, (void **)&from, RTLD_DL_LINKMAP) || !from || from == self)
		return NULL;
	bool after = false;
	for (struct link_map *l = self->l_next; l && !after; l = l->l_next)
		after = l == from;
	if (!after)
		return NULL;
	void *h = self_dlopen(self);
	if (!h)
		return NULL;
	void *f = dlsym(h, name); /* libweft.so first in its own scope */
	if (!f || !dladdr1(f, &info, (void **)&from, RTLD_DL_LINKMAP) || from != self)
		return NULL; /* not one of weft's names */
	return f;
}
