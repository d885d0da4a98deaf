/*
 * tls.c — a TCB and static TLS block of its own for every task.
 *
 * glibc keeps errno, the stack-protector canary, locale, malloc's tcache and
 * every __thread / thread_local variable at fixed offsets from the thread
 * pointer (arch.h).  Compilers cache &errno and the thread pointer across
 * calls, so a task must see the same addresses on whatever worker it runs:
 * each task gets its own block, laid out as glibc lays out a thread's, and
 * the switch loads its thread pointer.
 *
 * Building a block (wt_tls_new): the TCB (glibc's struct pthread, whose
 * size libc publishes as _thread_db_sizeof_pthread) sits at the top of the
 * task's stack slot, static TLS just below it, then the stack (how much
 * static TLS a task keeps: tls_static.c).  weft installs a DTV (see
 * "DTVs"), ld.so's _dl_allocate_tls_init (GLIBC_PRIVATE, found with
 * dlsym(RTLD_DEFAULT)) fills it and copies the TLS init images; weft fills
 * the header: self pointers, the canary and
 * pointer guard copied from the creator, multiple_threads, a unique fake tid
 * (glibc's recursive locks compare owners by tid), stackblock (read by
 * __libc_alloca_cutoff; offsets found once by probing a real thread whose
 * stack we chose) and rseq cpu_id = -1 so sched_getcpu asks the kernel
 * (-2 where the process has no rseq).
 * The ABI's own header at the start of the TCB (self pointers, guards) is
 * filled by wt_arch_tcb_init.
 *
 * Switching the thread pointer, three ways (WT_TLS_*, tls.h; arch.h names the
 * primitives, arch/x86_64/tp.c says what they are there):
 *  - fast (WEFT_TLS=wrfsbase): set from user space without the kernel
 *    (wt_arch_set_tp_fast), when the kernel says it keeps that value
 *    (wt_arch_tp_fast_kernel): ~10 ns.
 *  - trap: the CPU can (wt_arch_tp_fast_cpu) but the kernel does not say so
 *    (seen on this project's VMs).  The fast write works, but the kernel
 *    does not save the value: on a context switch it reloads the pointer it
 *    last set by system call (wt_arch_set_tp), silently.  So each worker
 *    makes that kernel-known pointer a guard address of its own (a
 *    PROT_NONE window): a revert turns the next TLS access into a SIGSEGV
 *    at a known address, and the handler (wt_tls_fault) writes back
 *    m->cur_tp and returns.  The guards differ per worker because the
 *    kernel skips the reload when two threads' saved values are equal.
 *  - syscall: wt_arch_set_tp on every switch (3.4 to 3.6 µs on this project's VMs,
 *    where a system call is ~1 µs).
 * Trap mode's one rule: a thread never reads TLS unpinned while it blocks
 * SIGSEGV, since a revert there is a fault the kernel cannot deliver and
 * the process dies without a word (glibc's own code reads the TCB: errno,
 * a lazy PLT binding, pthread_create).  weft's handlers and masks keep
 * SIGSEGV and SIGBUS open (signal/sigtask.c: wt_sig_eff; the raw clone at start,
 * core/thread.c; wt_stack_prepare); where glibc blocks every signal itself
 * around a clone it runs pinned (wt_tls_pin: pthread_create, fork, vfork,
 * posix_spawn, a SIGEV_THREAD timer_create); the fault report pins before
 * it gives SIGSEGV its default action (signal/crash.c).  Not covered: glibc's own
 * helper threads made inside other calls (POSIX AIO's, mq_notify's
 * SIGEV_THREAD, getaddrinfo_a), where WEFT_TLS=syscall is the sound choice.
 * Rejected: copying TLS contents into the worker's block on each switch
 * (addresses would change on migration: a thread_local std::string points
 * into itself); LDT segments (32-bit bases, 8192 entries, refused here).
 */

#include <errno.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/runtime.h"
#include "core/config.h"
#include "base/print.h"
#include "io/readfile.h"
#include "base/real.h"
#include "base/slab.h"
#include "tls.h"
#include "tls_static.h"
#include "core/worker.h"

__thread struct wt_task *wt_cur_tls __attribute__((tls_model("initial-exec")));
intptr_t wt_cur_tpoff;
int wt_tls_mode = WT_TLS_SYSCALL;
bool wt_tls_trap;
size_t wt_tls_static_size, wt_tls_static_align, wt_tcb_size;
size_t wt_off_tid, wt_off_stackblock, wt_off_stackblock_size, wt_off_specific;
size_t wt_off_specific_used; /* 0: not found */
size_t wt_off_list; /* struct pthread's list_t: glibc's lists of threads */
size_t wt_off_robust;
size_t wt_off_cancelhandling;
long wt_robust_futex_offset = (long)offsetof(pthread_mutex_t, __data.__lock) -
			      (long)offsetof(pthread_mutex_t, __data.__list.__next);
