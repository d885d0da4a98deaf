/* The system calls that take or give a thread id, made through syscall(),
 * keep their promises with the ids gettid() gives: set_tid_address returns
 * the caller's gettid(); the word it names is cleared and woken when the
 * thread ends (a waiter in FUTEX_WAIT sees it), and so is the one
 * PR_GET_TID_ADDRESS reports; tgkill, tkill and rt_tgsigqueueinfo to a
 * thread's id, and pthread_sigqueue, run the handler on that thread (with
 * the siginfo queued);
 * sched_setaffinity/getaffinity, sched_setscheduler/getscheduler,
 * sched_setparam/getparam, sched_setattr/getattr and
 * setpriority/getpriority on a thread's id act on that thread alone;
 * get_robust_list reads a thread's list, set_robust_list's own list is
 * walked at its exit (its lock word marked owner-died); a private
 * priority-inheritance futex holding gettid() ids is locked, waited for
 * (with a timeout too), refused (EDEADLK, EPERM, EAGAIN) and handed over
 * as the kernel does; a thread's CPU
 * clock id works through syscall(SYS_clock_gettime); pidfd_open of a
 * thread that leads no group fails as the kernel says; process_vm_readv
 * and prlimit on a thread's id reach the process; an ended thread's id is
 * ESRCH.  Under qemu-user (make test-aarch64) there is no native
 * reference: tid_syscalls.expected is the output on Linux. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "test_util.h"

static const char *S(long r) { return r < 0 ? strerrorname_np(errno) : "0"; }

static long futex_wait(int *w, int val, int sec)
{
	struct timespec ts = { sec, 0 };
	return syscall(SYS_futex, w, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* A wait on w (holding val) that ends by a wake or because w changed
 * first, not by its timeout. */
static const char *wait_result(int *w, int val)
{
	long r = futex_wait(w, val, 20);
	if (r == 0 || errno == EAGAIN)
		return "ended";
	return strerrorname_np(errno);
}

static void ms(int n)
{
	struct timespec ts = { 0, n * 1000000L };
	nanosleep(&ts, NULL);
}

/* ---- set_tid_address and PR_GET_TID_ADDRESS ---- */

static int word = 1;          /* the clear-tid word a thread names */
static atomic_int waiting;    /* the main thread is about to wait */
static _Atomic(int *) tcb_word; /* PR_GET_TID_ADDRESS of a thread */

static void tid_address_self(const char *who)
{
	unsigned long a = 0, b = 0;
	int r = prctl(PR_GET_TID_ADDRESS, &a);
	long t0 = syscall(SYS_set_tid_address, NULL);
	prctl(PR_GET_TID_ADDRESS, &b);
	long t1 = syscall(SYS_set_tid_address, (int *)a);
	unsigned long c = 0;
	prctl(PR_GET_TID_ADDRESS, &c);
	printf("%s: PR_GET_TID_ADDRESS %s, %s, after set NULL: %s; set_tid_address = gettid: "
	       "%d %d; syscall(SYS_gettid) = gettid: %d\n",
	       who, S(r), a ? "non-NULL" : "NULL", b == 0 && c == a ? "NULL, then back" : "wrong",
	       t0 == gettid(), t1 == gettid(), syscall(SYS_gettid) == gettid());
}

static void *names_word(void *arg)
{
	(void)arg;
	tid_address_self("thread");
	long r = syscall(SYS_set_tid_address, &word);
	unsigned long a = 0;
	prctl(PR_GET_TID_ADDRESS, &a);
	printf("thread: set_tid_address(&word) = gettid %d, PR_GET_TID_ADDRESS gives it %d\n",
	       r == gettid(), a == (unsigned long)&word);
	while (!atomic_load(&waiting))
		ms(1);
	ms(100); /* the main thread is in its wait by now, or finds 0 */
	return NULL;
}

