/*
 * Thread ids (gettid(2), tgkill(2)): main's id is the process id; every
 * thread's id is its own, unique among the live threads of the process and
 * the same for the thread's whole life (here across sleeps, yields and
 * CPU-bound stretches, with more threads than CPUs, so threads change CPUs
 * and, under weft, workers); syscall(SYS_gettid) agrees with gettid();
 * tgkill(getpid(), id, sig) runs the handler on the thread with that id
 * (before tgkill returns when a thread signals itself); sig 0 probes; an id
 * whose thread was joined is ESRCH; the child of a fork made by a thread
 * has its pid as its thread's id.  Under weft gettid gave the id of the
 * worker thread the task ran on at that moment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#define N 6

static pthread_barrier_t all_up, checked;
static pid_t ids[N];
static pthread_t ths[N];
static _Atomic int unstable, self_wrong, self_late, nice_wrong;
static _Thread_local volatile int got;
static _Atomic int remote_hits[N], remote_wrong;
static volatile unsigned long sink;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

static void on_usr2(int sig)
{
	(void)sig;
	pid_t me = gettid();
	for (int i = 0; i < N; i++)
		if (ids[i] == me) {
			if (!pthread_equal(ths[i], pthread_self()))
				remote_wrong++;
			remote_hits[i]++;
			return;
		}
	remote_wrong++;
}

static void *thread(void *arg)
{
	int i = (int)(long)arg;
	pid_t me = gettid();
	ids[i] = me;
	pthread_barrier_wait(&all_up);
	for (int round = 0; round < 40; round++) {
		if (round % 3 == 0)
			usleep(500);
		else if (round % 3 == 1)
			sched_yield();
		else
			for (int k = 0; k < 200000; k++)
				sink += k;
		if (gettid() != me || syscall(SYS_gettid) != me)
			unstable++;
	}
	/* Its id names it to setpriority/getpriority (a higher nice value is
	 * always allowed). */
	if (i == 0 && (setpriority(PRIO_PROCESS, (id_t)gettid(), 7) != 0 ||
		       getpriority(PRIO_PROCESS, (id_t)gettid()) != 7))
		nice_wrong++;
	/* tgkill to itself: the handler runs on this thread before it returns. */
	int before = got;
	if (tgkill(getpid(), gettid(), SIGUSR1) != 0)
		self_wrong++;
	if (got != before + 1)
		self_late++;
	pthread_barrier_wait(&checked);
	/* Main signals each thread by id: wait for it (3 s at most). */
	for (int ms = 0; !remote_hits[i] && ms < 3000; ms++)
		usleep(1000);
	return NULL;
}

static void *forker(void *arg)
{
	(void)arg;
	pid_t c = fork();
	if (c == 0)
		_exit(gettid() == getpid() && syscall(SYS_gettid) == getpid() ? 0 : 1);
	int status = -1;
	waitpid(c, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "yes" : "no";
}

int main(void)
{
	weft_check_loaded();
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	printf("main: gettid() == getpid(): %s\n", gettid() == getpid() ? "yes" : "no");
	printf("main: syscall(SYS_gettid) == getpid(): %s\n",
	       syscall(SYS_gettid) == getpid() ? "yes" : "no");
	pthread_barrier_init(&all_up, NULL, N + 1);
	pthread_barrier_init(&checked, NULL, N + 1);
	for (long i = 0; i < N; i++)
		pthread_create(&ths[i], NULL, thread, (void *)i);
	pthread_barrier_wait(&all_up);
	int dup = 0;
	for (int i = 0; i < N; i++) {
		if (ids[i] == getpid() || ids[i] <= 0)
			dup++;
		for (int j = 0; j < i; j++)
			if (ids[i] == ids[j])
				dup++;
	}
	printf("threads' ids unique and not main's: %s\n", dup ? "no" : "yes");
	pthread_barrier_wait(&checked);
	printf("ids stable across sleeps, yields and spins: %s\n", unstable ? "no" : "yes");
	printf("setpriority/getpriority by its id: %s\n", nice_wrong ? "failed" : "0");
	printf("tgkill to itself: %s, handler ran before it returned: %s\n",
	       self_wrong ? "failed" : "0", self_late ? "no" : "yes");
	int probe = 0;
	for (int i = 0; i < N; i++)
		probe += tgkill(getpid(), ids[i], 0) != 0;
	printf("tgkill(sig 0) to every live thread: %s\n", probe ? "failed" : "0");
	int sent = 0;
	for (int i = 0; i < N; i++)
		sent += tgkill(getpid(), ids[i], SIGUSR2) == 0;
	for (int i = 0; i < N; i++)
		pthread_join(ths[i], NULL);
	printf("tgkill by id from main: %d sent, handlers on the right thread: %s\n", sent,
	       remote_wrong ? "no" : "yes");
	/* A thread forks: the child's one thread has the child's pid as id. */
	pthread_t f;
	pthread_create(&f, NULL, forker, NULL);
	void *st;
	pthread_join(f, &st);
	printf("fork from a thread: in the child gettid() == getpid(): %s\n", (char *)st);
	errno = 0;
	int r = tgkill(getpid(), ids[0], SIGUSR2);
	printf("tgkill to a joined thread's id: %d %s\n", r, r ? strerrorname_np(errno) : "");
	r = (int)syscall(SYS_tgkill, getpid(), ids[1], 0);
	printf("syscall(SYS_tgkill) to a joined thread's id: %d %s\n", r,
	       r ? strerrorname_np(errno) : "");
	return 0;
}
