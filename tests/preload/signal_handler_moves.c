/*
 * A signal handler whose task comes back on another OS thread.  The
 * program runs itself again with WEFT_THREAD_IDLE_MS=1, so that under weft
 * a worker left idle beyond GOMAXPROCS gives its OS thread back within a
 * millisecond or two, and the next worker made takes its struct over.
 * Four threads raise SIGUSR1 on themselves in a loop; the handler sleeps
 * 10 ms (under weft the task parks and resumes on whichever worker has a
 * proc then) and counts.  Between signals each thread waits 15 ms in the
 * kernel on a process-shared futex word (under weft its proc goes to
 * another worker, new if none is idle, and the extra workers idle out
 * after it).  The handler's frame records the alternate signal stack of
 * the thread the signal came to; sigreturn on another thread must not
 * install it there (a thread that exited had it unmapped: the next fault,
 * in trap mode any TLS read after a kernel switch, killed the process
 * without a report, every run at GOMAXPROCS=1).  Checked: every handler
 * ran and returned.  A watchdog (every signal blocked) ends a run still
 * going after 60 s.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "test_util.h"
#include "signal_util.h"
#include "weft_check.h"

#define THREADS 4
#define ROUNDS 20

static atomic_long handled;

/* A wait in the kernel on a process-shared futex word that nobody wakes:
 * under weft the worker's proc goes to another worker meanwhile. */
static int word;
static void nap(long ns)
{
	struct timespec ts = { 0, ns };
	syscall(SYS_futex, &word, FUTEX_WAIT, 0, &ts, NULL, 0);
}

static void on_usr1(int sig)
{
	(void)sig;
	int e = errno;
	usleep(10000);
	atomic_fetch_add(&handled, 1);
	errno = e;
}

static void *raiser(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_kill(pthread_self(), SIGUSR1);
		nap(15000000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argc;
	if (again_idle_ms("MOVES_AGAIN", "1", argv))
		return 1;
	weft_check_loaded();
	watchdog_start_deaf("still running");
	on_signal(SIGUSR1, on_usr1);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, raiser, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("handlers %s\n", atomic_load(&handled) == THREADS * ROUNDS ? "ok" : "WRONG");
	return 0;
}
