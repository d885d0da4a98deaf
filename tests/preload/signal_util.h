/*
 * signal_util.h — helpers of the signal_* tests.
 *   on_signal(sig, fn)        fn handles sig, with SA_RESTART
 *   watchdog_start(say)       a thread that, once the run has gone on 60 s,
 *                             prints "SAY after 60 s" and ends the process
 *                             with exit status 1 (a lost signal or wake-up
 *                             shows as that line, not as the runner's
 *                             two-minute timeout); it has the caller's
 *                             signal mask
 *   watchdog_start_deaf(say)  the same with every signal blocked in the
 *                             watchdog; the caller's mask is left empty
 *   again_idle_ms(var, ms, argv)
 *                             unless the environment has VAR: runs the
 *                             program again (/proc/self/exe) with VAR=1 and
 *                             WEFT_THREAD_IDLE_MS=ms, so that under weft a
 *                             worker left idle beyond GOMAXPROCS gives its
 *                             OS thread back within milliseconds; returns 0
 *                             in the second run, 1 if the execv failed
 *                             (perror says why)
 */
#ifndef WEFT_SIGNAL_UTIL_H
#define WEFT_SIGNAL_UTIL_H
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static inline void on_signal(int sig, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = fn;
	sigaction(sig, &sa, NULL);
}

static inline void *watchdog_main(void *arg)
{
	const char *say = arg;
	double end = now_s() + 60;
	while (now_s() < end)
		usleep(100000);
	printf("%s after 60 s\n", say);
	fflush(stdout);
	_exit(1);
}

static inline void watchdog_start(const char *say)
{
	pthread_t wd;
	pthread_create(&wd, NULL, watchdog_main, (void *)say);
}

static inline void watchdog_start_deaf(const char *say)
{
	sigset_t all, none;
	sigfillset(&all);
	sigemptyset(&none);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	watchdog_start(say);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
}

static inline int again_idle_ms(const char *var, const char *ms, char **argv)
{
	if (getenv(var))
		return 0;
	setenv(var, "1", 1);
	setenv("WEFT_THREAD_IDLE_MS", ms, 1);
	execv("/proc/self/exe", argv);
	perror("execv");
	return 1;
}
#endif
