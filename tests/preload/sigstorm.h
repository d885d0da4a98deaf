/*
 * sigstorm.h — a storm of signals on threads that wait (the sigstorm_*
 * tests).
 *
 * storm(name, body, n) runs body(i) on n threads ("victims") while a storm
 * thread sends them SIGUSR1 with pthread_kill, one after another, about
 * every 20 µs, until each has had at least MIN_SENT and every body has
 * returned (the victims live until it stops).  The handler sets the thread's flag, counts itself and posts
 * a semaphore (sem_post is async-signal-safe).  Each storm is run twice
 * (storm_modes): with SA_RESTART and without (then every wait that a
 * handler can interrupt must cope with EINTR, as natively).  storm_sig
 * chooses the signal (SIGURG: the one weft also uses for itself).  The bodies run bounded
 * loops and return a number that only depends on the work done; storm()
 * prints the sum with the checks that hold natively:
 *   "handler ran: yes" (a victim spins, yielding, after its body until it
 *   has been sent MIN_SENT signals; one of them lands), and
 *   "posts counted: yes" (the semaphore holds exactly one post per handler
 *   run: no post lost, none made twice).
 * SIGUSR2 gets a handler that only counts (nothing printed): make soak
 * sends it to sigstorm_* programs from outside, at random.
 */
#ifndef WEFT_SIGSTORM_H
#define WEFT_SIGSTORM_H
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "weft_check.h"

#define MIN_SENT 50
#define MAXV 8

static sem_t storm_sem;
static atomic_long storm_handled, storm_outside;
static __thread volatile sig_atomic_t storm_flag;
static int storm_restart; /* the current storm's SA_RESTART */
/* Storms storm() runs: bit 0 with SA_RESTART, bit 1 without (default both). */
static int storm_modes = 3;
static int storm_sig = SIGUSR1; /* the signal the storm sends */

static void storm_on_usr1(int sig)
{
	(void)sig;
	int e = errno;
	storm_flag = 1;
	sem_post(&storm_sem);
	atomic_fetch_add(&storm_handled, 1);
	errno = e;
}

static void storm_on_usr2(int sig)
{
	(void)sig;
	atomic_fetch_add(&storm_outside, 1);
}

/* Once, first thing in main: SIGUSR2's counting handler (SA_RESTART). */
static inline void storm_init(void)
{
	weft_check_loaded();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = storm_on_usr2;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	sem_init(&storm_sem, 0, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

struct storm_victim {
	pthread_t th;
	int idx;
	long (*body)(int);
	long result;
	atomic_long sent;
	atomic_int done;
};

static struct storm_victim storm_v[MAXV];
static int storm_n;
static atomic_int storm_finished, storm_over;

static void *storm_victim_main(void *arg)
{
	struct storm_victim *v = arg;
	v->result = v->body(v->idx);
	atomic_store(&v->done, 1);
	/* Every victim takes a storm, however quick its body was. */
	while (atomic_load(&v->sent) < MIN_SENT)
		sched_yield();
	atomic_fetch_add(&storm_finished, 1);
	/* Alive until the sender has stopped: pthread_kill of a thread that
	 * was joined is undefined (natively it crashed, 1 run in 100). */
	while (!atomic_load(&storm_over))
		sched_yield();
	return NULL;
}

static void *storm_sender(void *arg)
{
	(void)arg;
	struct timespec gap = { 0, 20000 };
	while (atomic_load(&storm_finished) < storm_n) {
		for (int i = 0; i < storm_n; i++) {
			pthread_kill(storm_v[i].th, storm_sig);
			atomic_fetch_add(&storm_v[i].sent, 1);
		}
		nanosleep(&gap, NULL);
	}
	atomic_store(&storm_over, 1);
	return NULL;
}

/* A deadline ms milliseconds from now on CLOCK_REALTIME (far: never met). */
static inline struct timespec storm_deadline(long ms)
{
	struct timespec ts;
	deadline(CLOCK_REALTIME, &ts, ms);
	return ts;
}

/* Runs body on n victims under a storm, with and without SA_RESTART, and
 * prints one line each: name, the sum of the bodies' results, the checks.
 * reset(), if any, runs before each storm. */
static inline void storm(const char *name, long (*body)(int), int n, void (*reset)(void))
{
	for (int restart = 1; restart >= 0; restart--) {
		if (!(storm_modes & (restart ? 1 : 2)))
			continue;
		if (reset)
			reset();
		storm_restart = restart;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = storm_on_usr1;
		sa.sa_flags = restart ? SA_RESTART : 0;
		sigaction(storm_sig, &sa, NULL);
		atomic_store(&storm_handled, 0);
		atomic_store(&storm_finished, 0);
		atomic_store(&storm_over, 0);
		while (sem_trywait(&storm_sem) == 0)
			;
		storm_n = n;
		for (int i = 0; i < n; i++) {
			storm_v[i].idx = i;
			storm_v[i].body = body;
			storm_v[i].result = 0;
			atomic_store(&storm_v[i].sent, 0);
			atomic_store(&storm_v[i].done, 0);
			pthread_create(&storm_v[i].th, NULL, storm_victim_main, &storm_v[i]);
		}
		pthread_t s;
		pthread_create(&s, NULL, storm_sender, NULL);
		long sum = 0;
		for (int i = 0; i < n; i++) {
			pthread_join(storm_v[i].th, NULL);
			sum += storm_v[i].result;
		}
		pthread_join(s, NULL);
		long handled = atomic_load(&storm_handled), posts = 0;
		while (sem_trywait(&storm_sem) == 0)
			posts++;
		printf("%s (%s): %ld; handler ran: %s; posts counted: %s\n", name,
		       restart ? "SA_RESTART" : "no SA_RESTART", sum, handled > 0 ? "yes" : "no",
		       posts == handled ? "yes" : "no");
	}
}
#endif
