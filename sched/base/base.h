/*
 * base.h — what every runtime file shares: visibility, branch hints,
 * alignment.  The runtime's conventions, stated once:
 *
 *   - Internal functions return 0 (or a count) on success and -errno on
 *     failure, as the kernel does; shim/ converts at the POSIX edge.
 *   - The runtime never changes the caller's errno (it makes its system
 *     calls through wt_syscall6 and friends, which do not touch it).
 *   - A broken invariant calls wt_throw("…"), which prints "weft: …" and
 *     aborts (print.h).
 *   - Shared fields say what protects them, in one spelling:
 *       [const]          written once before the object is published;
 *       [owner m]        only the worker running the task / holding the proc;
 *       [sched.lock]     under wt_sched.lock;
 *       [X.lock]         under the named lock X;
 *       [atomic]         lock-free; each access names its ordering and the
 *                        access it pairs with.
 */
#ifndef WEFT_BASE_H
#define WEFT_BASE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WT_HIDDEN __attribute__((visibility("hidden")))
#define WT_NORETURN __attribute__((noreturn))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* A large zero-initialised static that a process may never touch (a
 * buffer for a dump or a trace, a table indexed by hash): the link puts
 * these after .bss (sched/bss.ld), so the small variables every process
 * touches at start share a few pages of .bss instead of lying one or two
 * to a page between the large ones (a first touch of a page is a fault,
 * and on a paravirtualised guest each costs 20-40 µs). */
#define WT_BSS_LARGE __attribute__((section(".bss.large")))
/* What a dormant process (core/start.c) runs and writes from exec to exit: its
 * code in one group at the head of .text (the linker gathers .text.hot.*
 * there, beside .plt), its variables on the page of the writable segment
 * the loader writes anyway (sched/bss.ld: one page fault for all of it;
 * plain .data and .bss beyond that page are one more each). */
#define WT_DORMANT_TEXT __attribute__((section(".text.hot.dormant")))
#define WT_DORMANT_DATA __attribute__((section(".data.dormant")))

/* A variable that several CPUs write at a high rate (a counter changed by
 * every create or exit on any proc): alone on its cache line, so those
 * writes do not also take the line from the users of its neighbours. */
#define WT_OWN_LINE __attribute__((aligned(64)))

#define WT_ALIGN_UP(x, a) (((x) + (a) - 1) & ~((uintptr_t)(a) - 1))
#define WT_ALIGN_DOWN(x, a) ((x) & ~((uintptr_t)(a) - 1))

/* x, of which the compiler may assume nothing: glibc declares some
 * arguments nonnull (fclose's and pclose's since 2.41), and a shim's test
 * for the NULL a program passes all the same must not be dropped. */
#define WT_OPAQUE(x) ({ __typeof__(x) wt_opaque_ = (x); __asm__("" : "+r"(wt_opaque_)); wt_opaque_; })

struct wt_task;
struct wt_m;
struct wt_p;

#endif
