/*
 * unwind.c — libunwind, loaded with dlopen the first time a backtrace is
 * wanted (the task dump, a crash report).
 *
 * Linked in, it and the liblzma it needs were mapped and relocated in every
 * process weft runs, about 0.4 ms of each start on a paravirtualised guest,
 * for backtraces most processes never print.  The header is still
 * libunwind's: the calls are found under the names it gives them.
 */
#include <dlfcn.h>
#include <sched.h>

#include "base/base.h"
#include "base/print.h"
#include "unwind.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static struct wt_unw U;
static _Atomic int state; /* 0 not tried, 2 loading, 1 loaded, -1 missing */

static bool load(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return false;
	U.init_local = dlsym(h, STR(unw_init_local));
	U.init_local2 = dlsym(h, STR(unw_init_local2));
	U.get_reg = dlsym(h, STR(unw_get_reg));
	U.step = dlsym(h, STR(unw_step));
	U.set_caching_policy = dlsym(h, STR(unw_set_caching_policy));
	U.local_addr_space = dlsym(h, STR(unw_local_addr_space));
	return U.init_local && U.init_local2 && U.get_reg && U.step && U.set_caching_policy &&
	       U.local_addr_space;
}

const struct wt_unw *wt_unwind(void)
{
	int s = 0;
	if (atomic_compare_exchange_strong(&state, &s, 2)) {
		s = load() ? 1 : -1;
		if (s < 0) {
			const char *e = dlerror();
			wt_print("weft: libunwind.so.8 cannot be loaded (%s): no backtraces\n",
				 e ? e : "a symbol is missing");
		}
		atomic_store_explicit(&state, s, memory_order_release);
	}
	while (s == 2) { /* another thread loads it */
		sched_yield();
		s = atomic_load_explicit(&state, memory_order_acquire);
	}
	return s > 0 ? &U : NULL;
}