static bool robust_prev; /* the word before robust_head is glibc's robust_prev */
ptrdiff_t wt_rseq_off;
/* A task's rseq cpu_id: not registered (sched_getcpu asks the kernel), or
 * registration failed (no thread of the process has rseq). */
#define RSEQ_CPU_ID_UNINITIALIZED (-1)
#define RSEQ_CPU_ID_REGISTRATION_FAILED (-2)
static int32_t rseq_cpu = RSEQ_CPU_ID_UNINITIALIZED;
static bool rseq_area; /* glibc has one in struct pthread, at wt_rseq_off */

/* glibc's dtv_t: entry 0 of the block the length, then the generation, then
 * a module's block each (static ones inside the TLS block; dynamic ones
 * malloc'd, to_free). */
typedef union {
	size_t counter;
	struct {
		void *val, *to_free;
	};
} dtv_t;

/* ---- DTVs ----
 * ld.so gives a new thread a DTV of its highest module id plus 14 spare
 * entries (room for modules dlopen'd later), 16 bytes each, in a block of
 * malloc's.  A task's DTV holds the modules loaded now and no spares:
 * ld.so grows a DTV that is too short by realloc, in
 * _dl_allocate_tls_init or on the first access to a later module's TLS,
 * for a task as for any thread.  The spares were 224 bytes of every
 * parked task (about 2.5 % of it).  dtv_len is the length new DTVs get:
 * the highest module id at start, or, once ld.so had to grow one of them
 * (a module with TLS came later), the length ld.so gave it, so that a
 * creation does not regrow each time. */
static _Atomic size_t dtv_len;

static int modid_max(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	size_t *max = arg;
	if (info->dlpi_tls_modid > *max)
		*max = info->dlpi_tls_modid;
	return 0;
}

static void *(*dl_allocate_tls)(void *);
static void *(*dl_allocate_tls_init)(void *, bool);
static void (*dl_deallocate_tls)(void *, _Bool);
static void (*ctype_init)(void);

static void *need(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	if (!p)
		wt_print("weft: this glibc does not export %s; per-task TLS needs it\n", name);
	return p;
}

/* ---- malloc's per-thread cache ----
 * glibc's malloc keeps a cache of freed chunks per thread (the tcache: a
 * uint16_t per bin, then the bins' heads, chunks linked through their
 * first word with safe-linking; 64 bins, 76 from glibc 2.42), reached from
 * a TLS variable of libc's.  A thread's cache goes back when the thread
 * ends (__libc_thread_freeres, which libc does not export); a task's,
 * never: each task that called malloc kept about 1 KB at its end (its
 * cache and what the cache held).  The variable's offset and the bin count
 * are found once at start (tcache_probe: the TLS word pointing at a cache
 * whose bin holds the two chunks just freed); the cache of an ended task is
 * then emptied and freed on g0 (wt_tls_tcache_free).  From glibc 2.42 the
 * variable starts (and, malloc failing, ends) pointing at a placeholder in
 * libc's own data, which is not freed.  Not found (another malloc), it
 * stays as before. */
static ptrdiff_t tcache_off; /* from the thread pointer; 0 = not found */
static int tcache_bins;      /* 64 or 76: the entries start after the counts */
static uintptr_t libc_lo, libc_hi; /* libc's image: its placeholders */

static long probe_pid; /* [start] this process, for peek */

/* Reads n bytes at p without faulting (false: not mapped).  Context:
 * tcache_probe. */
static bool peek(const void *p, void *out, size_t n)
{
	struct iovec l = { out, n }, r = { (void *)p, n };
	return wt_syscall6(SYS_process_vm_readv, probe_pid, (long)&l, 1, (long)&r, 1, 0) ==
	       (long)n;
}

static size_t tcache_entries_at(int bins) { return WT_ALIGN_UP(bins * sizeof(uint16_t), 8); }

/* w holds a cache of `bins` bins whose bin for the two chunks holds b, then a. */
static bool tcache_holds(uintptr_t w, int bins, uintptr_t a, uintptr_t b)
{
	uint16_t counts[76];
	uintptr_t entries[76], next;
	if (!peek((void *)w, counts, bins * sizeof(uint16_t)) ||
	    !peek((void *)(w + tcache_entries_at(bins)), entries, bins * sizeof(uintptr_t)))
		return false;
	for (int k = 0; k < bins; k++)
		if (entries[k] == b && counts[k] > 0 && peek((void *)b, &next, sizeof next) &&
		    (next ^ (b >> 12)) == a)
			return true;
	return false;
}