static void *reports_word(void *arg)
{
	(void)arg;
	unsigned long a = 0;
	prctl(PR_GET_TID_ADDRESS, &a);
	atomic_store(&tcb_word, (int *)a);
	while (!atomic_load(&waiting))
		ms(1);
	ms(100);
	return NULL;
}

static void *idle(void *arg)
{
	(void)arg;
	return NULL;
}

static void clear_tid(void)
{
	/* Detached: natively pthread_join waits for the kernel to clear the
	 * word glibc registered, which this thread replaced. */
	pthread_t th;
	pthread_attr_t da;
	pthread_attr_init(&da);
	pthread_attr_setdetachstate(&da, PTHREAD_CREATE_DETACHED);
	pthread_create(&th, &da, names_word, NULL);
	pthread_attr_destroy(&da);
	atomic_store(&waiting, 1);
	const char *w = wait_result(&word, 1);
	printf("clear-tid word: wait %s, word %d\n", w, __atomic_load_n(&word, __ATOMIC_SEQ_CST));
	/* The word is the ended thread's, not its worker's: later threads
	 * and their exits leave it alone. */
	word = 7;
	pthread_t more[8];
	for (int i = 0; i < 8; i++)
		pthread_create(&more[i], NULL, idle, NULL);
	for (int i = 0; i < 8; i++)
		pthread_join(more[i], NULL);
	printf("after 8 more threads: word %d\n", word);

	atomic_store(&waiting, 0);
	pthread_create(&th, NULL, reports_word, NULL);
	int *tw;
	while (!(tw = atomic_load(&tcb_word)))
		ms(1);
	int v = __atomic_load_n(tw, __ATOMIC_SEQ_CST);
	atomic_store(&waiting, 1);
	w = wait_result(tw, v);
	printf("PR_GET_TID_ADDRESS word: held %s, wait %s, word %d\n", v ? "non-zero" : "0", w,
	       __atomic_load_n(tw, __ATOMIC_SEQ_CST));
	pthread_join(th, NULL);
}

/* ---- signals to a thread's id ---- */

static atomic_int target_tid, handler_tid, handler_code, handler_val, stop;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	atomic_store(&handler_code, si->si_code);
	atomic_store(&handler_val, si->si_code == SI_QUEUE ? si->si_value.sival_int : -1);
	atomic_store(&handler_tid, gettid());
}

static void *target(void *arg)
{
	(void)arg;
	atomic_store(&target_tid, gettid());
	while (!atomic_load(&stop))
		ms(1);
	return NULL;
}

static const char *reached(int tid)
{
	for (int i = 0; i < 20000 && !atomic_load(&handler_tid); i++)
		ms(1);
	int h = atomic_exchange(&handler_tid, 0);
	return h == tid ? "the thread" : h ? "another thread" : "nobody";
}

static void *sends_as_user(void *arg)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_code = SI_USER;
	long r = syscall(SYS_rt_tgsigqueueinfo, getpid(), (int)(intptr_t)arg, SIGUSR1, &si);
	printf("rt_tgsigqueueinfo SI_USER from a thread not the leader: %s\n", S(r));
	return NULL;
}

