/*
 * clock_nanosleep, clock_gettime, clock_getres and timer_create report
 * bad clocks, times and notification kinds as the Linux man pages list
 * (clock_nanosleep(2): EINVAL for an unknown clock, a thread CPU clock or
 * a bad time, ENOTSUP for a clock that cannot sleep; clock_gettime(2),
 * timer_create(2): EINVAL, ENOTSUP), whatever the flags; a process CPU
 * clock can be slept on.  Each call is made natively and under weft, from
 * main and from a thread.  Under weft clock_nanosleep gave ENOTSUP for an
 * unknown clock and refused the process CPU clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

#define BAD_CLOCK ((clockid_t)1000)

static const char *name(int e) { return e ? strerrorname_np(e) : "0"; }

static void sleep_on(const char *what, clockid_t c, int flags, long sec, long nsec)
{
	struct timespec ts = { sec, nsec }, rem = { 9, 9 };
	int e = clock_nanosleep(c, flags, &ts, &rem);
	printf("  clock_nanosleep(%s): %s, rem %s\n", what, name(e),
	       rem.tv_sec == 9 && rem.tv_nsec == 9 ? "untouched" : "written");
}

static void get_on(const char *what, clockid_t c)
{
	struct timespec ts, res;
	int r = clock_gettime(c, &ts);
	int e1 = r ? errno : 0;
	r = clock_getres(c, &res);
	int e2 = r ? errno : 0;
	printf("  clock_gettime(%s): %s, clock_getres: %s\n", what, name(e1), name(e2));
}

static void timer_on(const char *what, clockid_t c, int notify)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = notify;
	ev.sigev_signo = SIGUSR1;
	timer_t id;
	int r = timer_create(c, &ev, &id);
	printf("  timer_create(%s, notify %d): %s\n", what, notify, name(r ? errno : 0));
	if (r == 0)
		timer_delete(id);
}

static _Atomic int stop;

static void *spin(void *arg)
{
	(void)arg;
	volatile unsigned long x = 0;
	while (!stop)
		x++;
	(void)x;
	return NULL;
}

static void all(const char *who)
{
	printf("%s:\n", who);
	sleep_on("unknown clock", BAD_CLOCK, 0, 0, 1000);
	sleep_on("unknown clock, bad time", BAD_CLOCK, 0, 0, -1);
	sleep_on("unknown clock, TIMER_ABSTIME", BAD_CLOCK, TIMER_ABSTIME, 0, 1000);
	sleep_on("clock -1", (clockid_t)-1, 0, 0, 1000);
	sleep_on("CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID, 0, 0, 1000);
	sleep_on("CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW, 0, 0, 1000);
	sleep_on("CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE, 0, 0, 1000);
	sleep_on("CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE, 0, 0, 1000);
	sleep_on("CLOCK_MONOTONIC, nsec 1e9", CLOCK_MONOTONIC, 0, 0, 1000000000);
	sleep_on("CLOCK_MONOTONIC, sec -1", CLOCK_MONOTONIC, 0, -1, 0);
	sleep_on("CLOCK_MONOTONIC, unknown flag", CLOCK_MONOTONIC, 0x10, 0, 1000);
	sleep_on("CLOCK_REALTIME, abs in the past", CLOCK_REALTIME, TIMER_ABSTIME, 1, 0);
	/* The process CPU clock moves while a thread spins. */
	pthread_t s;
	stop = 0;
	pthread_create(&s, NULL, spin, NULL);
	sleep_on("CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID, 0, 0, 2000000);
	sleep_on("process CPU clock of pid 0", (clockid_t)-6, 0, 0, 2000000);
	stop = 1;
	pthread_join(s, NULL);
	get_on("unknown clock", BAD_CLOCK);
	get_on("clock -1", (clockid_t)-1);
	get_on("clock -5", (clockid_t)-5);
	get_on("CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW);
	get_on("CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID);
	timer_on("unknown clock", BAD_CLOCK, SIGEV_NONE);
	timer_on("clock -1", (clockid_t)-1, SIGEV_NONE);
	timer_on("CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW, SIGEV_NONE);
	timer_on("CLOCK_MONOTONIC", CLOCK_MONOTONIC, 99);
	timer_on("CLOCK_MONOTONIC", CLOCK_MONOTONIC, SIGEV_SIGNAL);
	timer_on("CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID, SIGEV_NONE);
}

static void *thread(void *arg)
{
	all((const char *)arg);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	all("main");
	pthread_t t;
	pthread_create(&t, NULL, thread, "a thread");
	pthread_join(t, NULL);
	return 0;
}
