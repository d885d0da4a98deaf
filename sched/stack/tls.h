/*
 * tls.h — each task's own TCB and static TLS, and switching the thread
 * pointer (tls.c).
 */
#ifndef WEFT_TLS_H
#define WEFT_TLS_H

#include "core/runtime.h"

int wt_tls_init(void);                     /* 0, or -ENOTSUP: glibc lacks what it needs */
/* Builds a TCB + static TLS under top; returns its thread pointer, 0 when
 * out of memory.  dtv: a DTV kept from an ended task (wt_tls_dtv_keep) to
 * use again, or NULL for a new one. */
uintptr_t wt_tls_new(char *top, int tid, char *stack_lo, size_t stack_size, struct wt_task *t,
		     bool compact, char **tls_low, void *dtv);
bool wt_tls_alloc_dtv(uintptr_t tp);
void wt_tls_free(uintptr_t tp);
/* An ended task's block at tp: its dynamic TLS is freed, its DTV kept for
 * wt_tls_new (or wt_tls_dtv_free).  Context: as wt_tls_free. */
void *wt_tls_dtv_keep(uintptr_t tp);
/* An ended task's malloc cache (tls.c) goes back.  Context: g0. */
void wt_tls_tcache_free(uintptr_t tp);
void wt_tls_dtv_free(void *dtv);
void wt_tls_start(struct wt_task *t);      /* on the task: __ctype_init */
void wt_tls_fork_reset(void);
/* How a switch writes the thread pointer (wt_tls_mode: WRFSBASE or SYSCALL;
 * arch/x86_64/switch.S tests it against 0, WT_TLS_WRFSBASE), and what
 * WEFT_TLS asks for (wt_cfg.tls_mode: any of these; tls.c chooses). */
enum {
	WT_TLS_AUTO = -1,       /* chosen at start from what the CPU and kernel allow */
	WT_TLS_WRFSBASE = 0,    /* the wrfsbase instruction, no system call */
	WT_TLS_SYSCALL = 1,     /* arch_prctl(ARCH_SET_FS) on every switch */
	WT_TLS_TRAP = 2,        /* wrfsbase; each worker's kernel-known base a guard */
};
extern int wt_tls_mode;                    /* WT_TLS_WRFSBASE or WT_TLS_SYSCALL */
extern size_t wt_tls_static_size, wt_tls_static_align, wt_tcb_size;
/* Offsets in glibc's struct pthread, found at start. */
extern size_t wt_off_tid, wt_off_stackblock, wt_off_stackblock_size, wt_off_specific, wt_off_list;
extern size_t wt_off_specific_used; /* glibc's specific_used flag; 0: not found */
/* struct pthread's robust_head (the list of robust mutexes the thread
 * holds, which the kernel walks when an OS thread dies); 0: not found. */
extern size_t wt_off_robust;
extern long wt_robust_futex_offset; /* its futex_offset: lock word - list entry */
/* struct pthread's cancelhandling (libthread_db's descriptor); 0: none.
 * weft keeps a task's cancellation state in the task, so glibc's bits in a
 * task's TCB are glibc's own: its asynchronous-type bit is set only while
 * one of glibc's cancellation points sleeps in the kernel (2.36:
 * __pthread_enable_asynccancel around the call), exactly where glibc's
 * own cancellation signal would unwind the thread. */
extern size_t wt_off_cancelhandling;
#define WT_GLIBC_CANCELTYPE 2 /* glibc's CANCELTYPE_BITMASK */

/* t's TCB is inside that window of glibc's.  Context: any. */
static inline bool wt_tls_libc_cancel_window(uintptr_t pd)
{
	return wt_off_cancelhandling &&
	       (__atomic_load_n((int *)(pd + wt_off_cancelhandling), __ATOMIC_RELAXED) &
		WT_GLIBC_CANCELTYPE);
}
extern ptrdiff_t wt_rseq_off;

/* A TCB block as glibc lays it out (arch.h: WT_ARCH_TLS_ABOVE_TP).  Below
 * the thread pointer tp: struct pthread at tp, the static TLS under it
 * (variant II, x86_64).  Above: a 16-byte header at tp, the static TLS
 * over it, struct pthread right under tp (variant I, aarch64).  A pthread_t
 * is the struct pthread's address; weft keeps the thread pointer. */
static inline uintptr_t wt_tls_pd(uintptr_t tp)
{
	return WT_ARCH_TLS_ABOVE_TP ? tp - wt_tcb_size : tp;
}
static inline uintptr_t wt_tls_tp_of(uintptr_t pd)
{
	return WT_ARCH_TLS_ABOVE_TP ? pd + wt_tcb_size : pd;
}
/* The thread pointer of a block that ends at or below top; compact: the
 * compact layout's (tls_static.c), where the architecture's differs. */
uintptr_t wt_tls_tp_under(uintptr_t top, bool compact);

/* Trap mode: each worker's kernel-known thread pointer is a guard. */
extern bool wt_tls_trap;
bool wt_tls_worker_guard(struct wt_m *m);  /* assign m's guard window */
void wt_tls_worker_enter(struct wt_m *m);  /* on m's thread: install it */
void wt_tls_worker_leave(struct wt_m *m);  /* on m's thread, on g0, before it exits */
bool wt_tls_fault(uintptr_t addr);         /* SIGSEGV: repaired a reverted fs? */
/* Trap mode, after a wait in the kernel (the thread slept, so the kernel
 * switched away and reverted the thread pointer to the guard): put the
 * right one back now, about 20 ns, rather than at the next TLS access by
 * a fault, a few µs.  tp is the one in use (m->cur_tp, a task's tp).
 * Context: the thread itself; touches no TLS. */
/* Trap mode: m switches tasks (core/proc.c, before wt_ctx_switch); every
 * WT_TLS_LOOK switches (a quarter of that in syscall mode, where each
 * switch costs a system call) it looks at its mode (tls.c).  Context: m. */
#define WT_TLS_LOOK 4096
void wt_tls_adapt(struct wt_m *m);
void wt_tls_pin_switch(struct wt_m *m, struct wt_task *next);
static inline void wt_tls_switching(struct wt_m *m, struct wt_task *next)
{
	if (unlikely(wt_tls_trap)) {
		if (++m->tp_switches - m->tp_look_switches >=
		    (m->tp_mode == WT_TLS_WRFSBASE ? WT_TLS_LOOK : WT_TLS_LOOK / 4))
			wt_tls_adapt(m);
		if (unlikely(next->tp_pinned | m->tp_pinmode))
			wt_tls_pin_switch(m, next);
	}
}
static inline void wt_tls_after_sleep(uintptr_t tp)
{
	if (unlikely(wt_tls_trap))
		wt_arch_set_tp_fast(tp);
}
/* A pin: of task t (which may move between workers while pinned), or of
 * worker m's own context (g0, or a thread running no task); all 0 for none. */
struct wt_pin { struct wt_task *t; struct wt_m *m; uintptr_t tp; };
/* Around libc calls that block every signal and then touch TLS. */
struct wt_pin wt_tls_pin(void);
void wt_tls_unpin(struct wt_pin pin);

#endif
