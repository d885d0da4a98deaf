/*
 * lone_task.c — a process that runs one thread, then makes a second.
 *
 * Part 1, one thread: its sleeps (sleep, nanosleep, usleep,
 * clock_nanosleep, a timed condition wait), its timers (alarm,
 * setitimer's three, timer_create with a signal) ending sigsuspend, pause
 * and CPU loops, its handlers (SA_RESETHAND, SA_SIGINFO with a value, on
 * an alternate stack), raise, a self-kill, sigwait, fork with the child's
 * status, posix_spawn, and pthread_exit in a lone main (in a fork child:
 * atexit handlers run, status 0).  The process has one OS thread all the
 * while (/proc/self/task), as natively.
 * Part 2, across the second thread's creation: a handler, an alternate
 * stack, a recursive and an errorcheck mutex held, and an interval timer
 * armed, all before it; after it the mutexes unlock and relock, the timer
 * ends a CPU loop through the handler, on the alternate stack, and main
 * spins until the thread has run (preemption at GOMAXPROCS=1).  Last, in a
 * fork child: main's pthread_exit after the second thread, which finishes
 * the process with status 0.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "weft_check.h"

extern char **environ;

static volatile sig_atomic_t got[65];
static volatile sig_atomic_t value_seen, on_alt;
static char alt[1 << 16];

static void on_sig(int sig)
{
	got[sig]++;
}

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got[sig]++;
	if (si->si_code == SI_TIMER || si->si_code == SI_QUEUE)
		value_seen = si->si_value.sival_int;
	char here;
	if (&here >= alt && &here < alt + sizeof alt)
		on_alt = 1;
}

static int threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void handle(int sig, void (*h)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void handle_info(int sig, int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* A CPU loop that only a signal's handler ends. */
static long spin_until(int sig)
{
	long n = 0;
	while (!got[sig])
		n++;
	return n;
}

static void part_sleeps(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	printf("sleep %u\n", sleep(0));
	printf("nanosleep %d\n", nanosleep(&ts, NULL));
	printf("usleep %d\n", usleep(10000));
	printf("clock_nanosleep %d\n", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL));
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += 20 * 1000 * 1000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&m);
	int r = pthread_cond_timedwait(&c, &m, &dl);
	pthread_mutex_unlock(&m);
	printf("cond_timedwait %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r));
}

