/*
 * signal_storm [MS] [ROUNDS] — process-directed signals to a parked thread.
 * One waiter thread takes SIGUSR1 and SIGUSR2 (every other thread blocks
 * them) and loops in pthread_cond_wait until a flag clears; a ticker
 * signals the condition variable every 10 ms; two sender threads loop
 * kill(getpid(), SIGUSRi), each waiting for the handler's sem_post before
 * sending again.  After MS milliseconds (default 300) main clears the flag
 * and joins everyone; ROUNDS (default 3) such rounds.  Prints the handlers
 * run per second, and the rounds whose last signal no thread took (a
 * sender gave up after 2 s).
 */
#include <pthread.h>
#include <semaphore.h>

#include "bench.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER, sending = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static _Atomic int running;
static _Atomic long handled, stranded;
static sem_t posted[2];

static void on_sig(int sig)
{
	handled++;
	sem_post(&posted[sig == SIGUSR1 ? 0 : 1]);
}

static void *waiter(void *arg)
{
	(void)arg;
	sigset_t two;
	sigemptyset(&two);
	sigaddset(&two, SIGUSR1);
	sigaddset(&two, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &two, NULL);
	pthread_mutex_lock(&mu);
	while (running)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *ticker(void *arg)
{
	(void)arg;
	while (running) {
		usleep(10000);
		pthread_mutex_lock(&mu);
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

static void *sender(void *arg)
{
	int i = (int)(long)arg;
	for (;;) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 2;
		while (sem_timedwait(&posted[i], &ts) != 0)
			if (errno == ETIMEDOUT) {
				stranded++;
				return NULL;
			}
		/* Sent only while the flag is set: the waiter takes each one. */
		pthread_mutex_lock(&sending);
		int go = running;
		if (go)
			kill(getpid(), i ? SIGUSR2 : SIGUSR1);
		pthread_mutex_unlock(&sending);
		if (!go)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	long ms = arg_long(argc, argv, 1, 300);
	long rounds = arg_long(argc, argv, 2, 3);
	struct sigaction sa = { 0 };
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigset_t two;
	sigemptyset(&two);
	sigaddset(&two, SIGUSR1);
	sigaddset(&two, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &two, NULL);
	double busy = 0;
	for (long r = 0; r < rounds; r++) {
		running = 1;
		sem_init(&posted[0], 0, 1);
		sem_init(&posted[1], 0, 1);
		pthread_t w, t, s[2];
		pthread_create(&w, NULL, waiter, NULL);
		pthread_create(&t, NULL, ticker, NULL);
		double t0 = now_s();
		for (long i = 0; i < 2; i++)
			pthread_create(&s[i], NULL, sender, (void *)i);
		usleep(ms * 1000);
		pthread_mutex_lock(&sending);
		running = 0;
		pthread_mutex_unlock(&sending);
		busy += now_s() - t0;
		pthread_mutex_lock(&mu);
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		pthread_join(w, NULL);
		pthread_join(t, NULL);
		pthread_join(s[0], NULL);
		pthread_join(s[1], NULL);
	}
	printf("handlers:            %ld\n", (long)handled);
	printf("stranded:            %ld\n", (long)stranded);
	printf("handlers per second: %.0f\n", handled / busy);
	return 0;
}