static void signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	/* Only the target takes SIGUSR1. */
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	pthread_t th;
	atomic_store(&stop, 0);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	pthread_create(&th, &a, target, NULL);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	pthread_attr_destroy(&a);
	int tid;
	while (!(tid = atomic_load(&target_tid)))
		ms(1);
	long r = syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
	const char *on = reached(tid);
	printf("tgkill(pid, tid): %s, handler ran on %s, si_code SI_TKILL %d\n", S(r), on,
	       atomic_load(&handler_code) == SI_TKILL);
	r = syscall(SYS_tkill, tid, SIGUSR1);
	on = reached(tid);
	printf("tkill(tid): %s, handler ran on %s\n", S(r), on);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = 42;
	r = syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, SIGUSR1, &si);
	on = reached(tid);
	printf("rt_tgsigqueueinfo(pid, tid, SI_QUEUE 42): %s, handler ran on %s, code SI_QUEUE %d, "
	       "value %d\n",
	       S(r), on, atomic_load(&handler_code) == SI_QUEUE,
	       atomic_load(&handler_val));
	int e = pthread_sigqueue(th, SIGUSR1, (union sigval){ .sival_int = 43 });
	on = reached(tid);
	printf("pthread_sigqueue(43): %s, handler ran on %s, code SI_QUEUE %d, value %d\n",
	       e ? strerrorname_np(e) : "0", on, atomic_load(&handler_code) == SI_QUEUE,
	       atomic_load(&handler_val));
	r = syscall(SYS_tgkill, getpid(), tid, 0);
	printf("tgkill(pid, tid, 0): %s\n", S(r));
	r = syscall(SYS_tgkill, getpid() + 1 == tid ? getpid() + 2 : getpid() + 1, tid, 0);
	printf("tgkill(another tgid, tid, 0): %s\n", S(r));
	pthread_t snd;
	pthread_create(&snd, NULL, sends_as_user, (void *)(intptr_t)tid);
	pthread_join(snd, NULL);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	r = syscall(SYS_tgkill, getpid(), tid, 0);
	printf("after its end: tgkill %s, ", S(r));
	r = syscall(SYS_sched_getscheduler, tid);
	printf("sched_getscheduler %s, ", S(r));
	struct robust_list_head *h;
	size_t len;
	r = syscall(SYS_get_robust_list, tid, &h, &len);
	printf("get_robust_list %s\n", S(r));
	atomic_store(&target_tid, 0);
}

/* ---- scheduling calls on a thread's id ---- */

struct kattr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

static atomic_int phase;

static void wait_phase(int p)
{
	while (atomic_load(&phase) != p)
		ms(1);
}

static void *scheduled(void *arg)
{
	(void)arg;
	atomic_store(&target_tid, gettid());
	wait_phase(1);
	cpu_set_t set;
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof set, &set);
	struct sched_param sp = { -1 };
	sched_getparam(0, &sp);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	printf("thread sees: %d CPU(s), CPU 0 %d; policy BATCH %d, priority %d, nice %d\n",
	       CPU_COUNT(&set), CPU_ISSET(0, &set), sched_getscheduler(0) == SCHED_BATCH,
	       sp.sched_priority, nice);
	atomic_store(&phase, 2);
	wait_phase(3);
	struct kattr k;
	memset(&k, 0, sizeof k);
	long r = syscall(SYS_sched_getattr, 0, &k, sizeof k, 0);
	printf("thread sees sched_getattr: %s, policy IDLE %d, RESET_ON_FORK flag %d, "
	       "sched_getscheduler IDLE|RESET %d\n",
	       S(r), k.policy == SCHED_IDLE, (k.flags & 1) != 0,
	       sched_getscheduler(0) == (SCHED_IDLE | SCHED_RESET_ON_FORK));
	atomic_store(&phase, 4);
	wait_phase(5);
	return NULL;
}