static void part_timers(void)
{
	/* alarm ends pause. */
	handle(SIGALRM, on_sig, 0);
	alarm(1);
	int r = pause();
	printf("alarm: pause %d %s, SIGALRM %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?",
	       (int)got[SIGALRM]);

	/* ITIMER_REAL ends a CPU loop, then sigsuspend. */
	got[SIGALRM] = 0;
	struct itimerval it = { { 0, 0 }, { 0, 30000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	spin_until(SIGALRM);
	printf("itimer real: loop ended by SIGALRM %d\n", (int)got[SIGALRM]);

	/* ITIMER_VIRTUAL and ITIMER_PROF count CPU time: only a CPU loop
	 * makes them fire. */
	handle(SIGVTALRM, on_sig, 0);
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	spin_until(SIGVTALRM);
	printf("itimer virtual: loop ended by SIGVTALRM %d\n", (int)got[SIGVTALRM]);
	handle(SIGPROF, on_sig, 0);
	setitimer(ITIMER_PROF, &it, NULL);
	spin_until(SIGPROF);
	printf("itimer prof: loop ended by SIGPROF %d\n", (int)got[SIGPROF]);

	/* A POSIX timer with a value, periodic, ends sigsuspend twice. */
	handle_info(SIGRTMIN + 1, 0);
	sigset_t block, old, none;
	sigemptyset(&block);
	sigaddset(&block, SIGRTMIN + 1);
	sigprocmask(SIG_BLOCK, &block, &old);
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN + 1;
	sev.sigev_value.sival_int = 4242;
	timer_t id;
	if (timer_create(CLOCK_MONOTONIC, &sev, &id) != 0) {
		perror("timer_create");
		exit(1);
	}
	struct itimerspec its = { { 0, 10 * 1000 * 1000 }, { 0, 10 * 1000 * 1000 } };
	timer_settime(id, 0, &its, NULL);
	sigemptyset(&none);
	while (got[SIGRTMIN + 1] < 2)
		sigsuspend(&none);
	timer_delete(id);
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("timer_create: sigsuspend woken, value %d\n", (int)value_seen);
}

static void part_signals(void)
{
	/* SA_RESETHAND: the handler once, then the default (ignored here). */
	handle(SIGWINCH, on_sig, SA_RESETHAND);
	raise(SIGWINCH);
	raise(SIGWINCH);
	struct sigaction now;
	sigaction(SIGWINCH, NULL, &now);
	printf("resethand: ran %d, now %s\n", (int)got[SIGWINCH],
	       now.sa_handler == SIG_DFL ? "SIG_DFL" : "handler");

	/* On an alternate stack, with a queued value. */
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0 };
	sigaltstack(&ss, NULL);
	handle_info(SIGUSR1, SA_ONSTACK);
	on_alt = 0;
	sigqueue(getpid(), SIGUSR1, (union sigval){ .sival_int = 77 });
	printf("sigqueue: ran %d, value %d, on the alternate stack %d\n", (int)got[SIGUSR1],
	       (int)value_seen, (int)on_alt);

	/* kill to itself, blocked, then sigwait. */
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	sigprocmask(SIG_BLOCK, &s, NULL);
	kill(getpid(), SIGUSR2);
	int sig = 0;
	sigwait(&s, &sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	printf("sigwait: %s\n", sig == SIGUSR2 ? "SIGUSR2" : "other");
}

static void bye(void)
{
	printf("atexit handler ran\n");
	fflush(stdout);
}

static void part_fork(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		printf("child: threads %d\n", threads_now());
		fflush(stdout);
		_exit(7);
	}
	int st;
	waitpid(p, &st, 0);
	printf("fork: child exit %d\n", WEXITSTATUS(st));

	char *argv[] = { "sh", "-c", "exit 5", NULL };
	if (posix_spawn(&p, "/bin/sh", NULL, NULL, argv, environ) == 0) {
		waitpid(p, &st, 0);
		printf("posix_spawn: exit %d\n", WEXITSTATUS(st));
	}

	/* pthread_exit in a lone main: atexit handlers run, status 0. */
	fflush(stdout);
	if ((p = fork()) == 0) {
		atexit(bye);
		pthread_exit(NULL);
	}
	waitpid(p, &st, 0);
	printf("lone pthread_exit: %s %d\n", WIFEXITED(st) ? "exit" : "signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/* ---- part 2 ---- */

static pthread_mutex_t rec, chk;
static atomic_int ran;

static void *second(void *arg)
{
	(void)arg;
	int r = pthread_mutex_trylock(&rec);
	atomic_store(&ran, 1);
	return (void *)(intptr_t)r;
}

static void *late(void *arg)
{
	(void)arg;
	usleep(50000);
	printf("late thread: done after main's pthread_exit\n");
	fflush(stdout);
	return NULL;
}

static void part_second(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&rec, &a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&chk, &a);
	pthread_mutex_lock(&rec);
	pthread_mutex_lock(&rec);
	pthread_mutex_lock(&chk);

	got[SIGUSR1] = 0;
	got[SIGALRM] = 0;
	on_alt = 0;
	handle_info(SIGALRM, SA_ONSTACK);
	struct itimerval it = { { 0, 0 }, { 0, 100000 } };
	setitimer(ITIMER_REAL, &it, NULL);

	pthread_t th;
	void *res;
	pthread_create(&th, NULL, second, NULL);
	/* Until the thread has run: at GOMAXPROCS=1 only preemption lets it. */
	while (!atomic_load(&ran))
		;
	pthread_join(th, &res);
	printf("second thread: trylock of main's recursive mutex %s\n",
	       (intptr_t)res == EBUSY ? "EBUSY" : "other");
	printf("errorcheck relock %s\n", pthread_mutex_lock(&chk) == EDEADLK ? "EDEADLK" : "other");
	int u1 = pthread_mutex_unlock(&rec);
	int u2 = pthread_mutex_unlock(&rec);
	int u3 = pthread_mutex_unlock(&chk);
	int u4 = pthread_mutex_unlock(&chk);
	printf("unlocks %d %d %d, again %s\n", u1, u2, u3, u4 == EPERM ? "EPERM" : "other");

	spin_until(SIGALRM);
	printf("itimer armed before: loop ended by SIGALRM %d, on the alternate stack %d\n",
	       (int)got[SIGALRM], (int)on_alt);
	sigqueue(getpid(), SIGUSR1, (union sigval){ .sival_int = 99 });
	while (!got[SIGUSR1])
		sched_yield();
	printf("handler set before: ran %d, value %d\n", (int)got[SIGUSR1], (int)value_seen);

	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		pthread_t t;
		pthread_create(&t, NULL, late, NULL);
		pthread_exit(NULL);
	}
	int st;
	waitpid(p, &st, 0);
	printf("pthread_exit after the second thread: %s %d\n", WIFEXITED(st) ? "exit" : "signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	part_sleeps();
	part_timers();
	part_signals();
	part_fork();
	printf("one thread: %d\n", threads_now());
	part_second();
	return 0;
}
