/*
 * A signal storm over threads that come and go, and over workers that
 * come and go.  The program runs itself again with WEFT_THREAD_IDLE_MS=2,
 * so that under weft a worker left idle beyond GOMAXPROCS gives its OS
 * thread back within milliseconds.  A spawner creates short-lived threads
 * that register themselves, lock, signal a condition variable and exit
 * (half by pthread_exit); a sender pthread_kills registered threads with
 * SIGUSR1 (its handler posts a semaphore and counts; a thread unregisters,
 * under the registry's lock, before it exits); two blockers sleep in raw
 * nanosleep system calls and wait for children that sleep 1 ms (under weft
 * their procs go to other workers, which idle and exit afterwards); an
 * interval timer sends SIGALRM every 300 µs.  Checked: every thread ran
 * and was joined, every child was reaped, the SIGUSR1 handler's posts
 * equal its runs, and each handler ran.  A watchdog (every signal
 * blocked) ends a run still going after 60 s: a hang.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "signal_storm.h"
#include "test_util.h"
#include "weft_check.h"

#define THREADS 1500
#define SLOTS 8
#define BLOCKS 40

static pthread_mutex_t reg = PTHREAD_MUTEX_INITIALIZER;
static pthread_t slot[SLOTS];   /* [reg] */
static int used[SLOTS];         /* [reg] */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long count; /* [mu] */
static atomic_long ran, sent;
static atomic_int reaped, done;

static void *short_lived(void *arg)
{
	long n = (long)arg;
	int k = -1;
	pthread_mutex_lock(&reg);
	for (int i = 0; i < SLOTS; i++)
		if (!used[i]) {
			used[i] = 1;
			slot[i] = pthread_self();
			k = i;
			break;
		}
	pthread_mutex_unlock(&reg);
	for (int i = 0; i < 20; i++) {
		pthread_mutex_lock(&mu);
		count++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		if (i % 8 == 0)
			sched_yield();
	}
	atomic_fetch_add(&ran, 1);
	if (k >= 0) {
		pthread_mutex_lock(&reg);
		used[k] = 0;
		pthread_mutex_unlock(&reg);
	}
	if (n % 2)
		pthread_exit(NULL);
	return NULL;
}

static void *spawner(void *arg)
{
	(void)arg;
	pthread_t t[4];
	for (long i = 0; i < THREADS; i += 4) {
		for (int j = 0; j < 4; j++)
			pthread_create(&t[j], NULL, short_lived, (void *)(i + j));
		for (int j = 0; j < 4; j++)
			pthread_join(t[j], NULL);
	}
	return NULL;
}

static void *sender(void *arg)
{
	(void)arg;
	unsigned n = 0;
	while (!atomic_load(&done)) {
		pthread_mutex_lock(&reg);
		int k = (int)(n++ % SLOTS);
		if (used[k]) {
			pthread_kill(slot[k], SIGUSR1);
			atomic_fetch_add(&sent, 1);
		}
		pthread_mutex_unlock(&reg);
		usleep(30);
	}
	return NULL;
}

static void *blocker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < BLOCKS; i++) {
		if (id == 0) {
			struct timespec ts = { 0, 1000000 }, rem;
			while (syscall(SYS_nanosleep, &ts, &rem) != 0 && errno == EINTR)
				ts = rem;
			atomic_fetch_add(&reaped, 1); /* counted with the children */
			continue;
		}
		pid_t p = fork();
		if (p == 0) {
			struct timespec ts = { 0, 1000000 };
			syscall(SYS_nanosleep, &ts, NULL);
			_exit(5);
		}
		int st = 0;
		while (waitpid(p, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 5)
			atomic_fetch_add(&reaped, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argc;
	if (again_idle_ms("STORM_AGAIN", "2", argv))
		return 1;
	weft_check_loaded();
	storm_begin(0, 300);

	pthread_t sp, snd, bl[2];
	pthread_create(&snd, NULL, sender, NULL);
	for (long i = 0; i < 2; i++)
		pthread_create(&bl[i], NULL, blocker, (void *)i);
	pthread_create(&sp, NULL, spawner, NULL);
	pthread_join(sp, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(bl[i], NULL);
	/* The storm reached the threads: a few signals were sent. */
	while (atomic_load(&sent) < 5 || atomic_load(&alrm_runs) < 5) {
		pthread_t t;
		pthread_create(&t, NULL, short_lived, (void *)0L);
		pthread_join(t, NULL);
	}
	atomic_store(&done, 1);
	pthread_join(snd, NULL);
	long posts = storm_end();
	long r = atomic_load(&ran);
	printf("threads %s\n", r >= THREADS && count == r * 20 ? "ok" : "WRONG");
	printf("blocks %s\n", atomic_load(&reaped) == 2 * BLOCKS ? "ok" : "WRONG");
	printf("usr1 posts %s\n", posts == atomic_load(&usr1_runs) ? "ok" : "WRONG");
	printf("alrm %s\n", atomic_load(&alrm_runs) > 0 ? "ok" : "WRONG");
	if (posts != atomic_load(&usr1_runs) || count != r * 20)
		fprintf(stderr, "posts %ld usr1 %ld count %ld ran %ld\n", posts,
			(long)atomic_load(&usr1_runs), count, r);
	return 0;
}
