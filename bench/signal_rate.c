/*
 * signal_rate [MS] [MODE] — for MS milliseconds (default 1000) a thread
 * loops kill(getpid(), SIGUSR1) then waits on a semaphore the handler
 * posts; prints the handlers run per second, and the rounds whose handler
 * had not run after 1 s (lost).  MODE 1 (default): the handler runs where
 * the kernel sends the signal.  MODE 2: the sender and main block SIGUSR1
 * and a third thread, which loops locking and unlocking a mutex and
 * yielding, takes every signal (under weft the signal then nearly always
 * lands in weft's own code).
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>

#include "bench.h"

static sem_t sem;
static _Atomic long handled;
static _Atomic int stop;
static long lost;
static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
	sem_post(&sem);
}

static void *receiver(void *arg)
{
	(void)arg;
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	while (!stop) {
		pthread_mutex_lock(&busy);
		pthread_mutex_unlock(&busy);
		sched_yield();
	}
	return NULL;
}

static void *sender(void *arg)
{
	double end = now_s() + *(long *)arg / 1000.0;
	long n = 0;
	while (now_s() < end) {
		kill(getpid(), SIGUSR1);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec++;
		while (sem_timedwait(&sem, &ts) != 0)
			if (errno == ETIMEDOUT) {
				lost++;
				break;
			}
		n++;
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	long ms = arg_long(argc, argv, 1, 1000);
	int recv = arg_long(argc, argv, 2, 1) == 2;
	sem_init(&sem, 0, 0);
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t r, s;
	if (recv) {
		sigset_t usr1;
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
		pthread_create(&r, NULL, receiver, NULL);
	}
	double t0 = now_s();
	pthread_create(&s, NULL, sender, &ms);
	void *n;
	pthread_join(s, &n);
	double t = now_s() - t0;
	stop = 1;
	if (recv)
		pthread_join(r, NULL);
	printf("rounds:            %ld\n", (long)n);
	printf("lost:              %ld\n", lost);
	printf("handlers per second: %.0f\n", ((long)n - lost) / t);
	return 0;
}
