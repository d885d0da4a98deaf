/*
 * A signal handler that leaves by siglongjmp instead of returning, many
 * times, while other threads run: from its own raise, from another thread's
 * pthread_kill while it spins, while it waits in a blocking call (waitpid
 * on a child that pauses), and while it waits on a pipe; its handler runs
 * on its alternate stack.  Then everything a returned handler leaves
 * behind must hold: the mask sigsetjmp saved is the thread's again (read
 * back), later signals still run their handlers, a handler still nests in
 * another, an SA_ONSTACK handler still runs on the alternate stack, a
 * handler without SA_RESTART that returns still ends the blocking call it
 * interrupted with EINTR, and the thread's waits and blocking calls still
 * work.
 */
#define _GNU_SOURCE
/* As distributions build programs: longjmp and siglongjmp become
 * __longjmp_chk, which refuses a jump to a stack pointer below the
 * caller's unless the caller runs on its alternate signal stack.  The
 * plain siglongjmp is reached through dlsym. */
#undef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "signal_util.h"
#include "weft_check.h"

#define SELF_ROUNDS 10000
#define SPIN_ROUNDS 1000
#define WAIT_ROUNDS 100
#define ALTSZ (64 << 10)

static sigjmp_buf env;
static char *alt;
static volatile sig_atomic_t jumps, on_alt_jumps, armed;
static volatile unsigned spin_go;
static sem_t ready, done, handled;
static pthread_t target;
static pid_t child;
static int pfd[2];
static void (*plain_siglongjmp)(sigjmp_buf, int);

static int on_alt(const void *p)
{
	return (uintptr_t)p - (uintptr_t)alt < ALTSZ;
}

static void on_usr1(int sig)
{
	(void)sig;
	char here;
	if (!armed)
		return;
	armed = 0;
	jumps++;
	on_alt_jumps += on_alt(&here);
	if (jumps % 2)
		plain_siglongjmp(env, 1);
	siglongjmp(env, 1);
}

static volatile sig_atomic_t hup_runs;

static void on_hup(int sig)
{
	(void)sig;
	hup_runs++;
}

static volatile sig_atomic_t usr2_runs, nested, nested_inside, alrm_runs, alrm_alt;
static volatile sig_atomic_t in_usr2;

static void on_alrm(int sig)
{
	(void)sig;
	char here;
	alrm_runs++;
	alrm_alt += on_alt(&here);
	nested_inside += in_usr2;
}

static void on_usr2(int sig)
{
	(void)sig;
	in_usr2 = 1;
	usr2_runs++;
	/* A handler run inside this one: SIGALRM is not in this one's mask. */
	pthread_kill(pthread_self(), SIGALRM);
	nested++;
	in_usr2 = 0;
	sem_post(&handled);
}

/* Stops the other threads' work at the end. */
static volatile int stop;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long turns;

