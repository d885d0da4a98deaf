/* bench.h — helpers shared by the benchmark programs (plain C, no weft). */
#ifndef BENCH_H
#define BENCH_H
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* A "Key:  N kB" line of /proc/self/status (e.g. "Threads", "VmRSS"), or -1.
 * Only open/read/close and no stdio, so a signal handler may call it. */
static inline long proc_status(const char *key)
{
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[8192];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof buf - 1 && (r = read(fd, buf + len, sizeof buf - 1 - len)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)r;
	}
	close(fd);
	buf[len] = 0;
	size_t n = strlen(key);
	for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, key, n) && l[n] == ':') {
			long v = 0;
			for (l += n + 1; *l == ' ' || *l == '\t'; l++)
				;
			for (; *l >= '0' && *l <= '9'; l++)
				v = v * 10 + (*l - '0');
			return v;
		}
	return -1;
}

/* A "Key: N kB" line of /proc/meminfo (system-wide), or -1. */
static inline long meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline long arg_long(int argc, char **argv, int i, long dflt)
{
	if (argc <= i)
		return dflt;
	char *end;
	long v = strtol(argv[i], &end, 10);
	if (*end || v <= 0) {
		fprintf(stderr, "%s: bad number %s\n", argv[0], argv[i]);
		exit(2);
	}
	return v;
}

/*
 * Stall watchdog.  Some experiments block threads in ways a user-level
 * scheduler may not see (a CPU loop, a raw system call, flock); if they
 * take every OS thread that runs program code, main never runs again and
 * the program would hang instead of reporting.  The program bumps wd_beat
 * whenever it makes progress (main waiting in a loop, a thread starting); SIGALRM every 250 ms checks it, and after limit_ms
 * without a beat records the OS thread count and main's stage, calls the
 * program's rescue (async-signal-safe only: set flags, write to pipes,
 * unlock) so the blocked threads finish, and sets wd_fired.  main then
 * reports "stalled" for that stage instead of a number it did not see.
 * SA_RESTART, so natively the timer only wakes sleepers (they loop).
 */
static atomic_long wd_beat;
static volatile sig_atomic_t wd_fired;  /* stage at which main stalled, 0 = never */
static volatile sig_atomic_t wd_stage;  /* main's current stage, set by main */
static long wd_threads;                 /* OS threads when the watchdog fired */
static double wd_at;                    /* now_s() when it fired */
static void (*wd_rescue)(void);
static long wd_limit_ticks, wd_idle, wd_last = -1;

static inline void wd_handler(int sig)
{
	(void)sig;
	int e = errno;
	long b = atomic_load(&wd_beat);
	if (wd_fired || b != wd_last) {
		wd_last = b;
		wd_idle = 0;
	} else if (++wd_idle >= wd_limit_ticks) {
		wd_threads = proc_status("Threads");
		wd_at = now_s();
		wd_fired = wd_stage ? wd_stage : 1;
		if (wd_rescue)
			wd_rescue();
	}
	errno = e;
}

static inline void watchdog_start(long limit_ms, void (*rescue)(void))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = wd_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	wd_rescue = rescue;
	wd_limit_ticks = (limit_ms + 249) / 250;
	if (sigaction(SIGALRM, &sa, NULL))
		perror("sigaction");
	struct itimerval it = {{0, 250000}, {0, 250000}};
	if (setitimer(ITIMER_REAL, &it, NULL))
		perror("setitimer");
}

static inline void watchdog_stop(void)
{
	struct itimerval it = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Raises RLIMIT_NOFILE to its hard limit; returns the new soft limit. */
static inline long raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	return (long)rl.rlim_cur;
}
/* Creates up to n threads running fn with attributes a (NULL: default);
 * the first failure is printed and ends the loop.  Returns how many
 * started. */
static inline long create_threads(pthread_t *th, long n, const pthread_attr_t *a,
				  void *(*fn)(void *))
{
	long ok = 0;
	for (long i = 0; i < n; i++) {
		int e = pthread_create(&th[i], a, fn, NULL);
		if (e) {
			printf("thread %ld failed: %s\n", i + 1, strerror(e));
			break;
		}
		ok++;
	}
	return ok;
}

/* With mu held: waits until *count reaches want, on cv (signalled now and
 * then by the threads) and at least once a millisecond.  Returns with mu
 * held. */
static inline void wait_count(pthread_mutex_t *mu, pthread_cond_t *cv, const long *count,
			      long want)
{
	while (*count < want) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 1000000;
		if (ts.tv_nsec >= 1000000000)
			ts.tv_sec++, ts.tv_nsec -= 1000000000;
		pthread_cond_timedwait(cv, mu, &ts);
	}
}

#endif
