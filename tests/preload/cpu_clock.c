/*
 * A thread's CPU-time clock counts the CPU time that thread consumed
 * (clock_gettime(2), pthread_getcpuclockid(3), getrusage(2)
 * RUSAGE_THREAD): a new thread's starts near zero, sleeping does not
 * advance it, the clock id of another thread reads that thread's time, the
 * threads' times together are at most the process's (two spinning, two
 * handing a token to each other), and a thread CPU
 * clock cannot be slept on (clock_nanosleep: EINVAL).  Once the thread is
 * joined its clock id is invalid (EINVAL).  Under weft a task read its
 * worker thread's clock (a new thread showed the time of every task that
 * had run there) and another task's clock id was refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

#define MS 1000000LL

static int64_t clk_ns(clockid_t c)
{
	struct timespec ts;
	if (clock_gettime(c, &ts) != 0)
		return -errno;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t self_cpu(void) { return clk_ns(CLOCK_THREAD_CPUTIME_ID); }

static volatile unsigned long sink;

/* Burns the caller's CPU until its own clock moved by ns. */
static void burn(int64_t ns)
{
	int64_t end = self_cpu() + ns;
	while (self_cpu() < end)
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i * 2654435761u;
}

static void say(const char *what, int ok, int64_t v)
{
	printf("%s: %s\n", what, ok ? "yes" : "no");
	if (!ok)
		fprintf(stderr, "  %s: value %lld\n", what, (long long)v);
}

static sem_t parked, release;
static int64_t a_end;

static void *thread_a(void *arg)
{
	(void)arg;
	int64_t c0 = self_cpu();
	say("a new thread's clock starts near zero", c0 >= 0 && c0 < 30 * MS, c0);
	usleep(100 * 1000);
	int64_t c1 = self_cpu();
	say("sleeping does not advance it", c1 - c0 < 20 * MS, c1 - c0);
	burn(60 * MS);
	a_end = self_cpu();
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	int64_t r = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
	say("getrusage(RUSAGE_THREAD) is its time", r > a_end - 15 * MS && r < a_end + 15 * MS,
	    r - a_end);
	/* pid 0 in a per-thread clock id means the calling thread. */
	int64_t z = clk_ns((clockid_t)((~0u << 3) | 6));
	say("the per-thread clock of id 0 is its own", z >= a_end && z < a_end + 15 * MS, z - a_end);
	sem_post(&parked);
	sem_wait(&release);
	burn(40 * MS);
	sem_wait(&release); /* alive until main has read its clock */
	return NULL;
}

static _Atomic int stop;
static int64_t spun[2];

static void *spinner(void *arg)
{
	int i = (int)(long)arg;
	int64_t c0 = self_cpu();
	while (!stop)
		for (int k = 0; k < 20000; k++)
			sink += (unsigned long)k;
	spun[i] = self_cpu() - c0;
	return NULL;
}

/* Two threads hand a token to each other through one mutex and two
 * condition variables. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv[2] = { PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER };
static int turn;
static int64_t played[2];

static void *player(void *arg)
{
	int me = (int)(long)arg;
	int64_t c0 = self_cpu();
	pthread_mutex_lock(&mu);
	for (int i = 0; i < 20000; i++) {
		while (turn != me)
			pthread_cond_wait(&cv[me], &mu);
		turn = !me;
		pthread_cond_signal(&cv[!me]);
	}
	pthread_mutex_unlock(&mu);
	played[me] = self_cpu() - c0;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	sem_init(&parked, 0, 0);
	sem_init(&release, 0, 0);
	burn(100 * MS);
	pthread_t a;
	pthread_create(&a, NULL, thread_a, NULL);
	sem_wait(&parked);

	clockid_t cid;
	int e = pthread_getcpuclockid(a, &cid);
	printf("pthread_getcpuclockid: %s\n", e ? strerrorname_np(e) : "0");
	int64_t v = clk_ns(cid);
	say("its clock id reads the thread's time", v >= a_end && v < a_end + 20 * MS, v - a_end);
	struct timespec res = { 7, 7 };
	int r = clock_getres(cid, &res);
	printf("clock_getres on it: %d, %ld.%09ld\n", r, (long)res.tv_sec, res.tv_nsec);
	r = clock_getres(CLOCK_THREAD_CPUTIME_ID, &res);
	printf("clock_getres(CLOCK_THREAD_CPUTIME_ID): %d, %ld.%09ld\n", r, (long)res.tv_sec,
	       res.tv_nsec);
	struct timespec ms = { 0, 1000000 };
	clockid_t own;
	pthread_getcpuclockid(pthread_self(), &own);
	e = clock_nanosleep(own, 0, &ms, NULL);
	printf("clock_nanosleep on its own clock id: %s\n", e ? strerrorname_np(e) : "0");
	e = clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ms, NULL);
	printf("clock_nanosleep(CLOCK_THREAD_CPUTIME_ID): %s\n", e ? strerrorname_np(e) : "0");
	/* Released, the thread burns 40 ms more; main sleeps on its clock
	 * until it has 20 ms more. */
	sem_post(&release);
	int64_t until = a_end + 20 * MS;
	struct timespec abs = { until / 1000000000, until % 1000000000 };
	e = clock_nanosleep(cid, TIMER_ABSTIME, &abs, NULL);
	v = clk_ns(cid);
	printf("clock_nanosleep on its clock: %s\n", e ? strerrorname_np(e) : "0");
	say("it returned once the thread had used that time", v >= until, v - until);
	sem_post(&release);
	pthread_join(a, NULL);
	/* Natively join returns when the kernel clears the thread's tid, a
	 * little before it releases the thread: its clock may read for a
	 * moment longer (seen once on a loaded machine). */
	for (int i = 0; (v = clk_ns(cid)) >= 0 && i < 2000; i++)
		usleep(1000);
	printf("its clock id once joined: %s\n", v >= 0 ? "valid" : strerrorname_np((int)-v));

	/* Two threads spin together for 200 ms of wall time. */
	int64_t p0 = clk_ns(CLOCK_PROCESS_CPUTIME_ID);
	pthread_t s[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&s[i], NULL, spinner, (void *)i);
	usleep(200 * 1000);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(s[i], NULL);
	int64_t p = clk_ns(CLOCK_PROCESS_CPUTIME_ID) - p0;
	say("two spinners ran", spun[0] > 0 && spun[1] > 0, spun[0] < spun[1] ? spun[0] : spun[1]);
	say("their times together are at most the process's", spun[0] + spun[1] <= p + 10 * MS,
	    spun[0] + spun[1] - p);

	p0 = clk_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < 2; i++)
		pthread_create(&s[i], NULL, player, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(s[i], NULL);
	p = clk_ns(CLOCK_PROCESS_CPUTIME_ID) - p0;
	say("two threads handing a token both used CPU time", played[0] > 0 && played[1] > 0,
	    played[0] < played[1] ? played[0] : played[1]);
	say("their times together are at most the process's", played[0] + played[1] <= p + 10 * MS,
	    played[0] + played[1] - p);
	return 0;
}
