/*
 * sigaltstack is per thread: each thread sets its own alternate stack, reads
 * it back, and a handler installed with SA_ONSTACK runs on the alternate
 * stack of the thread it interrupts (a local of the handler lies inside
 * it), where sigaltstack reports SS_ONSTACK; a thread without one runs the
 * handler on its own stack.  Then the classic use: a thread catches its
 * own stack overflow (SIGSEGV) on its alternate stack and siglongjmps out.
 * Under weft the alternate stack was the worker thread's, shared by every
 * task run there.  The overflowing thread has a 256 KiB stack
 * (pthread_attr_setstacksize: a fixed size under weft too).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "weft_check.h"

#define NALT 3
#define ALTSZ (64 << 10)

static __thread char *alt_lo;            /* this thread's alternate stack, or NULL */
static __thread volatile int in_alt, onstack_flag, ran;
static __thread sigjmp_buf env;
static __thread volatile char *own_local; /* a local of the thread's own function */
static __thread volatile int on_own;
static sem_t go[NALT + 1], done;

static int inside(const volatile void *p, const char *lo, size_t n)
{
	return (uintptr_t)p - (uintptr_t)lo < n;
}

static void on_usr1(int sig)
{
	(void)sig;
	char here;
	stack_t cur;
	sigaltstack(NULL, &cur);
	in_alt = alt_lo && inside(&here, alt_lo, ALTSZ);
	onstack_flag = (cur.ss_flags & SS_ONSTACK) != 0;
	/* Not on an alternate stack: near the thread's own frames. */
	on_own = !alt_lo && (uintptr_t)own_local - (uintptr_t)&here < (1u << 20);
	ran = 1;
}

static void *thread(void *arg)
{
	long i = (long)arg;
	char mine;
	own_local = &mine;
	stack_t ss, back;
	if (i < NALT) {
		alt_lo = malloc(ALTSZ);
		ss.ss_sp = alt_lo;
		ss.ss_size = ALTSZ;
		ss.ss_flags = 0;
		sigaltstack(&ss, NULL);
	}
	sigaltstack(NULL, &back);
	int readback = i < NALT ? back.ss_sp == alt_lo && back.ss_size == ALTSZ && back.ss_flags == 0
				: (back.ss_flags & SS_DISABLE) != 0;
	sem_post(&done);
	sem_wait(&go[i]);
	/* The signal (pthread_kill) is pending for this thread: unblock it. */
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	printf("thread %ld: %s, read back: %s, handler ran: %s, on its alternate stack: %s, "
	       "SS_ONSTACK: %s, on its own stack: %s\n",
	       i, i < NALT ? "alternate stack" : "none", readback ? "yes" : "no", ran ? "yes" : "no",
	       in_alt ? "yes" : "no", onstack_flag ? "yes" : "no", on_own ? "yes" : "no");
	fflush(stdout);
	sem_post(&done);
	return NULL;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	char here;
	in_alt = alt_lo && inside(&here, alt_lo, ALTSZ);
	siglongjmp(env, 1);
}

static volatile int deeper = 1;

static int recurse(int n)
{
	volatile char pad[1024];
	pad[0] = (char)n;
	return deeper ? recurse(n + 1) + pad[0] : 0;
}

static void *overflow(void *arg)
{
	(void)arg;
	alt_lo = malloc(ALTSZ);
	stack_t ss = { .ss_sp = alt_lo, .ss_size = ALTSZ, .ss_flags = 0 };
	sigaltstack(&ss, NULL);
	if (sigsetjmp(env, 1) == 0)
		recurse(0);
	printf("overflow caught: yes, on the alternate stack: %s\n", in_alt ? "yes" : "no");
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	sem_init(&done, 0, 0);
	pthread_t t[NALT + 1];
	for (long i = 0; i <= NALT; i++) {
		sem_init(&go[i], 0, 0);
		pthread_create(&t[i], NULL, thread, (void *)i);
	}
	for (int i = 0; i <= NALT; i++)
		sem_wait(&done);
	/* Each in turn: its handler runs as it unblocks the signal. */
	for (int i = 0; i <= NALT; i++) {
		pthread_kill(t[i], SIGUSR1);
		sem_post(&go[i]);
		sem_wait(&done);
	}
	for (int i = 0; i <= NALT; i++)
		pthread_join(t[i], NULL);

	struct sigaction sv = { 0 };
	sv.sa_sigaction = on_segv;
	sv.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigaction(SIGSEGV, &sv, NULL);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 << 10);
	pthread_t o;
	pthread_create(&o, &a, overflow, NULL);
	pthread_join(o, NULL);
	return 0;
}
