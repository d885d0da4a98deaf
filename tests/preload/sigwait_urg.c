/*
 * sigwait_urg — sigwaitinfo, sigtimedwait and sigwait end only when a
 * signal of their set comes, or a handler runs (EINTR; the first two).
 * SIGURG is ignored by default: natively a storm of it, sent to the
 * waiting thread and to the process, ends no wait.  weft sends SIGURG of
 * its own (preemption requests while three threads spin, pokes), and a
 * wait it ends must be made again, whatever kind of SIGURG it was.
 * A thread waits ROUNDS times for SIGRTMIN, by each of the three calls in
 * turn; before each SIGRTMIN main sends 20 SIGURG to the thread and 20 to
 * the process.  Every wait must return SIGRTMIN, none EINTR.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "weft_check.h"

#define ROUNDS 100

static atomic_int waiting = -1; /* the round the waiter waits in */
static atomic_int stop;
static int got, eintr, other;

static void *waiter(void *arg)
{
	(void)arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	for (int i = 0; i < ROUNDS;) {
		atomic_store(&waiting, i);
		int r, sig = 0;
		struct timespec ten = { 10, 0 };
		switch (i % 3) {
		case 0:
			r = sigwaitinfo(&set, NULL);
			break;
		case 1:
			r = sigtimedwait(&set, NULL, &ten);
			break;
		default:
			r = sigwait(&set, &sig) == 0 ? sig : -1;
			break;
		}
		if (r == SIGRTMIN) {
			got++;
			i++;
		} else if (r < 0 && errno == EINTR) {
			eintr++;
		} else {
			other++;
			i++;
		}
	}
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	volatile unsigned long n = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		n++;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	alarm(120);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_t spin[3], w;
	for (int i = 0; i < 3; i++)
		pthread_create(&spin[i], NULL, spinner, NULL);
	pthread_create(&w, NULL, waiter, NULL);
	for (int i = 0; i < ROUNDS; i++) {
		while (atomic_load(&waiting) != i)
			usleep(50);
		for (int k = 0; k < 20; k++) {
			pthread_kill(w, SIGURG);
			kill(getpid(), SIGURG);
		}
		usleep(300);
		pthread_kill(w, SIGRTMIN);
	}
	pthread_join(w, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(spin[i], NULL);
	printf("waits that returned SIGRTMIN: %d of %d\n", got, ROUNDS);
	printf("waits ended with EINTR: %d\n", eintr);
	printf("other results: %d\n", other);
	return 0;
}