static void scheduling(void)
{
	cpu_set_t all;
	CPU_ZERO(&all);
	sched_getaffinity(0, sizeof all, &all);
	int ncpu = CPU_COUNT(&all);
	atomic_store(&phase, 0);
	atomic_store(&target_tid, 0);
	pthread_t th;
	pthread_create(&th, NULL, scheduled, NULL);
	int tid;
	while (!(tid = atomic_load(&target_tid)))
		ms(1);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	long r = syscall(SYS_sched_setaffinity, tid, sizeof one, &one);
	printf("sched_setaffinity(tid, {0}): %s\n", S(r));
	cpu_set_t got;
	CPU_ZERO(&got);
	r = syscall(SYS_sched_getaffinity, tid, sizeof got, &got);
	printf("sched_getaffinity(tid): bytes > 0 %d, %d CPU(s), CPU 0 %d\n", r > 0,
	       CPU_COUNT(&got), CPU_ISSET(0, &got));
	CPU_ZERO(&got);
	sched_getaffinity(0, sizeof got, &got);
	printf("the main thread keeps its %s CPUs\n", CPU_COUNT(&got) == ncpu ? "own" : "WRONG");
	struct sched_param sp = { 0 };
	r = syscall(SYS_sched_setscheduler, tid, SCHED_BATCH, &sp);
	printf("sched_setscheduler(tid, BATCH): %s; sched_getscheduler(tid) BATCH %d; main OTHER %d\n",
	       S(r), syscall(SYS_sched_getscheduler, tid) == SCHED_BATCH,
	       syscall(SYS_sched_getscheduler, 0) == SCHED_OTHER);
	r = syscall(SYS_sched_setparam, tid, &sp);
	struct sched_param gp = { -1 };
	long r2 = syscall(SYS_sched_getparam, tid, &gp);
	printf("sched_setparam(tid): %s, sched_getparam(tid): %s %d\n", S(r), S(r2),
	       gp.sched_priority);
	sp.sched_priority = 1;
	r = syscall(SYS_sched_setparam, tid, &sp);
	printf("sched_setparam(tid, 1) on BATCH: %s\n", S(r));
	r = syscall(SYS_setpriority, PRIO_PROCESS, tid, 5);
	r2 = syscall(SYS_getpriority, PRIO_PROCESS, tid);
	printf("setpriority(tid, 5): %s; raw getpriority(tid) %ld; main's nice %d\n", S(r), r2,
	       getpriority(PRIO_PROCESS, 0));
	atomic_store(&phase, 1);
	wait_phase(2);
	struct kattr k;
	memset(&k, 0, sizeof k);
	k.size = sizeof k;
	k.policy = SCHED_IDLE;
	k.flags = 1; /* SCHED_FLAG_RESET_ON_FORK */
	r = syscall(SYS_sched_setattr, tid, &k, 0);
	memset(&k, 0, sizeof k);
	r2 = syscall(SYS_sched_getattr, tid, &k, sizeof k, 0);
	printf("sched_setattr(tid, IDLE, RESET_ON_FORK): %s; sched_getattr(tid): %s, size >= 48 %d, "
	       "policy IDLE %d, flags %llu, nice %d\n",
	       S(r), S(r2), k.size >= 48, k.policy == SCHED_IDLE, (unsigned long long)k.flags, k.nice);
	r = syscall(SYS_sched_getattr, tid, &k, 8, 0);
	printf("sched_getattr(tid, size 8): %s\n", S(r));
	memset(&k, 0, sizeof k);
	r = syscall(SYS_sched_getattr, 0, &k, sizeof k, 0);
	printf("main's sched_getattr: %s, policy OTHER %d, flags %llu, nice %d\n", S(r),
	       k.policy == SCHED_OTHER, (unsigned long long)k.flags, k.nice);
	atomic_store(&phase, 3);
	wait_phase(4);
	memset(&k, 0, sizeof k);
	k.size = sizeof k;
	k.policy = SCHED_BATCH;
	k.nice = 2;
	r = syscall(SYS_sched_setattr, tid, &k, 0);
	memset(&k, 0, sizeof k);
	r2 = syscall(SYS_sched_getattr, tid, &k, sizeof k, 0);
	printf("sched_setattr(tid, BATCH, nice 2): %s; sched_getattr(tid): %s, policy BATCH %d, "
	       "flags %llu, nice %d\n",
	       S(r), S(r2), k.policy == SCHED_BATCH, (unsigned long long)k.flags, k.nice);
	k.size = sizeof k;
	k.policy = 6; /* SCHED_DEADLINE, no runtime: invalid */
	k.nice = 0;
	r = syscall(SYS_sched_setattr, tid, &k, 0);
	printf("sched_setattr(tid, DEADLINE with no runtime): %s\n", S(r));
	atomic_store(&phase, 5);
	pthread_join(th, NULL);
}

