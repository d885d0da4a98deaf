/*
 * unwind.h — libunwind's local unwinder, loaded on first use (unwind.c).
 */
#ifndef WEFT_UNWIND_H
#define WEFT_UNWIND_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdbool.h>

/* libunwind's calls, as its header names them (the local-only ones). */
struct wt_unw {
	int (*init_local)(unw_cursor_t *, unw_context_t *);
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*get_reg)(unw_cursor_t *, int, unw_word_t *);
	int (*step)(unw_cursor_t *);
	int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
	unw_addr_space_t *local_addr_space;
};

/* libunwind's calls, NULL if it cannot be loaded (a one-line weft: message
 * says so, once).  The first call loads it with dlopen: a dumper thread's
 * or a dying process's report, never a signal handler that returns.
 * Context: a thread that may take the loader's lock. */
const struct wt_unw *wt_unwind(void);

#endif