/* libc's image, from the object that holds malloc. */
static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t want = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;
		if (s < lo)
			lo = s;
		if (s + ph->p_memsz > hi)
			hi = s + ph->p_memsz;
	}
	if (want < lo || want >= hi)
		return 0;
	libc_lo = lo;
	libc_hi = hi;
	return 1;
}

/* Context: the initial thread, at start (a new thread's first malloc would
 * make it an arena of its own, which the process keeps). */
static void tcache_probe(uintptr_t tp)
{
	dl_iterate_phdr(find_libc, (void *)(uintptr_t)malloc);
	probe_pid = wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	/* 1000 bytes: a bin near the small bins' last, rarely full. */
	void *pa = malloc(1000), *pb = malloc(1000);
	uintptr_t a = (uintptr_t)pa, b = (uintptr_t)pb; /* compared after the frees */
	free(pa);
	free(pb); /* the bin's head: b, then a */
	__asm__("" : "+r"(a), "+r"(b)); /* addresses now, not pointers to freed memory */
	/* The static TLS block, read a piece at a time from the thread pointer
	 * outwards (down in variant II, up in variant I): the initial thread's
	 * may end before wt_tls_static_size. */
	uintptr_t piece[64];
	for (size_t k = 0; k * sizeof piece < wt_tls_static_size && !tcache_off; k++) {
		uintptr_t at = WT_ARCH_TLS_ABOVE_TP ? tp + k * sizeof piece : tp - (k + 1) * sizeof piece;
		if (!peek((void *)at, piece, sizeof piece))
			break;
		for (int i = 63; i >= 0 && !tcache_off; i--) {
			uintptr_t w = piece[i];
			if (!w || (w & 15))
				continue;
			int bins = tcache_holds(w, 64, a, b) ? 64 : tcache_holds(w, 76, a, b) ? 76 : 0;
			if (bins) {
				tcache_bins = bins;
				tcache_off = (ptrdiff_t)(at + (size_t)i * 8) - (ptrdiff_t)tp;
			}
		}
	}
}

void wt_tls_tcache_free(uintptr_t tp)
{
	if (!tcache_off)
		return;
	uintptr_t **var = (uintptr_t **)(tp + tcache_off);
	uintptr_t *tc = *var;
	if (!tc || ((uintptr_t)tc >= libc_lo && (uintptr_t)tc < libc_hi))
		return;
	*var = NULL;
	uintptr_t *entries = (uintptr_t *)((char *)tc + tcache_entries_at(tcache_bins));
	for (int k = 0; k < tcache_bins; k++) {
		uintptr_t *e = (uintptr_t *)entries[k];
		while (e) {
			uintptr_t *next = (uintptr_t *)(e[0] ^ ((uintptr_t)e >> 12));
			e[1] = 0; /* its tcache key: free would look for a double free */
			free(e);
			e = next;
		}
	}
	free(tc);
}

/* ---- stackblock and specific_used offsets ----
 * Found in the initial thread when it can tell, else in a probe thread.
 * glibc gives the initial thread no stack block but sets its
 * stackblock_size to __libc_stack_end (a generous alloca limit): the
 * word holding that value, with a NULL before it, is the pair.  The probe
 * thread is a real thread whose stack we chose: the pair holds its base
 * and size.  Starting a thread costs a clone and the pages it touches, in
 * every process, where most start no thread at all. */
extern void *__libc_stack_end;
static char *probe_stack;
static size_t probe_size = 256 << 10;

static bool find_stackblock(uintptr_t pd, uintptr_t base, size_t size)
{
	for (size_t off = 8; off + 16 <= wt_tcb_size; off += 8) {
		uintptr_t *w = (uintptr_t *)(pd + off);
		if (w[0] == base && w[1] == size) {
			wt_off_stackblock = off;
			wt_off_stackblock_size = off + 8;
			return true;
		}
	}
	return false;
}

/* specific_used, the flag right after specific[] that glibc's
 * pthread_setspecific sets and its thread exit tests before walking the
 * key blocks: checked to be 0 in a thread that never set a key and 1 once
 * a key has a value.  False if this thread set one before. */
static bool find_specific_used(uintptr_t pd)
{
	if (!wt_off_specific)
		return true; /* nothing to find */
	size_t off = wt_off_specific + 32 * sizeof(void *);
	volatile unsigned char *used = (unsigned char *)(pd + off);
	pthread_key_t k;
	if (*used != 0)
		return false;
	if (pthread_key_create(&k, NULL) == 0) {
		if (pthread_setspecific(k, &k) == 0 && *used == 1)
			wt_off_specific_used = off;
		pthread_setspecific(k, NULL);
		pthread_key_delete(k);
	}
	return true;
}