static void *busy(void *arg)
{
	long me = (long)arg;
	while (!stop) {
		pthread_mutex_lock(&mu);
		while (turns % 2 != me && !stop)
			pthread_cond_wait(&cv, &mu);
		turns++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

static void *run_target(void *arg)
{
	(void)arg;
	stack_t ss = { .ss_sp = alt, .ss_size = ALTSZ, .ss_flags = 0 };
	sigaltstack(&ss, NULL);
	/* The kernel writes the first 8 bytes of a sigset_t (natively too):
	 * the rest is cleared here so that the comparison below sees only
	 * the mask. */
	sigset_t before, after;
	memset(&before, 0, sizeof before);
	memset(&after, 0, sizeof after);
	pthread_sigmask(SIG_BLOCK, NULL, &before);

	/* 1: its own raise. */
	for (volatile int i = 0; i < SELF_ROUNDS; i++) {
		if (sigsetjmp(env, 1) == 0) {
			armed = 1;
			pthread_kill(pthread_self(), SIGUSR1);
			printf("self %d: the handler did not run\n", (int)i);
			exit(1);
		}
	}
	/* 2: another thread's pthread_kill while it spins. */
	for (volatile int i = 0; i < SPIN_ROUNDS; i++) {
		if (sigsetjmp(env, 1) == 0) {
			armed = 1;
			sem_post(&ready);
			/* Yields now and then: one CPU (GOMAXPROCS=1) is shared
			 * with main and the two busy threads. */
			while (!stop)
				if (++spin_go % 4096 == 0)
					sched_yield();
		}
	}
	/* 3: inside waitpid, a blocking call. */
	for (volatile int i = 0; i < WAIT_ROUNDS; i++) {
		if (sigsetjmp(env, 1) == 0) {
			armed = 1;
			sem_post(&ready);
			int st;
			waitpid(child, &st, 0);
			printf("waitpid returned\n");
			exit(1);
		}
	}
	/* 4: inside read on an empty pipe, a wait on a descriptor. */
	for (volatile int i = 0; i < WAIT_ROUNDS; i++) {
		if (sigsetjmp(env, 1) == 0) {
			armed = 1;
			sem_post(&ready);
			char c;
			if (read(pfd[0], &c, 1) >= 0)
				printf("read returned\n");
			exit(1);
		}
	}
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	printf("jumps %d, on the alternate stack %d\n", (int)jumps, (int)on_alt_jumps);
	printf("mask as sigsetjmp saved it: %s, SIGUSR1 blocked: %d\n",
	       memcmp(&before, &after, sizeof before) == 0 ? "yes" : "no",
	       sigismember(&after, SIGUSR1));

	/* Later signals still run their handlers, nested ones too. */
	sem_post(&ready);
	for (int i = 0; i < 100; i++)
		sem_wait(&done);
	/* A handler without SA_RESTART that returns: the waitpid it
	 * interrupted ends with EINTR (main sends until it does). */
	int st = 0;
	errno = 0;
	sem_post(&ready);
	pid_t w = waitpid(child, &st, 0);
	printf("waitpid after a returning handler: %d %s, handler ran: %s\n", (int)w,
	       errno == EINTR ? "EINTR" : "other", hup_runs ? "yes" : "no");
	sem_post(&done);
	/* A blocking call and a wait still work. */
	kill(child, SIGKILL);
	w = waitpid(child, &st, 0);
	printf("waitpid: %s, killed: %d\n", w == child ? "the child" : "other",
	       WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	char c = 'x';
	if (write(pfd[1], &c, 1) != 1)
		printf("write failed\n");
	printf("read: %zd\n", read(pfd[0], &c, 1));
	return NULL;
}

static void handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

int main(void)
{
	weft_check_loaded();
	watchdog_start_deaf("signal_longjmp: stuck");
	alt = malloc(ALTSZ);
	handler(SIGUSR1, on_usr1, SA_ONSTACK);
	handler(SIGUSR2, on_usr2, SA_RESTART);
	handler(SIGALRM, on_alrm, SA_RESTART | SA_ONSTACK);
	handler(SIGHUP, on_hup, 0);
	plain_siglongjmp = (void (*)(sigjmp_buf, int))dlsym(RTLD_DEFAULT, "siglongjmp");
	sem_init(&ready, 0, 0);
	sem_init(&done, 0, 0);
	sem_init(&handled, 0, 0);
	if (pipe(pfd) != 0)
		return 1;
	child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
	pthread_t b[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&b[i], NULL, busy, (void *)i);
	pthread_create(&target, NULL, run_target, NULL);
	for (int i = 0; i < SPIN_ROUNDS + 2 * WAIT_ROUNDS; i++) {
		sem_wait(&ready);
		pthread_kill(target, SIGUSR1);
	}
	sem_wait(&ready);
	for (int i = 0; i < 100; i++) {
		pthread_kill(target, SIGUSR2);
		sem_wait(&handled);
		sem_post(&done);
	}
	sem_wait(&ready);
	struct timespec ts;
	do {
		pthread_kill(target, SIGHUP);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000)
			ts.tv_sec++, ts.tv_nsec -= 1000000000;
	} while (sem_timedwait(&done, &ts) != 0);
	pthread_join(target, NULL);
	printf("SIGUSR2 handlers %d, SIGALRM handlers %d, nested %d, inside SIGUSR2's %d, "
	       "on the alternate stack %d\n",
	       (int)usr2_runs, (int)alrm_runs, (int)nested, (int)nested_inside, (int)alrm_alt);
	stop = 1;
	pthread_mutex_lock(&mu);
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 2; i++)
		pthread_join(b[i], NULL);
	printf("done\n");
	return 0;
}
