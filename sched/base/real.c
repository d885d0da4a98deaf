/*
 * real.c — the table of libc originals (see real.h).
 *
 * Resolved on first use, from whichever entry point runs first: weft can be
 * entered before its constructor (an allocator calling pthread_self while it
 * initialises), so resolving must not allocate, and dlsym(RTLD_NEXT) does
 * not when the name exists (a missing one makes dlsym record an error
 * message, which allocates: only the optional names may be missing, and only
 * on a libc older than this one).  Two threads racing to the first call both
 * resolve and store the same pointers.  The caller's errno is kept.
 *
 * Context: any thread, any stack.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>

#include "real.h"
#include "print.h"
#include "throw.h"

struct wt_real real;
WT_DORMANT_DATA _Atomic int wt_real_ready; /* [atomic] release after the last store to real */

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

/* glibc 2.34's version, which dlsym would give: by dlvsym, not through
 * weft's dlsym (shim/dlsym.c), whose first call resolves glibc's. */
WT_DORMANT_TEXT void *wt_real_libc_start_main(void)
{
	if (atomic_load_explicit(&wt_real_ready, memory_order_acquire))
		return (void *)real.libc_start_main;
	int e = errno;
	void *p = NULL;
#if __GLIBC_PREREQ(2, 34)
	/* In .data, whose page is touched already (.rodata's is not).  Built
	 * against an older glibc, the name is not looked for: a failed
	 * lookup allocates its message. */
	static WT_DORMANT_DATA char name[] = "__libc_start_main", ver[] = "GLIBC_2.34";
	p = dlvsym(RTLD_NEXT, name, ver);
#endif
	if (!p)
		p = must("__libc_start_main");
	errno = e;
	return p;
}

void wt_real_resolve(void)
{
	int e = errno; /* dlsym does not promise to leave it alone */
#define MUST(f) real.f = must(#f);
#define MAYBE(f) real.f = maybe(#f);
	WT_REAL_LIST(MUST, MAYBE, MUST)
#undef MUST
#undef MAYBE
	real.exit = must("exit");
	real.pthread_exit = must("pthread_exit");
	real.longjmp = must("longjmp");
	real._longjmp = must("_longjmp");
	real.siglongjmp = must("siglongjmp");
	real.longjmp_chk = must("__longjmp_chk");
	real.libc_start_main = must("__libc_start_main");
	errno = e;
	atomic_store_explicit(&wt_real_ready, 1, memory_order_release);
}
