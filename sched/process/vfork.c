/*
 * vfork.c — vfork as the kernel does it: the child shares the parent's
 * memory and runs on the calling task's stack until it execs or exits,
 * while the calling thread waits.
 *
 * Programs use it to start another program cheaply (CPython's subprocess,
 * among others).  A fork instead would copy the page tables of a process
 * that weft made larger, start a runtime in the child and take a
 * copy-on-write fault for each page either side writes until the exec:
 * with a 20 µs fault that was about 14 ms a spawn, against 2.5 natively.
 *
 * The child must then leave the runtime alone: every structure it could
 * touch is the parent's, used by the parent's other threads meanwhile.
 * So, from the system call to its exec or exit:
 *   - it runs as a thread weft did not create (wt_cur() is NULL), so the
 *     interposed calls are libc's plain ones: no parking, no hand-off;
 *   - wt_vfork_child() is true, and what weft mirrors of state that is per
 *     process in the kernel but the child's own after the clone (the
 *     poller's knowledge of descriptors: io/netpoll.c; signal dispositions:
 *     shim/signal.c; credentials: setxid.c) is not changed by its calls;
 *   - the kernel's signal dispositions are the program's (weft's handlers
 *     would run the runtime) and its mask is the task's;
 *   - its thread pointer is the task's own (stack/tls.c: pinned), so TLS never
 *     faults to be repaired.
 * The calling task's state lives in its TLS (the child's thread pointer),
 * which the parent, suspended, cannot read meanwhile; the parent puts it
 * back when the call returns.  The call is a blocking system call for the
 * runtime (io/syscall.c): the proc goes to other tasks while the parent
 * waits.  Every signal stays blocked on the calling thread from before
 * the clone until the child has its own dispositions and mask, and in the
 * parent until the call is over: a handler of weft's in either would find
 * the task's TLS in the state above.
 *
 * In a dormant process (core/start.c) none of that applies: no task, the
 * program's own dispositions in the kernel, no handler of weft's.  Only
 * wt_vfork_child() is set (a call of the child's still changes nothing of
 * the parent's); the mask is not touched, as glibc's vfork does not: a
 * shell running a command in a loop, with weft in every process, made 3
 * rt_sigprocmask calls more per command.
 */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "signal/sighandler.h"
#include "core/start.h"
#include "io/syscall.h"
#include "stack/tls.h"
#include "vfork.h"

__thread bool wt_vfork_tls __attribute__((tls_model("initial-exec")));

/* One vfork under way on this task; in its TLS.  [owner: the task] */
static __thread struct {
	struct wt_task *t;  /* the calling task, NULL for a thread weft did not create */
	struct wt_pin pin;
	uint64_t kmask;     /* the thread's signal mask before the call */
	bool runtime;       /* weft runs the program: the steps above apply */
} vf __attribute__((tls_model("initial-exec")));

static uint64_t sigmask_set(uint64_t m)
{
	uint64_t old = 0;
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&m, (long)&old, 8, 0, 0);
	return old;
}

/* Context: the calling thread, before the system call. */
void wt_vfork_enter(void)
{
	bool on = wt_runtime_on();
	vf.runtime = on;
	if (!on) {
		/* Dormant (core/start.c): the kernel holds the program's
		 * dispositions and no handler of weft's, and no task's state
		 * is in the TLS, so the call is as glibc's: the mask is left
		 * alone (3 system calls fewer for each command a shell runs). */
		vf.t = NULL;
		wt_vfork_tls = true;
		return;
	}
	struct wt_task *t = wt_cur(); /* may fault to be repaired: before the block */
	if (t)
		wt_entersyscall();
	struct wt_pin pin = wt_tls_pin();
	uint64_t old = sigmask_set(~0ull);
	/* From here no TLS access may fault: the base is the task's own. */
	vf.t = t;
	vf.pin = pin;
	vf.kmask = old;
	wt_vfork_tls = true;
	if (t)
		wt_cur_tls = NULL;
}

/* Context: the child, on the parent's stack below the caller's frame,
 * every signal blocked if the runtime runs. */
void wt_vfork_child_start(void)
{
	if (!vf.runtime)
		return;
	wt_sig_vfork_child();
	sigmask_set(vf.t ? vf.t->sigmask : vf.kmask);
}

/* Context: the calling thread once the child has exec'd or exited (or the
 * call failed), every signal blocked if the runtime runs. */
long wt_vfork_parent(long r)
{
	struct wt_task *t = vf.t;
	struct wt_pin pin = vf.pin;
	uint64_t kmask = vf.kmask;
	if (t)
		wt_cur_tls = t;
	wt_vfork_tls = false;
	if (vf.runtime) {
		wt_tls_unpin(pin);
		sigmask_set(kmask);
	}
	if (t)
		wt_exitsyscall();
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
