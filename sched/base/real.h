/*
 * real.h — the libc originals of the names weft interposes, one table,
 * resolved once with dlsym(RTLD_NEXT) (real.c).  Runtime and shim code call
 * real.X and never an exported interposed name, and nothing else looks a
 * libc original up.
 *
 * Every entry point that calls real.X calls wt_real_init() first (one
 * acquire load once the table is filled): weft can be entered before its
 * constructor.  Runtime code past wt_runtime_start may rely on the table.
 */
#ifndef WEFT_REAL_H
#define WEFT_REAL_H

#include <fcntl.h>
#include <grp.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"

/* glibc 2.34 or later (README, "glibc and Debian releases"); the
 * Makefile's glibc-check says so before anything is compiled. */
#if !__GLIBC_PREREQ(2, 34)
#error "weft: needs glibc 2.34 or later"
#endif

/* glibc's _FORTIFY_SOURCE entry points (declared only by fortified headers). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* The originals, each typed as libc declares it.  R: required (weft stops
 * with "weft: libc has no X" when missing); O: optional — NULL when libc
 * lacks it (glibc has each since 2.34), and its callers handle NULL; S: required,
 * its field typed by hand below.  The users are named in each group. */
#define WT_REAL_LIST(R, O, S)                                                   \
	/* threads: shim/pthread_create.c; core/worker.c, core/sysmon.c, observe/dump.c, stack/tls.c */ \
	R(pthread_create) R(pthread_join) R(pthread_detach)                    \
	R(pthread_attr_init) R(pthread_attr_destroy)                           \
	R(pthread_attr_setdetachstate) R(pthread_attr_setstacksize)            \
	R(pthread_attr_setstack) R(pthread_getattr_np)                         \
	R(pthread_setname_np) R(pthread_getname_np)                            \
	R(pthread_setattr_default_np)                                          \
	/* shim/c11threads.c */                                                \
	S(thrd_create)                                                         \
	/* shim/sched.c: threads weft did not create */                        \
	R(pthread_setschedparam) R(pthread_getschedparam)                      \
	R(pthread_setschedprio) R(pthread_setaffinity_np)                      \
	R(pthread_getaffinity_np)                                              \
	/* signals: shim/signal.c; signal/crash.c, observe/dump.c, core/preempt.c, signal/sighandler.c */ \
	R(pthread_sigmask) R(sigaction) R(pthread_kill) R(sigtimedwait)        \
	R(pthread_sigqueue)                                                    \
	/* shim/pthread_mutex.c, pthread_cond.c */                             \
	R(pthread_mutex_lock) R(pthread_mutex_trylock)                         \
	R(pthread_mutex_timedlock) O(pthread_mutex_clocklock)                  \
	R(pthread_mutex_unlock) R(pthread_mutex_init)                          \
	R(pthread_mutex_destroy) R(pthread_mutex_consistent)                   \
	R(pthread_mutex_setprioceiling)                                        \
	R(pthread_cond_wait) R(pthread_cond_timedwait)                         \
	O(pthread_cond_clockwait) R(pthread_cond_signal)                       \
	R(pthread_cond_broadcast) R(pthread_cond_init) R(pthread_cond_destroy) \
	/* shim/pthread_rwlock.c: process-shared locks */                      \
	R(pthread_rwlock_init) R(pthread_rwlock_destroy)                       \
	R(pthread_rwlock_rdlock) R(pthread_rwlock_wrlock)                      \
	R(pthread_rwlock_tryrdlock) R(pthread_rwlock_trywrlock)                \
	R(pthread_rwlock_timedrdlock) R(pthread_rwlock_timedwrlock)            \
	O(pthread_rwlock_clockrdlock) O(pthread_rwlock_clockwrlock)            \
	R(pthread_rwlock_unlock)                                               \
	/* shim/pthread_barrier.c: process-shared barriers */                  \
	R(pthread_barrier_init) R(pthread_barrier_destroy)                     \
	R(pthread_barrier_wait)                                                \
	/* shim/semaphore.c: shared and named semaphores */                    \
	R(sem_init) R(sem_destroy) R(sem_wait) R(sem_trywait)                  \
	R(sem_timedwait) O(sem_clockwait) R(sem_post) R(sem_getvalue)          \
	/* shim/netio.c */                                                     \
	R(read) R(readv) R(write) R(writev)                                    \
	R(close) R(dup2) R(dup3) R(fclose) O(close_range)                      \
	/* shim/poll.c */                                                      \
	R(poll) R(ppoll) R(select) R(pselect) R(epoll_wait) R(epoll_pwait)     \
	O(epoll_pwait2)                                                        \
	/* shim/fd_create.c */                                                 \
	R(pipe) R(pipe2) R(dup) R(eventfd)                                     \
	R(timerfd_create) R(signalfd) R(epoll_create) R(epoll_create1)         \
	/* shim/ioctl.c, shim/syscall.c */                                     \
	R(ioctl) R(syscall)                                                    \
	/* shim/blocking.c */                                                  \
	R(pread) R(pwrite) R(pread64) R(pwrite64)                                \
	R(waitpid) R(wait) R(waitid)                                             \
	R(fsync)                                                               \
	/* shim/fallback.c */                                                  \
	R(open) R(open64) R(openat) R(openat64)                                \
	R(__open_2) R(__open64_2) R(__openat_2) R(__openat64_2)                \
	R(creat) R(creat64) R(flock) R(fcntl) R(fcntl64) R(lockf) R(lockf64)   \
	R(pause) R(sigsuspend) R(raise) R(kill) R(sigqueue) R(wait3) R(wait4)                               \
	R(msgrcv) R(msgsnd) R(semop) R(semtimedop)                             \
	R(mq_receive) R(mq_send) R(mq_timedreceive) R(mq_timedsend)            \
	R(fdatasync) R(sync) R(syncfs) R(truncate) R(truncate64)               \
	R(ftruncate) R(ftruncate64)                                            \
	R(sendfile) R(sendfile64) R(copy_file_range) R(splice) R(tee)          \
	R(vmsplice)                                                            \
	/* shim/setxid.c: ids, used while weft does not run the program */   \
	R(setuid) R(setgid) R(seteuid) R(setegid) R(setreuid) R(setregid)      \
	R(setresuid) R(setresgid) R(setgroups) R(initgroups)                   \
	/* shim/spawn.c */                                                     \
	R(posix_spawn) R(posix_spawnp) R(system) R(popen) R(pclose) R(fork)    \
	O(_Fork)                                                               \
	/* shim/random.c */                                                    \
	R(getrandom) R(getentropy) R(arc4random) R(arc4random_buf)             \
	R(arc4random_uniform) R(mkstemp) R(mkstemp64) R(mkostemp)              \
	R(mkostemp64) R(mkstemps) R(mkstemps64) R(mkostemps) R(mkostemps64)    \
	R(mkdtemp) R(mktemp) R(tmpfile) R(tmpfile64) R(tempnam) R(tmpnam)      \
	R(tmpnam_r)                                                            \
	/* shim/exec.c */                                                      \
	R(execve) R(execvpe) R(fexecve) O(execveat)                            \
	/* shim/mman.c */                                                      \
	R(mmap) R(mmap64) R(mprotect) R(munmap) R(mremap) R(shmat) R(shmdt)    \
	/* clocks, ids, names: shim/clock.c, sleep.c, pthread_create.c; core/timer.c, core/park.c, observe/dump.c */ \
	R(clock_gettime) R(clock_getres) R(clock_nanosleep) R(getrusage)       \
	R(timer_create) R(pthread_getcpuclockid) R(prctl)                      \
	/* socket calls (shim/netio.c, fd_create.c, blocking.c) */            \
	S(recvfrom) S(recvmsg) S(accept4) S(sendto) S(sendmsg) S(socket)       \
	S(socketpair) S(connect)

