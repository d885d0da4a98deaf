/* Signals per thread: masks, pthread_kill to a thread that blocks the
 * signal (pending until it unblocks; the handler then runs in it), to a
 * thread parked on a condvar (the handler runs in it), to the process
 * (kill(getpid())) with a handler that calls async-signal-safe functions,
 * and sigwait in a thread that blocks the signal while main sends it. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "weft_check.h"

static volatile sig_atomic_t usr1_count;
static pthread_t usr1_in;
static int pipefd[2];
static sem_t sem;

static void on_usr1(int sig)
{
	usr1_in = pthread_self();
	usr1_count++;
}

static void on_usr2(int sig)
{
	/* async-signal-safe only: write(2) and sem_post(3) */
	int e = errno;
	char c = 'S';
	if (write(pipefd[1], &c, 1) != 1)
		_exit(91);
	sem_post(&sem);
	errno = e;
}

static void wait_flag(volatile sig_atomic_t *f, int want)
{
	for (int i = 0; i < 20000 && *f < want; i++)
		usleep(500);
}

/* 1. blocks SIGUSR1, reports pending, unblocks. */
static volatile int step;
static void *blocker(void *arg)
{
	sigset_t s, p;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	step = 1;
	while (step != 2)
		usleep(200);
	sigpending(&p);
	printf("blocker: pending has SIGUSR1: %d, handler ran: %d\n", sigismember(&p, SIGUSR1),
	       (int)usr1_count);
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	printf("blocker: mask has SIGUSR1: %d, SIGUSR2: %d\n", sigismember(&cur, SIGUSR1),
	       sigismember(&cur, SIGUSR2));
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	printf("blocker: after unblock handler ran: %d, in this thread: %d\n", (int)usr1_count,
	       pthread_equal(usr1_in, pthread_self()));
	sigpending(&p);
	printf("blocker: pending has SIGUSR1 now: %d\n", sigismember(&p, SIGUSR1));
	return NULL;
}

/* 2. parked on a condvar when the signal arrives. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int release, waiting;
static void *parked(void *arg)
{
	pthread_mutex_lock(&mu);
	waiting = 1;
	pthread_cond_broadcast(&cv);
	while (!release)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* 4. sigwait on a blocked signal. */
static void *waiter(void *arg)
{
	sigset_t s;
	int sig = 0;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGTERM);
	int r = sigwait(&s, &sig);
	printf("waiter: sigwait returned %d with %s\n", r,
	       sig == SIGUSR1 ? "SIGUSR1" : sig == SIGTERM ? "SIGTERM" : "other");
	siginfo_t si;
	r = sigwaitinfo(&s, &si);
	printf("waiter: sigwaitinfo got %s from this process: %d\n",
	       r == SIGTERM ? "SIGTERM" : "other", si.si_pid == getpid());
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	if (pipe(pipefd) || sem_init(&sem, 0, 0))
		return 1;

	/* 1 */
	pthread_t t;
	pthread_create(&t, NULL, blocker, NULL);
	while (step != 1)
		usleep(200);
	printf("kill to blocker: %d\n", pthread_kill(t, SIGUSR1));
	usleep(20000);
	printf("main: handler ran while blocked: %d\n", (int)usr1_count);
	step = 2;
	pthread_join(t, NULL);

	/* 2 */
	usr1_count = 0;
	pthread_create(&t, NULL, parked, NULL);
	pthread_mutex_lock(&mu);
	while (!waiting)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	usleep(10000); /* it is (almost surely) parked; the result does not depend on it */
	printf("signal 0 to live thread: %d\n", pthread_kill(t, 0));
	pthread_kill(t, SIGUSR1);
	wait_flag(&usr1_count, 1);
	printf("parked thread: handler ran %d time, in it: %d\n", (int)usr1_count,
	       pthread_equal(usr1_in, t));
	pthread_mutex_lock(&mu);
	release = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(t, NULL);

	/* 3: to the process; main sleeps in sem_wait. */
	kill(getpid(), SIGUSR2);
	while (sem_wait(&sem) != 0 && errno == EINTR)
		;
	char c = 0;
	if (read(pipefd[0], &c, 1) != 1)
		return 2;
	printf("process signal: handler wrote %c\n", c);

	/* 4: main blocks SIGUSR1/SIGTERM for the waiter it creates (inherited),
	 * then sends both ways. */
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &s, &old);
	pthread_create(&t, NULL, waiter, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	usleep(10000);
	pthread_kill(t, SIGUSR1);
	usleep(10000);
	pthread_kill(t, SIGTERM); /* SIGTERM's default action would end the process */
	pthread_join(t, NULL);
	printf("usr1 handler count after sigwait: %d\n", (int)usr1_count);
	return 0;
}
