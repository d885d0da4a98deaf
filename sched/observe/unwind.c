/*
 * unwind.c — libunwind, loaded with dlopen the first time a backtrace is
 * wanted (the task dump, a crash report).
 *
 * Linked in, it and the liblzma it needs were mapped and relocated in every
 * process weft runs, about 0.4 ms of each start on a paravirtualised guest,
 * for backtraces most processes never print.  The header is still
 * libunwind's: the calls are found under the names it gives them.
 *
 * wt_backtrace_ctx, the crash report's backtrace of a signal context,
 * lives here with the walk it makes: signal/crash.c calls it through
 * core/hooks.h, as the layers under observe/ call every other part of it.
 */
#include <dlfcn.h>
#include <sched.h>

#include "base/base.h"
#include "base/print.h"
#include "symbol.h"
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

/* One frame: names from symbol.c (ELF symbol tables, static functions
 * included), file:line from DWARF when libdw and debug info are there
 * (symbolize.c).  pc is a return address in every frame but the first. */
static void report_frame(int i, uintptr_t pc)
{
	struct wt_sym s;
	uintptr_t at = i == 0 ? pc : pc - 1;
	wt_symbolize(pc, i > 0, &s, true);
	int line = 0;
	const char *src = wt_src_line(at, &line);
	char buf[512];
	wt_sym_line(buf, sizeof buf, i, pc, &s, src, line);
	wt_print("%s", buf);
}

#define BT_MAX 32

void wt_backtrace_ctx(ucontext_t *uc)
{
	const struct wt_unw *u = wt_unwind();
	unw_cursor_t c;
	if (!u || u->init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0) {
		wt_print("  (no backtrace)\n");
		return;
	}
	for (int i = 0;; i++) {
		unw_word_t pc;
		if (u->get_reg(&c, UNW_REG_IP, &pc) < 0 || pc == 0)
			break;
		if (i == BT_MAX) {
			wt_print("  ... (more frames not shown)\n");
			break;
		}
		report_frame(i, pc);
		int st = u->step(&c);
		if (st <= 0) {
			if (st < 0)
				wt_print("  (unwinding stopped: %d)\n", st);
			break;
		}
	}
}
