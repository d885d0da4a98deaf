/*
 * signal_rate [MS] [MODE] — for MS milliseconds (default 1000) a thread
 * loops kill(getpid(), SIGUSR1) then waits on a semaphore the handler
 * posts; prints the handlers run per second, and the rounds whose handler
 * had not run after 1 s (lost).  MODE 1 (default): the handler runs where
 * the kernel sends the signal.  MODE 2: the sender and main block SIGUSR1
 * and a third thread, which loops locking and unlocking a mutex and
 * yielding, takes every signal (under weft the signal then nearly always
 * lands in weft's own code).  MODES 3 to 5: the sender pthread_kills one
 * target thread, which runs all the time: 3, it spins in its own code; 4,
 * it loops on pthread_getschedparam and pthread_setschedparam; 5, it loops
 * on pthread_create and pthread_join of a thread that returns at once.
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

static pthread_t target;
static int kill_mode;
static _Atomic long target_loops;

static void *nothing(void *arg)
{
	return arg;
}

/* MODES 3 to 5: the target runs until the sender is done. */
static void *busy_target(void *arg)
{
	(void)arg;
	while (!stop) {
		if (kill_mode == 4) {
			struct sched_param sp;
			int pol;
			pthread_getschedparam(pthread_self(), &pol, &sp);
			pthread_setschedparam(pthread_self(), pol, &sp);
		} else if (kill_mode == 5) {
			pthread_t c;
			if (pthread_create(&c, NULL, nothing, NULL) == 0)
				pthread_join(c, NULL);
		}
		target_loops++;
	}
	return NULL;
}

static void *sender(void *arg)
{
	double end = now_s() + *(long *)arg / 1000.0;
	long n = 0;
	while (now_s() < end) {
		if (kill_mode)
			pthread_kill(target, SIGUSR1);
		else
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
	long mode = arg_long(argc, argv, 2, 1);
	int recv = mode == 2;
	kill_mode = mode >= 3 && mode <= 5 ? (int)mode : 0;
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
	if (kill_mode)
		pthread_create(&target, NULL, busy_target, NULL);
	double t0 = now_s();
	pthread_create(&s, NULL, sender, &ms);
	void *n;
	pthread_join(s, &n);
	double t = now_s() - t0;
	stop = 1;
	if (recv)
		pthread_join(r, NULL);
	if (kill_mode)
		pthread_join(target, NULL);
	printf("rounds:            %ld\n", (long)n);
	printf("lost:              %ld\n", lost);
	printf("handlers per second: %.0f\n", ((long)n - lost) / t);
	return 0;
}