/* ---- robust lists ---- */

struct entry {
	struct entry *next;
	int lock;
};

static struct robust_list_head own_head;
static struct entry held;
static struct robust_list_head *seen_head;
static size_t seen_len;

static void *robust_thread(void *arg)
{
	(void)arg;
	struct robust_list_head *h = NULL;
	size_t len = 0;
	long r = syscall(SYS_get_robust_list, 0, &h, &len);
	seen_head = h;
	seen_len = len;
	atomic_store(&target_tid, gettid());
	wait_phase(1);
	printf("thread: get_robust_list(0) %s, len %zu; set_robust_list bad len: %s\n", S(r), len,
	       S(syscall(SYS_set_robust_list, h, len + 1)));
	/* Its own list, one entry: a lock word it holds (its id). */
	held.lock = gettid();
	held.next = (struct entry *)&own_head;
	own_head.list.next = (struct robust_list *)&held;
	own_head.futex_offset = offsetof(struct entry, lock);
	own_head.list_op_pending = NULL;
	r = syscall(SYS_set_robust_list, &own_head, sizeof own_head);
	printf("thread: set_robust_list(own): %s\n", S(r));
	atomic_store(&phase, 2);
	wait_phase(3);
	return NULL;
}

static void robust(void)
{
	atomic_store(&phase, 0);
	atomic_store(&target_tid, 0);
	pthread_t th;
	pthread_create(&th, NULL, robust_thread, NULL);
	int tid;
	while (!(tid = atomic_load(&target_tid)))
		ms(1);
	struct robust_list_head *h = NULL;
	size_t len = 0;
	long r = syscall(SYS_get_robust_list, tid, &h, &len);
	printf("get_robust_list(tid): %s, the thread's own %d, len %zu\n", S(r),
	       h == seen_head && len == seen_len, len);
	atomic_store(&phase, 1);
	wait_phase(2);
	r = syscall(SYS_get_robust_list, tid, &h, &len);
	printf("get_robust_list(tid) after set: %s, the list it set %d\n", S(r), h == &own_head);
	atomic_store(&phase, 3);
	pthread_join(th, NULL);
	printf("lock word after the holder ended: %#x (FUTEX_OWNER_DIED)\n", (unsigned)held.lock);
}

/* ---- a priority-inheritance futex holding gettid() ids ---- */

static int piw;

static long pi_op(int op, const struct timespec *ts)
{
	return syscall(SYS_futex, &piw, op | FUTEX_PRIVATE_FLAG, 0, ts, NULL, 0);
}

static void *pi_thread(void *arg)
{
	(void)arg;
	long r = pi_op(FUTEX_TRYLOCK_PI, NULL);
	printf("thread: FUTEX_TRYLOCK_PI on main's: %s\n", S(r));
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 50000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	r = pi_op(FUTEX_LOCK_PI2, &ts);
	printf("thread: FUTEX_LOCK_PI2 with a 50 ms timeout: %s\n", S(r));
	atomic_store(&phase, 1);
	r = pi_op(FUTEX_LOCK_PI, NULL);
	int v = __atomic_load_n(&piw, __ATOMIC_SEQ_CST);
	printf("thread: FUTEX_LOCK_PI: %s, the word holds its gettid() %d\n", S(r),
	       (v & FUTEX_TID_MASK) == gettid());
	r = pi_op(FUTEX_LOCK_PI, NULL);
	printf("thread: FUTEX_LOCK_PI again: %s\n", S(r));
	atomic_store(&phase, 2);
	wait_phase(3);
	r = pi_op(FUTEX_UNLOCK_PI, NULL);
	printf("thread: FUTEX_UNLOCK_PI: %s, word %d\n", S(r), __atomic_load_n(&piw, __ATOMIC_SEQ_CST));
	return NULL;
}

