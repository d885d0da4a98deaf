/*
 * OS threads that carried waits in the kernel are given back once idle.
 * 1,000 threads wait at once on a PTHREAD_PROCESS_SHARED condition
 * variable (a wait in the kernel: under weft each holds an OS thread while
 * it sleeps), are woken and joined.  Then the process's OS thread count
 * (/proc/self/status) must fall back to a bound, the CPUs weft may use plus
 * four (its workers, sysmon and a spare), within 60 s of idleness (a
 * bounded loop that looks every 50 ms: the outcome, not a duration, is
 * checked).  Natively the joined threads are gone at once.  A fork still
 * works afterwards.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "weft_check.h"
#include "test_util.h"
#include "pshared_util.h"

#define N 1000

static struct pshared_waiters *s;

static void *waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&s->mu);
	s->waiting++;
	while (!s->go)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	alarm(120);
	s = shared_page(sizeof *s);
	pshared_mutex_cond(&s->mu, PTHREAD_MUTEX_DEFAULT, &s->cv);

	int n = test_threads(N);
	static pthread_t th[N];
	int made = wake_waiters(th, n, waiter, s);
	printf("%s waiters woken and joined\n", made == n ? "all" : "not all");

	long bound = procs() + 4, now = os_threads();
	for (int i = 0; i < 1200 && now > bound; i++) {
		usleep(50000);
		now = os_threads();
	}
	printf("OS threads fell back to the bound: %s\n", now <= bound ? "yes" : "no");
	if (now > bound)
		fprintf(stderr, "%ld OS threads, bound %ld\n", now, bound);

	pid_t c = fork();
	if (c == 0)
		_exit(3);
	printf("fork afterwards: child exit %d\n", reap(c));
	return 0;
}
