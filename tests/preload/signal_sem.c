/*
 * A SIGALRM every 50 µs whose handler posts a semaphore (sem_post is
 * async-signal-safe), while two threads hand a token over a condvar and a
 * third waits on the semaphore: the handler often interrupts weft half-way
 * through a park.  Once, under weft, it then spun forever on the lock its
 * own thread held (sched/signal/sighandler.c).
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "pingpong.h"
#include "test_util.h"
#include "weft_check.h"

static sem_t sem;
static atomic_long posts, waits;

static void on_alarm(int sig)
{
	(void)sig;
	sem_post(&sem);
	posts++;
}

static void *waiter(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&pp_stop, __ATOMIC_RELAXED))
		if (sem_wait(&sem) == 0)
			waits++;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	sem_init(&sem, 0, 0);
	struct sigaction sa = { 0 };
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	pthread_t t[3];
	pthread_create(&t[0], NULL, pingpong_player, (void *)0L);
	pthread_create(&t[1], NULL, pingpong_player, (void *)1L);
	pthread_create(&t[2], NULL, waiter, NULL);
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	setitimer(ITIMER_REAL, &it, NULL);
	double end = now_s() + 1.0;
	while (now_s() < end)
		usleep(10000); /* EINTR: look at the clock again */
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	pingpong_stop();
	sem_post(&sem);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("token moved: %s, handler ran: %s, waiter woke: %s\n", pp_handoffs ? "yes" : "no",
	       posts ? "yes" : "no", waits ? "yes" : "no");
	return 0;
}