static void pi_futex(void)
{
	atomic_store(&phase, 0);
	int z = 0;
	__atomic_compare_exchange_n(&piw, &z, gettid(), 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	pthread_t th;
	pthread_create(&th, NULL, pi_thread, NULL);
	wait_phase(1);
	while (!(__atomic_load_n(&piw, __ATOMIC_SEQ_CST) & FUTEX_WAITERS))
		ms(1);
	ms(20);
	long r = pi_op(FUTEX_UNLOCK_PI, NULL);
	const char *u = S(r);
	wait_phase(2);
	printf("main: FUTEX_UNLOCK_PI with a waiter: %s\n", u);
	r = pi_op(FUTEX_UNLOCK_PI, NULL);
	printf("main: FUTEX_UNLOCK_PI of the thread's: %s\n", S(r));
	atomic_store(&phase, 3);
	pthread_join(th, NULL);
}

/* ---- clocks, pidfd, process-wide calls ---- */

static void *clocked(void *arg)
{
	(void)arg;
	atomic_store(&target_tid, gettid());
	wait_phase(1);
	return NULL;
}

static void others(void)
{
	atomic_store(&phase, 0);
	atomic_store(&target_tid, 0);
	pthread_t th;
	pthread_create(&th, NULL, clocked, NULL);
	int tid;
	while (!(tid = atomic_load(&target_tid)))
		ms(1);
	clockid_t c;
	pthread_getcpuclockid(th, &c);
	struct timespec ts;
	long r = syscall(SYS_clock_gettime, c, &ts);
	long r2 = syscall(SYS_clock_getres, c, &ts);
	/* glibc's encoding of a thread's CPU clock by its id */
	clockid_t byid = (clockid_t)((~(unsigned)tid << 3) | 6);
	long r3 = syscall(SYS_clock_gettime, byid, &ts);
	printf("clock_gettime/clock_getres on its CPU clock: %s %s; by its id: %s\n", S(r), S(r2),
	       S(r3));
	r = syscall(SYS_pidfd_open, tid, 0);
	/* The kernel's error for a thread that leads no group: EINVAL before
	 * Linux 6.9, ENOENT since. */
	printf("pidfd_open(tid, 0) fails as for a thread that leads no group: %d\n",
	       r < 0 && (errno == EINVAL || errno == ENOENT));
	if (r >= 0)
		close((int)r);
	static char src[16] = "weft-vm-read";
	char dst[16] = { 0 }, dst2[16] = { 0 };
	struct iovec l = { dst, sizeof dst }, rv = { src, sizeof src };
	r = syscall(SYS_process_vm_readv, tid, &l, 1, &rv, 1, 0);
	int e = errno;
	l.iov_base = dst2;
	r2 = syscall(SYS_process_vm_readv, getpid(), &l, 1, &rv, 1, 0);
	/* (qemu-user has no process_vm_readv: both fail alike there) */
	printf("process_vm_readv(tid) reads as process_vm_readv(pid): %d\n",
	       r == r2 && (r < 0 ? e == errno : !memcmp(dst, dst2, sizeof dst)));
	struct rlimit rl, own;
	r = syscall(SYS_prlimit64, tid, RLIMIT_NOFILE, NULL, &rl);
	getrlimit(RLIMIT_NOFILE, &own);
	printf("prlimit64(tid, NOFILE): %s, the process's %d\n", S(r),
	       rl.rlim_cur == own.rlim_cur && rl.rlim_max == own.rlim_max);
	atomic_store(&phase, 1);
	pthread_join(th, NULL);
}

int main(void)
{
	weft_check_loaded();
	/* qemu-user keeps no clear-tid word or robust list of its own
	 * (PR_GET_TID_ADDRESS and get_robust_list fail there): under it the
	 * reference is tid_syscalls.expected, this output on Linux. */
	if (emulated() && !weft_loaded()) {
		printf("SKIP-NATIVE\n");
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	tid_address_self("main");
	clear_tid();
	signals();
	scheduling();
	robust();
	pi_futex();
	others();
	return 0;
}