static void *probe(void *arg)
{
	(void)arg;
	uintptr_t pd = wt_tls_pd(wt_arch_get_tp());
	if (!wt_off_stackblock)
		find_stackblock(pd, (uintptr_t)probe_stack, probe_size);
	if (!wt_off_specific_used)
		find_specific_used(pd);
	return NULL;
}

/* ---- trap mode guard windows ---- */
static char *guard_base;
static size_t guard_stride, guard_below;
static int guard_max;
static struct wt_m **guard_m;
static _Atomic int guard_hi; /* [atomic] guard_m's entries in use lie below */

static bool trap_init(void)
{
	guard_below = WT_ALIGN_UP(wt_tls_static_size, 4096) + 4096;
	guard_stride = guard_below + WT_ALIGN_UP(wt_tcb_size, 4096) + 4096;
	guard_max = 16384;
	long p = wt_syscall6(SYS_mmap, 0, (long)(guard_stride * guard_max), PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p < 0 && p > -4096)
		return false;
	guard_base = (char *)p;
	guard_m = wt_mmap_anon(sizeof *guard_m * guard_max);
	return guard_m != NULL;
}

bool wt_tls_worker_guard(struct wt_m *m)
{
	if (!wt_tls_trap)
		return true;
	if (m->id >= guard_max)
		return false;
	m->guard_tp = (uintptr_t)(guard_base + (size_t)m->id * guard_stride + guard_below);
	atomic_store_explicit((_Atomic(struct wt_m *) *)&guard_m[m->id], m, memory_order_release);
	int hi = atomic_load_explicit(&guard_hi, memory_order_relaxed);
	while (hi <= m->id &&
	       !atomic_compare_exchange_weak_explicit(&guard_hi, &hi, m->id + 1, memory_order_relaxed,
						      memory_order_relaxed))
		;
	return true;
}

/* On m's own thread, with m->cur_tp set. */
void wt_tls_worker_enter(struct wt_m *m)
{
	m->tp_mode = wt_tls_mode;
	if (!wt_tls_trap)
		return;
	wt_arch_set_tp(m->guard_tp);
	wt_arch_set_tp_fast(m->cur_tp);
}

/* ---- trap mode, per worker ----
 * A revert costs a fault: the kernel's signal delivery and sigreturn
 * (measured here, in a paravirtualised guest: about 25 µs of CPU, where a
 * system call costs about 1 µs and arch_prctl about 3.4).  A worker whose
 * thread the kernel switches often (a task that blocks in the kernel, as
 * a process reading a pipe from another one does on every message, or a
 * machine so loaded that the kernel preempts the worker every few task
 * switches) pays a fault per kernel switch, and trap mode is then slower
 * than setting the base by system call on every task switch.  So each
 * worker chooses for itself, from what it counts: faults (wt_tls_fault)
 * and task switches (wt_tls_switching).  More than one fault per TP_RATIO
 * switches: syscall mode (the kernel's base is the task's from then on,
 * and a kernel switch costs nothing).
 * Back to trap mode: in syscall mode weft cannot count faults that do not
 * happen.  It counts the thread's kernel switches instead
 * (getrusage(RUSAGE_THREAD) every WT_TLS_LOOK / 4 task switches): fewer
 * than one per TP_RATIO task switches, trap mode again.  That count
 * overstates what trap mode would pay: each arch_prctl is a return to
 * user space where a loaded kernel preempts the thread, and the window of
 * switches lasts longer (on this machine at a load of 80 for 2 CPUs, the
 * create-join loop of bench/spawn counted 1,500 to 2,400 kernel switches
 * per 4,096 task switches in syscall mode, where trap mode faulted about
 * once per 8, and the worker never went back).  So syscall mode also
 * tries trap mode again after tp_trial_wait looks whatever it counted: a
 * trial that fails (the fault rule above) doubles the wait, up to
 * TP_TRIAL_MAX looks, and costs at least TP_MIN_FAULTS faults (about
 * 1.6 ms, against the 14 ms of arch_prctl of the 4,096 switches of the
 * longest wait); a trap-mode look that keeps trap mode clears it.  Every
 * change is made on the worker's own thread (the fault handler, or a
 * switch), which alone writes its base. */
#define TP_RATIO 8
#define TP_MIN_FAULTS 64 /* faults before trap mode is judged */
#define TP_TRIAL_MAX 16  /* most looks syscall mode waits before a trial of trap mode */

