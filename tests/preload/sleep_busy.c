/* A thread whose short waits end gets the CPU soon, beside busy threads:
 * on one CPU (the program pins itself, so weft runs one proc), two threads
 * spin while a third makes 200 waits of 1 ms, first sleeps (usleep: a
 * timer readies it) and then sigtimedwait timeouts (a blocking call, which
 * may lose its worker's proc while it waits).  The kernel runs a thread
 * whose wait ended within about a millisecond, so each spinner uses about
 * 0.1 s of CPU time while the waits last (0.2 s when the waiter gets the
 * CPU 1 ms late); a spinner that has used 0.6 s says the waiter was kept
 * out, waiting for the spinners' time slices to end (10-15 ms a wait:
 * about 1.3 s each).  Prints, per phase, whether the waiter finished
 * first; the spinners' CPU time per wait goes to stderr. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

#define WAITS 200
#define BUDGET_NS 600000000ll /* a spinner's CPU time before it gives up */

static atomic_int done, late;
static _Atomic long long spent;

static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void *spin(void *arg)
{
	(void)arg;
	long long start = cpu_ns();
	unsigned n = 0;
	while (!atomic_load(&done)) {
		if (++n % 4096 == 0 && cpu_ns() - start > BUDGET_NS) {
			atomic_store(&late, 1);
			break;
		}
	}
	atomic_fetch_add(&spent, cpu_ns() - start);
	return NULL;
}

static void *waiter(void *arg)
{
	int phase = *(int *)arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2); /* blocked, never sent */
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < WAITS && !atomic_load(&late); i++) {
		if (phase == 0)
			usleep(1000);
		else
			sigtimedwait(&set, NULL, &ms);
	}
	atomic_store(&done, 1);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof one, &one) != 0) {
		perror("sched_setaffinity");
		return 1;
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* every thread inherits it */
	const char *what[] = { "usleep", "sigtimedwait" };
	for (int phase = 0; phase < 2; phase++) {
		pthread_t s[2], w;
		atomic_store(&done, 0);
		atomic_store(&late, 0);
		for (int i = 0; i < 2; i++)
			pthread_create(&s[i], NULL, spin, NULL);
		pthread_create(&w, NULL, waiter, &phase);
		pthread_join(w, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(s[i], NULL);
		fprintf(stderr, "spinners' CPU per wait: %.2f ms\n", atomic_load(&spent) / 1e6 / WAITS);
		atomic_store(&spent, 0);
		printf("%d waits of 1 ms (%s) beside 2 busy threads: %s\n", WAITS, what[phase],
		       atomic_load(&late) ? "kept out" : "done first");
	}
	return 0;
}
