/*
 * A process-directed signal whose only willing thread is parked runs on
 * that thread before the thread goes on in its own code.  One waiter
 * thread takes SIGUSR1 and SIGUSR2 (every other thread blocks them) and
 * waits in a loop until a flag clears: in pthread_cond_wait, a
 * pthread_mutex_lock (a ticker holds the mutex 10 ms at a time), a
 * sem_wait, a pthread_join of a thread that lives 10 ms, or a sleep; a
 * ticker thread wakes it every 10 ms.  Two sender threads loop on
 * kill(getpid(), SIGUSRi), each waiting for the handler's sem_post before
 * sending again.  After a while main clears the flag and joins everyone:
 * the waiter leaves its wait and exits, and each sender's last signal
 * must have run by then (natively the kernel chose the waiter within kill
 * and runs the handler before the waiter returns to its own code).  Under weft the waiter
 * could exit with the signal pending for the process and nobody to take
 * it: the sender waited for ever.  A sender sends only while the flag is
 * set, under a lock main takes to clear it.  A watchdog thread (both
 * blocked) ends a run still going after 60 s.
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "test_util.h"
#include "signal_util.h"
#include "weft_check.h"

enum { COND, MUTEX, SEM, JOIN, SLEEP, NKINDS };
static const char *names[] = { "cond", "mutex", "sem", "join", "sleep" };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t sending = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t tick, posted[2];
static atomic_int running, kind;
static atomic_long handled;

static void on_sig(int sig)
{
	atomic_fetch_add(&handled, 1);
	sem_post(&posted[sig == SIGUSR1 ? 0 : 1]);
}

static void *nap(void *arg)
{
	(void)arg;
	usleep(10000);
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	while (atomic_load(&running)) {
		switch (kind) {
		case COND:
			pthread_mutex_lock(&mu);
			if (atomic_load(&running))
				pthread_cond_wait(&cv, &mu);
			pthread_mutex_unlock(&mu);
			break;
		case MUTEX:
			pthread_mutex_lock(&held);
			pthread_mutex_unlock(&held);
			break;
		case SEM:
			sem_wait(&tick);
			break;
		case JOIN: {
			pthread_t c;
			pthread_create(&c, NULL, nap, NULL);
			pthread_join(c, NULL);
			break;
		}
		case SLEEP:
			usleep(10000);
			break;
		}
	}
	/* One more wait before the exit: natively a signal sent just before
	 * the flag cleared may still be on its way to this thread (the
	 * kernel's interrupt to a running thread), and it runs as this call
	 * returns; then none is left pending in any run. */
	usleep(1000);
	return NULL;
}

static void *ticker(void *arg)
{
	(void)arg;
	while (atomic_load(&running)) {
		if (kind == MUTEX) {
			pthread_mutex_lock(&held);
			usleep(10000);
			pthread_mutex_unlock(&held);
			sched_yield();
			continue;
		}
		usleep(10000);
		pthread_mutex_lock(&mu);
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		sem_post(&tick);
	}
	return NULL;
}

static void *sender(void *arg)
{
	int i = (int)(long)arg;
	while (atomic_load(&running)) {
		sem_wait(&posted[i]);
		/* Sent only while the flag is set (main clears it holding
		 * sending): the waiter was there to take every one. */
		pthread_mutex_lock(&sending);
		int go = atomic_load(&running);
		if (go)
			kill(getpid(), i ? SIGUSR2 : SIGUSR1);
		pthread_mutex_unlock(&sending);
		if (!go)
			break;
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa = { 0 };
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigset_t two;
	sigemptyset(&two);
	sigaddset(&two, SIGUSR1);
	sigaddset(&two, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &two, NULL);
	watchdog_start("still waiting");
	static const int kinds[] = { COND, MUTEX, SEM, JOIN, SLEEP };
	for (unsigned ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
		int k = kinds[ki];
		int ok = 0, rounds = 3;
		for (int r = 0; r < rounds; r++) {
			atomic_store(&kind, k);
			atomic_store(&running, 1);
			atomic_store(&handled, 0);
			sem_init(&tick, 0, 0);
			sem_init(&posted[0], 0, 1);
			sem_init(&posted[1], 0, 1);
			pthread_t w, t, s1, s2;
			pthread_create(&w, NULL, waiter, NULL);
			pthread_create(&t, NULL, ticker, NULL);
			pthread_create(&s1, NULL, sender, (void *)0);
			pthread_create(&s2, NULL, sender, (void *)1);
			usleep(100000);
			while (atomic_load(&handled) < 2) /* the storm has begun */
				usleep(1000);
			pthread_mutex_lock(&sending);
			atomic_store(&running, 0);
			pthread_mutex_unlock(&sending);
			pthread_mutex_lock(&mu);
			pthread_cond_broadcast(&cv);
			pthread_mutex_unlock(&mu);
			sem_post(&tick);
			pthread_join(w, NULL);
			pthread_join(t, NULL);
			pthread_join(s1, NULL);
			pthread_join(s2, NULL);
			sigset_t p;
			sigpending(&p);
			int good = !sigismember(&p, SIGUSR1) && !sigismember(&p, SIGUSR2);
			if (!good)
				fprintf(stderr, "%s round %d: pending %d %d\n", names[k], r,
					sigismember(&p, SIGUSR1), sigismember(&p, SIGUSR2));
			ok += good;
			sem_destroy(&tick);
		}
		printf("%s: %d of %d rounds: every signal ran, none pending\n", names[k], ok, rounds);
	}
	return 0;
}
