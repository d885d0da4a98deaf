/*
 * A signal storm over synchronisation, thread creation and fork.  Four
 * worker threads lock, trylock and unlock one mutex, wait on and broadcast
 * one condition variable, and run pthread_once on fresh once objects;
 * one thread creates and joins short-lived threads; one forks children
 * that exit at once.  Meanwhile two senders pthread_kill the workers with
 * SIGUSR1 (its handler posts a semaphore and counts) and kill the process
 * with SIGUSR2 (its handler sets a flag), and an interval timer sends
 * SIGALRM every 200 µs (its handler counts).  Checked at the end: the
 * mutex-protected count is exact, every once routine ran exactly once,
 * every thread and child was joined or reaped, the SIGUSR1 handler's posts
 * equal its runs, and each handler ran (the workers go on until each has
 * run a few times).  A watchdog (every signal blocked)
 * ends a run still going after 60 s: a hang.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "signal_storm.h"
#include "test_util.h"
#include "weft_check.h"

#define WORKERS 4
#define ITERS 6000
#define ONCES 512
#define FORKS 60
#define CREATES 400

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long count;      /* [mu] */
static unsigned gen;    /* [mu] broadcasts */
static pthread_once_t onces[ONCES];
static atomic_int once_runs[ONCES];
static atomic_long created_runs;
static atomic_int done;

static __thread int once_idx; /* the routine runs on its caller */
static void once_fn(void)
{
	atomic_fetch_add(&once_runs[once_idx], 1);
}

/* Every handler has run a few times: the storm has reached the workers. */
static int enough(void)
{
	return atomic_load(&usr1_runs) >= 20 && atomic_load(&alrm_runs) >= 5 && usr2_flag;
}

static atomic_long iters;
static void *worker(void *arg)
{
	long id = (long)arg;
	int i;
	for (i = 0; i < ITERS || !enough(); i++) {
		if (i % 3 == 0) {
			while (pthread_mutex_trylock(&mu) == EBUSY)
				sched_yield();
		} else {
			pthread_mutex_lock(&mu);
		}
		count++;
		if (i % 16 == 0) {
			gen++;
			pthread_cond_broadcast(&cv);
		} else if (i % 16 == 8 && id % 2 == 0) {
			/* Wait for the next broadcast, or give up once the
			 * others are near their end (they stop broadcasting). */
			unsigned g = gen;
			struct timespec ts;
			deadline(CLOCK_REALTIME, &ts, 20);
			while (gen == g && !atomic_load(&done))
				if (pthread_cond_timedwait(&cv, &mu, &ts) == ETIMEDOUT)
					break;
		}
		pthread_mutex_unlock(&mu);
		if (i % 24 == 0) {
			int k = (int)((i / 24 + id * 7) % ONCES);
			once_idx = k;
			pthread_once(&onces[k], once_fn);
		}
	}
	atomic_fetch_add(&iters, i);
	return NULL;
}

static void *child_fn(void *arg)
{
	(void)arg;
	atomic_fetch_add(&created_runs, 1);
	return NULL;
}

static void *creator(void *arg)
{
	(void)arg;
	for (int i = 0; i < CREATES; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, child_fn, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

static atomic_int reaped;
static void *forker(void *arg)
{
	(void)arg;
	for (int i = 0; i < FORKS; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(7);
		if (p < 0)
			continue;
		int st;
		while (waitpid(p, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 7)
			atomic_fetch_add(&reaped, 1);
	}
	return NULL;
}

static pthread_t workers[WORKERS];
static void *sender(void *arg)
{
	long id = (long)arg;
	unsigned n = 0;
	while (!atomic_load(&done)) {
		if (id == 0)
			pthread_kill(workers[n++ % WORKERS], SIGUSR1);
		else
			kill(getpid(), SIGUSR2);
		usleep(50);
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	for (int i = 0; i < ONCES; i++)
		onces[i] = (pthread_once_t)PTHREAD_ONCE_INIT;
	storm_begin(1, 200);

	for (long i = 0; i < WORKERS; i++)
		pthread_create(&workers[i], NULL, worker, (void *)i);
	pthread_t snd[2], cr, fk;
	for (long i = 0; i < 2; i++)
		pthread_create(&snd[i], NULL, sender, (void *)i);
	pthread_create(&cr, NULL, creator, NULL);
	pthread_create(&fk, NULL, forker, NULL);
	pthread_join(cr, NULL);
	pthread_join(fk, NULL);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(workers[i], NULL);
	atomic_store(&done, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(snd[i], NULL);
	/* Signals sent before the senders stopped may still be on their way:
	 * storm_end blocks them, then the handlers' work is counted. */
	long posts = storm_end();
	int onces_ok = 1, used = 0;
	for (int i = 0; i < ONCES; i++) {
		int r = atomic_load(&once_runs[i]);
		if (r > 1)
			onces_ok = 0;
		used += r;
	}
	printf("count %s\n", count == atomic_load(&iters) ? "ok" : "WRONG");
	printf("once %s\n", onces_ok && used > 0 ? "ok" : "WRONG");
	printf("threads %s\n", atomic_load(&created_runs) == CREATES ? "ok" : "WRONG");
	printf("forks %s\n", atomic_load(&reaped) == FORKS ? "ok" : "WRONG");
	printf("usr1 posts %s\n", posts == atomic_load(&usr1_runs) && posts > 0 ? "ok" : "WRONG");
	printf("usr2 %s\n", usr2_flag ? "ok" : "WRONG");
	printf("alrm %s\n", atomic_load(&alrm_runs) > 0 ? "ok" : "WRONG");
	if (count != atomic_load(&iters) || posts != atomic_load(&usr1_runs))
		fprintf(stderr, "count %ld posts %ld usr1 %ld\n", count, posts,
			(long)atomic_load(&usr1_runs));
	return 0;
}