static int64_t kernel_switches(void)
{
	struct rusage ru;
	if (wt_syscall6(SYS_getrusage, RUSAGE_THREAD, (long)&ru, 0, 0, 0, 0) < 0)
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void look_reset(struct wt_m *m)
{
	m->tp_look_faults = m->tp_faults;
	m->tp_look_switches = m->tp_switches;
	m->tp_look_kswitches = m->tp_mode == WT_TLS_SYSCALL ? kernel_switches() : -1;
}

/* On m's own thread (a fault handler or a switch). */
static void to_syscall_mode(struct wt_m *m)
{
	m->tp_mode = WT_TLS_SYSCALL;
	wt_arch_set_tp(m->cur_tp);
	m->tp_trial_wait = m->tp_trial_wait ? (m->tp_trial_wait < TP_TRIAL_MAX ? 2 * m->tp_trial_wait
									     : TP_TRIAL_MAX)
					    : 1;
	m->tp_trial_waited = 0;
	look_reset(m);
}

void wt_tls_adapt(struct wt_m *m)
{
	uint64_t sw = m->tp_switches - m->tp_look_switches;
	if (m->tp_mode == WT_TLS_WRFSBASE) {
		if ((m->tp_faults - m->tp_look_faults) * TP_RATIO > sw &&
		    m->tp_faults - m->tp_look_faults >= TP_MIN_FAULTS) {
			to_syscall_mode(m);
		} else {
			m->tp_trial_wait = 0; /* trap mode held a whole look */
			look_reset(m);
		}
		return;
	}
	int64_t ks = kernel_switches();
	bool quiet = m->tp_look_kswitches >= 0 && ks >= 0 &&
		     (uint64_t)(ks - m->tp_look_kswitches) * TP_RATIO < sw;
	/* Not while a pin holds syscall mode (wt_tls_pin_switch, right
	 * after this, would only undo it). */
	if (!m->tp_pinmode && (quiet || ++m->tp_trial_waited >= m->tp_trial_wait)) {
		m->tp_mode = WT_TLS_WRFSBASE;
		wt_arch_set_tp(m->guard_tp); /* the kernel's base a guard again */
		wt_arch_set_tp_fast(m->cur_tp);
	}
	look_reset(m);
}

/* On m's thread, on g0, before the thread exits (core/worker.c): the kernel
 * keeps g0's own base, so nothing of the exit faults into the guard
 * window, which m's next thread takes over. */
void wt_tls_worker_leave(struct wt_m *m)
{
	if (!wt_tls_trap)
		return;
	wt_arch_set_tp(m->g0_tp);
}

/* Context: SIGSEGV handler, with a thread pointer that may be the guard:
 * touches no TLS.  Returns true when it repaired a reverted base. */
bool wt_tls_fault(uintptr_t addr)
{
	if (!wt_tls_trap || addr < (uintptr_t)guard_base ||
	    addr >= (uintptr_t)guard_base + guard_stride * guard_max)
		return false;
	size_t i = (addr - (uintptr_t)guard_base) / guard_stride;
	struct wt_m *m = atomic_load_explicit((_Atomic(struct wt_m *) *)&guard_m[i],
					      memory_order_acquire);
	if (!m)
		return false;
	wt_arch_set_tp_fast(m->cur_tp);
	/* On m's thread: the fault was its own. */
	if (m->tp_mode == WT_TLS_WRFSBASE && ++m->tp_faults - m->tp_look_faults >= TP_MIN_FAULTS &&
	    (m->tp_faults - m->tp_look_faults) * TP_RATIO > m->tp_switches - m->tp_look_switches)
		to_syscall_mode(m);
	return true;
}

/* wt_arch_tp_fast_cpu's answer, asked once (CPUID traps to the hypervisor
 * in a virtual machine, and its probe replaces SIGILL's handler twice).
 * Context: start. */
static bool tp_fast_cpu(void)
{
	static int fast = -1;
	if (fast < 0)
		fast = wt_arch_tp_fast_cpu();
	return fast;
}

/* Under ptrace (gdb, strace) every signal stops the thread, the stop is a
 * context switch, and the switch reverts the thread pointer again: trap mode
 * would fault forever.  Auto mode picks syscall mode for a traced start. */
static bool traced(void)
{
	char buf[1024];
	if (wt_read_file("/proc/self/status", buf, sizeof buf) <= 0)
		return false;
	char *p = strstr(buf, "TracerPid:");
	if (!p)
		return false;
	p += 10;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p != '0';
}

int wt_tls_init(void)
{
	void (*static_info)(size_t *, size_t *) = need("_dl_get_tls_static_info");
	unsigned *sizeof_pthread = need("_thread_db_sizeof_pthread");
	unsigned *tid_desc = need("_thread_db_pthread_tid");
	ptrdiff_t *rseq_off = dlsym(RTLD_DEFAULT, "__rseq_offset");
	unsigned *rseq_size = dlsym(RTLD_DEFAULT, "__rseq_size");
	dl_allocate_tls = need("_dl_allocate_tls");
	dl_deallocate_tls = need("_dl_deallocate_tls");
	dl_allocate_tls_init = need("_dl_allocate_tls_init");
	ctype_init = need("__ctype_init");
	if (!static_info || !sizeof_pthread || !tid_desc || !dl_allocate_tls ||
	    !dl_deallocate_tls || !dl_allocate_tls_init || !ctype_init)
		return -ENOTSUP;
	static_info(&wt_tls_static_size, &wt_tls_static_align);
	size_t maxid = 1;
	dl_iterate_phdr(modid_max, &maxid);
	atomic_store_explicit(&dtv_len, maxid, memory_order_relaxed);
	if (wt_tls_static_align < 64)
		wt_tls_static_align = 64;
	wt_tcb_size = *sizeof_pthread;
	wt_off_tid = tid_desc[2];
	unsigned *list_desc = need("_thread_db_pthread_list");
	if (!list_desc)
		return -ENOTSUP;
	wt_off_list = list_desc[2];
	unsigned *cancel_desc = dlsym(RTLD_DEFAULT, "_thread_db_pthread_cancelhandling");
	if (cancel_desc)
		wt_off_cancelhandling = cancel_desc[2];
	unsigned *spec_desc = dlsym(RTLD_DEFAULT, "_thread_db_pthread_specific");
	if (spec_desc)
		wt_off_specific = spec_desc[2];
	/* The first block of key values lies just below specific[] (glibc
	 * points main's specific[0] at it); core/task.c relies on that. */
	char *self = (char *)wt_tls_pd(wt_arch_get_tp());
	if (wt_off_specific &&
	    ((void **)(self + wt_off_specific))[0] != self + wt_off_specific - 32 * 2 * sizeof(void *))
		wt_off_specific = 0;
	/* The area is there even where the kernel refused it (no rseq, as
	 * under qemu-user, or glibc.pthread.rseq=0): then glibc's size is 0
	 * and a task must say "registration failed" too, or a thread that
	 * glibc starts from it would try to register and abort on failing. */
	if (rseq_off) {
		wt_rseq_off = *rseq_off; /* from tp: negative in variant I */
		rseq_area = true;
		if (!rseq_size || !*rseq_size)
			rseq_cpu = RSEQ_CPU_ID_REGISTRATION_FAILED;
	}
	wt_cur_tpoff = (intptr_t)((char *)&wt_cur_tls - (char *)wt_arch_get_tp());
	/* robust_head in the first thread, as glibc set it up: an empty
	 * list (pointing at itself), the futex offset, nothing pending. */
	for (size_t off = 16; off + 24 <= wt_tcb_size; off += 8) {
		uintptr_t *w = (uintptr_t *)(self + off);
		if (w[0] == (uintptr_t)w && (long)w[1] == wt_robust_futex_offset && w[2] == 0) {
			wt_off_robust = off;
			robust_prev = w[-1] == (uintptr_t)w;
			break;
		}
	}
	if (!wt_off_robust)
		wt_print("weft: could not find robust_head in struct pthread; a robust mutex "
			 "locked by a thread other than the first crashes\n");

	tcache_probe(wt_arch_get_tp());
	bool found = find_stackblock((uintptr_t)self, 0, (size_t)__libc_stack_end) &&
		     find_specific_used((uintptr_t)self);
	if (!found && (probe_stack = wt_mmap_anon(probe_size))) {
		pthread_attr_t a;
		pthread_t th;
		real.pthread_attr_init(&a);
		real.pthread_attr_setstack(&a, probe_stack, probe_size);
		if (real.pthread_create(&th, &a, probe, NULL) == 0)
			real.pthread_join(th, NULL);
		real.pthread_attr_destroy(&a);
	}
	if (!wt_off_stackblock)
		wt_print("weft: could not find stackblock in struct pthread; "
			 "alloca limits use the default\n");

	/* Thread-pointer switch method. */
	bool hw = wt_arch_tp_fast_kernel();
	int want = wt_cfg.tls_mode;
	if (want == WT_TLS_AUTO)
		want = hw ? WT_TLS_WRFSBASE
			  : tp_fast_cpu() && !traced() ? WT_TLS_TRAP : WT_TLS_SYSCALL;
	if (want == WT_TLS_WRFSBASE && !hw) {
		wt_print("weft: WEFT_TLS=wrfsbase: the kernel does not enable FSGSBASE; using %s\n",
			 tp_fast_cpu() ? "trap" : "syscall");
		want = tp_fast_cpu() ? WT_TLS_TRAP : WT_TLS_SYSCALL;
	}
	if (want == WT_TLS_TRAP && (!tp_fast_cpu() || !trap_init())) {
		wt_print("weft: WEFT_TLS=trap is not possible here; using syscall\n");
		want = WT_TLS_SYSCALL;
	}
	wt_tls_trap = want == WT_TLS_TRAP;
	wt_tls_mode = want == WT_TLS_SYSCALL ? WT_TLS_SYSCALL : WT_TLS_WRFSBASE;
	wt_cfg.tls_mode = want;
	wt_tls_static_init();
	return 0;
}

/* Builds a TCB + static TLS block that ends at or below `top`.
 * Context: any; allocates the DTV with malloc (ld.so may grow it). */
uintptr_t wt_tls_new(char *top, int tid, char *stack_lo, size_t stack_size, struct wt_task *t,
		     bool compact, char **tls_low, void *dtv)
{
	uintptr_t tp = wt_tls_tp_under((uintptr_t)top, compact);
	uintptr_t pd = wt_tls_pd(tp);
	uintptr_t cur = wt_arch_get_tp();
	/* struct pthread, and variant I's header at tp after it. */
	memset((void *)pd, 0, wt_tcb_size + WT_TCB_HEADER);
	/* A kept DTV is cleared, as glibc reuses a cached thread's; a new one
	 * is of dtv_len.  Installed, then filled by ld.so, which grows it if
	 * modules came since. */
	dtv_t *d = dtv;
	if (d) {
		memset(d + 1, 0, (d[0].counter + 1) * sizeof *d);
	} else {
		size_t n = atomic_load_explicit(&dtv_len, memory_order_relaxed);
		if (!(d = calloc(n + 2, sizeof *d)))
			return 0;
		d[0].counter = n;
	}
	*wt_arch_tcb_dtv(tp) = d + 1;
	dl_allocate_tls_init((void *)tp, true);
	if (!dtv && (dtv_t *)*wt_arch_tcb_dtv(tp) - 1 != d) /* grown: see dtv_len */
		atomic_store_explicit(&dtv_len, ((dtv_t *)*wt_arch_tcb_dtv(tp) - 1)[0].counter,
				      memory_order_relaxed);
	wt_arch_tcb_init(tp, cur);
	*(int *)(pd + wt_off_tid) = tid;
	/* An empty list node: glibc's fork child unlinks the forking thread's
	 * node from its lists of threads (reclaim_stacks), then links it. */
	uintptr_t *node = (uintptr_t *)(pd + wt_off_list);
	node[0] = node[1] = (uintptr_t)node;
	/* An empty robust list, as glibc gives a new thread: its robust
	 * mutexes are linked there (wt_pshared_exit marks them at exit). */
	if (wt_off_robust) {
		uintptr_t *rh = (uintptr_t *)(pd + wt_off_robust);
		rh[0] = (uintptr_t)rh;
		rh[1] = (uintptr_t)wt_robust_futex_offset;
		if (robust_prev)
			rh[-1] = (uintptr_t)rh;
	}
	if (wt_off_stackblock) {
		*(char **)(pd + wt_off_stackblock) = stack_lo;
		*(size_t *)(pd + wt_off_stackblock_size) = stack_size;
	}
	if (rseq_area)
		*(int32_t *)(tp + wt_rseq_off + 4) = rseq_cpu; /* rseq cpu_id: not registered */
	*(struct wt_task **)(tp + wt_cur_tpoff) = t;
	if (tls_low)
		*tls_low = wt_tls_stack_hi(tp, compact);
	return tp;
}

/* A DTV for the block at tp, its static TLS initialised (tls_static.c). */
bool wt_tls_alloc_dtv(uintptr_t tp)
{
	return dl_allocate_tls((void *)tp) != NULL;
}

/* Frees what ld.so allocated for the block (DTV, dynamic TLS).  Context:
 * the task itself as its last act, or anyone once it no longer runs. */
void wt_tls_free(uintptr_t tp)
{
	dl_deallocate_tls((void *)tp, 0);
}

/* As _dl_deallocate_tls, without the last free: the block the DTV lives
 * in (its length in the first entry, the TCB pointing at the second). */
void *wt_tls_dtv_keep(uintptr_t tp)
{
	dtv_t *d = (dtv_t *)*wt_arch_tcb_dtv(tp) - 1;
	for (size_t i = 1; i <= d[0].counter; i++)
		if (d[1 + i].to_free) /* mostly none: a call each cost 5% of a create-join */
			free(d[1 + i].to_free);
	return d;
}

void wt_tls_dtv_free(void *dtv)
{
	free(dtv);
}

/* Context: the new task, first thing. */
void wt_tls_start(struct wt_task *t)
{
	(void)t;
	ctype_init();
}

/* Trap mode: around a libc call that may block every signal and then enter
 * the kernel (pthread_create, posix_spawn, fork, ...), the kernel-known base
 * is the one in use, because a revert while SIGSEGV is blocked would kill
 * the process (or a vfork child that shares its memory) instead of
 * trapping.  A pin puts its worker in syscall mode (tp_mode
 * WT_TLS_SYSCALL, tp_pinmode set), which is sound whatever runs next.
 *
 * A pinned task may still change workers: the libc call waits on one of
 * glibc's internal locks (malloc's or stdio's, a contended lock inside
 * popen or fork), sysmon hands the proc of the sleeping worker on
 * (io/blocked.c), and the task resumes on whichever worker gets a proc.  So
 * the pin is the task's (t->tp_pinned), and every switch looks at it
 * (wt_tls_switching): a pinned task switched in puts the new worker in
 * syscall mode first; a worker in that mode for a pin goes back to trap
 * mode when it next switches to a task that is not pinned.  An earlier pin
 * of the worker (the kernel base set by system call, the guard written
 * back by the unpin on whatever thread then ran the task) left one
 * worker's kernel base on the task's block for good, where a later revert
 * silently ran another task on it, and a vfork child made on the second
 * worker started on its guard with every signal blocked: 1 popen in 4 of
 * 50 at once at GOMAXPROCS=1 under load died of SIGSEGV.
 * Context: a task or a g0 (the worker is found by its OS tid: a rare, slow
 * path).  Costs system calls; nothing in other modes. */
struct wt_pin wt_tls_pin(void)
{
	struct wt_pin pin = { 0, 0, 0 };
	if (!wt_tls_trap)
		return pin;
	uintptr_t tp = wt_arch_get_tp(); /* a reverted base traps and is repaired */
	struct wt_m *m = wt_m_of_tid((int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0));
	if (!m)
		return pin; /* not a worker: its base is the kernel's already */
	struct wt_task *t = m->curg;
	if (t && t->tp == tp) {
		t->tp_pinned++;
		pin.t = t;
	} else {
		pin.m = m;
	}
	pin.tp = tp;
	if (m->tp_mode == WT_TLS_WRFSBASE) {
		m->tp_mode = WT_TLS_SYSCALL;
		m->tp_pinmode = true;
		wt_arch_set_tp(tp);
	}
	return pin;
}

/* On m's thread, running a context that is not pinned. */
static void pin_mode_leave(struct wt_m *m)
{
	m->tp_pinmode = false;
	if (m->tp_mode != WT_TLS_SYSCALL)
		return;
	m->tp_mode = WT_TLS_WRFSBASE;
	wt_arch_set_tp(m->guard_tp);
	wt_arch_set_tp_fast(m->cur_tp);
}

void wt_tls_unpin(struct wt_pin pin)
{
	struct wt_m *m = pin.m;
	if (pin.t) {
		m = pin.t->m; /* running it now: maybe not the worker that pinned */
		if (--pin.t->tp_pinned)
			return;
	}
	if (m && m->tp_pinmode)
		pin_mode_leave(m);
}

/* Trap mode, at a switch on m to next (wt_tls_switching), when next is
 * pinned or m is in syscall mode for a pin.  Before the switch, so the
 * switch writes next's base the way tp_mode now says. */
void wt_tls_pin_switch(struct wt_m *m, struct wt_task *next)
{
	if (next->tp_pinned) {
		if (m->tp_mode == WT_TLS_WRFSBASE) {
			m->tp_mode = WT_TLS_SYSCALL;
			m->tp_pinmode = true;
			/* the kernel's base right for what runs until the switch */
			wt_arch_set_tp(m->cur_tp);
		}
	} else {
		pin_mode_leave(m);
	}
}

/* Fork child (process/fork.c): workers other than the caller's are gone. */
void wt_tls_fork_reset(void)
{
	wt_tls_static_fork_reset();
	if (!guard_m)
		return;
	/* Up to the highest in use: the rest was never touched, and reading
	 * it would fault a page in at a time. */
	int hi = atomic_load_explicit(&guard_hi, memory_order_relaxed);
	for (int i = 0; i < hi; i++)
		if (guard_m[i])
			atomic_store_explicit((_Atomic(struct wt_m *) *)&guard_m[i], NULL,
					      memory_order_relaxed);
}
