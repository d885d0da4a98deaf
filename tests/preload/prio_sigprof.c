/* A SCHED_FIFO thread that spins on the only CPU (the program pins itself)
 * profiles itself: its SIGPROF handler, ITIMER_PROF every 5 ms of the
 * process's CPU time.  The kernel gives the signal to the thread whose
 * running expired the timer, the spinner: main, blocked in pthread_join
 * below it, never runs until it ends.  (Under weft another of its OS
 * threads may be the one the kernel finds running when the timer expires;
 * such a tick goes to main, so only the spinner's are counted.)  The spin
 * gives up after 10 s of
 * wall time (it should need some 25 ms) and says so.
 * Needs root (CI runs as root). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "prio_util.h"
#include "test_util.h"
#include "weft_check.h"

static _Atomic int on_spinner;
static pthread_t spinner;

static void on_prof(int sig)
{
	(void)sig;
	if (pthread_equal(pthread_self(), spinner))
		atomic_fetch_add(&on_spinner, 1);
}

static void *spin(void *arg)
{
	(void)arg;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
	setitimer(ITIMER_PROF, &it, NULL);
	double end = now_s() + 10;
	while (atomic_load(&on_spinner) < 5 && now_s() < end)
		;
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_PROF, &it, NULL);
	return (void *)(long)(atomic_load(&on_spinner) >= 5);
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	cpu_set_t all;
	printf("pin: %s\n", E(pin_first_cpu(&all) ? errno : 0));

	pthread_attr_t a;
	struct sched_param sp = { 10 };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	int r = pthread_create(&spinner, &a, spin, NULL);
	pthread_attr_destroy(&a);
	printf("create FIFO 10: %s\n", E(r));
	if (r)
		return 1;
	void *got;
	pthread_join(spinner, &got);
	printf("spinner: %s\n", got ? "5 ticks of its own" : "not 5 ticks in 10 s");
	sched_setaffinity(0, sizeof all, &all);
	return 0;
}