struct sockaddr;
struct msghdr;

#define WT_REAL_FIELD(f) __typeof__(f) *f;
#define WT_REAL_SPELLED(f)
struct wt_real {
	WT_REAL_LIST(WT_REAL_FIELD, WT_REAL_FIELD, WT_REAL_SPELLED)
	/* Not from <sys/socket.h>: runtime files that include this one may
	 * use its names (send) for their own. */
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	int (*socket)(int, int, int);
	int (*socketpair)(int, int, int, int[2]);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	/* Not from <threads.h>, which would define thread_local and once_flag
	 * for every file that includes this one. */
	int (*thrd_create)(unsigned long *, int (*)(void *), void *);
	/* Spelled out: libc declares these noreturn or under another name. */
	void (*exit)(int);                   /* core/task.c: the last task left */
	void (*pthread_exit)(void *);        /* shim/pthread_create.c, core/task.c */
	/* shim/setjmp.c */
	void (*longjmp)(struct __jmp_buf_tag *, int);
	void (*_longjmp)(struct __jmp_buf_tag *, int);
	void (*siglongjmp)(struct __jmp_buf_tag *, int);
	void (*longjmp_chk)(struct __jmp_buf_tag *, int); /* __longjmp_chk */
	int (*libc_start_main)(int (*)(int, char **, char **), int, char **, void (*)(void),
			       void (*)(void), void (*)(void), void *); /* __libc_start_main */
};
#undef WT_REAL_FIELD
#undef WT_REAL_SPELLED

extern struct wt_real real;
extern _Atomic int wt_real_ready;
void wt_real_resolve(void);

/* Fills the table if it is not yet.  Context: any, before the runtime and
 * its allocator exist; does not allocate (real.c), leaves errno alone for
 * names libc has. */
/* libc's __libc_start_main alone, without the rest of the table: a process
 * that calls nothing else of weft's (a dormant one, core/start.c) resolves one
 * name, not the table's 160 (about 15 page faults of libc's symbol
 * tables).  Context: the initial thread, before main. */
void *wt_real_libc_start_main(void);

static inline void wt_real_init(void)
{
	if (unlikely(!atomic_load_explicit(&wt_real_ready, memory_order_acquire)))
		wt_real_resolve();
}

/* libc's clock_gettime, for runtime code (the exported name is weft's,
 * shim/clock.c).  Context: any. */
static inline int wt_clock_gettime(clockid_t clk, struct timespec *ts)
{
	wt_real_init();
	return real.clock_gettime(clk, ts);
}

#endif
