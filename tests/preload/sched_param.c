/* Scheduling policy, priority, niceness and CPU masks of threads, read
 * back as set: pthread_setschedparam / getschedparam / setschedprio on the
 * caller and on another thread, sched_setscheduler / getscheduler /
 * setparam / getparam on id 0, the attribute's PTHREAD_EXPLICIT_SCHED and
 * PTHREAD_INHERIT_SCHED at creation, sched_rr_get_interval, setpriority /
 * getpriority on a thread (a thread's niceness is its own: a new thread
 * does not see what an ended one set), the affinity calls; EINVAL for bad
 * values; then, as user nobody with RLIMIT_RTPRIO 5 (no CAP_SYS_NICE):
 * EPERM above the limit, EACCES for a lower nice, EPERM out of SCHED_IDLE
 * and for clearing SCHED_RESET_ON_FORK.  Needs root (CI runs as root). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static const char *E(int e) { return e ? strerrorname_np(e) : "0"; }
static const char *S(int r) { return r < 0 ? strerrorname_np(errno) : "0"; }

static const char *pol(int p)
{
	static char buf[32];
	switch (p & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER: snprintf(buf, sizeof buf, "OTHER"); break;
	case SCHED_FIFO: snprintf(buf, sizeof buf, "FIFO"); break;
	case SCHED_RR: snprintf(buf, sizeof buf, "RR"); break;
	case SCHED_BATCH: snprintf(buf, sizeof buf, "BATCH"); break;
	case SCHED_IDLE: snprintf(buf, sizeof buf, "IDLE"); break;
	default: snprintf(buf, sizeof buf, "%d", p); break;
	}
	if (p & SCHED_RESET_ON_FORK)
		strcat(buf, "|RESET");
	return buf;
}

static void show(const char *what, pthread_t th)
{
	int p = -1;
	struct sched_param sp = { -1 };
	int r = pthread_getschedparam(th, &p, &sp);
	printf("%s: %s %s %d\n", what, E(r), pol(p), sp.sched_priority);
}

static void *self_show(void *a)
{
	show(a, pthread_self());
	struct sched_param sp = { -1 };
	int p = sched_getscheduler(0);
	sched_getparam(0, &sp);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	cpu_set_t set;
	sched_getaffinity(0, sizeof set, &set);
	printf("  sched_getscheduler %s, sched_getparam %d, nice %d (errno %s), cpus %d\n", pol(p),
	       sp.sched_priority, nice, E(errno), CPU_COUNT(&set));
	return NULL;
}

static void *set_nice(void *a)
{
	printf("set nice 7 on itself: %s\n", S(setpriority(PRIO_PROCESS, 0, 7)));
	return a;
}

static pthread_barrier_t bar;

static void *waiter(void *a)
{
	pthread_barrier_wait(&bar); /* main sets our policy meanwhile */
	pthread_barrier_wait(&bar);
	return self_show(a);
}

static void create(const char *what, pthread_attr_t *a)
{
	pthread_t th;
	int r = pthread_create(&th, a, self_show, (void *)what);
	if (r) {
		printf("%s: pthread_create %s\n", what, E(r));
		return;
	}
	pthread_join(th, NULL);
}

static void unprivileged(void)
{
	struct rlimit rt = { 5, 5 }, nl = { 0, 0 };
	setrlimit(RLIMIT_RTPRIO, &rt);
	setrlimit(RLIMIT_NICE, &nl);
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)) {
		printf("setresuid: %s\n", strerrorname_np(errno));
		return;
	}
	pthread_t me = pthread_self();
	struct sched_param sp = { 6 };
	printf("nobody FIFO 6: %s\n", E(pthread_setschedparam(me, SCHED_FIFO, &sp)));
	sp.sched_priority = 5;
	printf("nobody FIFO 5: %s\n", E(pthread_setschedparam(me, SCHED_FIFO, &sp)));
	printf("nobody prio 3: %s\n", E(pthread_setschedprio(me, 3)));
	printf("nobody prio 5: %s\n", E(pthread_setschedprio(me, 5)));
	printf("nobody prio 6: %s\n", E(pthread_setschedprio(me, 6)));
	show("nobody", me);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	sp.sched_priority = 9;
	pthread_attr_setschedparam(&a, &sp);
	create("nobody explicit FIFO 9", &a);
	sp.sched_priority = 4;
	pthread_attr_setschedparam(&a, &sp);
	create("nobody explicit FIFO 4", &a);
	pthread_attr_destroy(&a);
	sp.sched_priority = 0;
	printf("nobody OTHER: %s\n", S(sched_setscheduler(0, SCHED_OTHER, &sp)));
	printf("nobody nice 3: %s\n", S(setpriority(PRIO_PROCESS, 0, 3)));
	printf("nobody nice 2: %s\n", S(setpriority(PRIO_PROCESS, 0, 2)));
	errno = 0;
	printf("nobody nice now %d\n", getpriority(PRIO_PROCESS, 0));
	printf("nobody IDLE: %s\n", S(sched_setscheduler(0, SCHED_IDLE, &sp)));
	printf("nobody IDLE -> OTHER: %s\n", S(sched_setscheduler(0, SCHED_OTHER, &sp)));
	printf("nobody IDLE|RESET: %s\n",
	       S(sched_setscheduler(0, SCHED_IDLE | SCHED_RESET_ON_FORK, &sp)));
	printf("nobody getscheduler %s\n", pol(sched_getscheduler(0)));
	printf("nobody clear RESET: %s\n", S(sched_setscheduler(0, SCHED_IDLE, &sp)));
	sp.sched_priority = 1;
	printf("nobody back to FIFO 1: %s\n", S(sched_setscheduler(0, SCHED_FIFO, &sp)));
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	int pols[] = { SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_IDLE, 42 };
	for (int i = 0; i < 6; i++)
		printf("%s: min %d max %d\n", pol(pols[i]), sched_get_priority_min(pols[i]),
		       sched_get_priority_max(pols[i]));
	pthread_t me = pthread_self();
	show("main", me);
	struct sched_param sp = { 10 };
	printf("set FIFO 10: %s\n", E(pthread_setschedparam(me, SCHED_FIFO, &sp)));
	show("main", me);
	sp.sched_priority = -1;
	printf("sched_getscheduler %s, ", pol(sched_getscheduler(0)));
	printf("sched_getparam %s ", S(sched_getparam(0, &sp)));
	printf("%d\n", sp.sched_priority);
	printf("setschedprio 20: %s\n", E(pthread_setschedprio(me, 20)));
	show("main", me);
	int bad[][2] = { { SCHED_FIFO, 0 }, { SCHED_FIFO, 100 }, { SCHED_RR, -1 },
			 { SCHED_OTHER, 5 }, { SCHED_BATCH, 1 }, { 42, 1 }, { 6, 0 } };
	for (int i = 0; i < 7; i++) {
		sp.sched_priority = bad[i][1];
		printf("set %s %d: %s\n", pol(bad[i][0]), bad[i][1],
		       E(pthread_setschedparam(me, bad[i][0], &sp)));
	}
	printf("setschedprio 0: %s\n", E(pthread_setschedprio(me, 0)));
	printf("sched_setscheduler NULL: %s\n", S(sched_setscheduler(0, SCHED_FIFO, NULL)));
	printf("sched_setscheduler -1: %s\n", S(sched_setscheduler(-1, SCHED_FIFO, &sp)));
	sp.sched_priority = 20;
	printf("sched_setscheduler policy -1: %s\n", S(sched_setscheduler(0, -1, &sp)));
	printf("pthread_setschedparam policy -1: %s\n", E(pthread_setschedparam(me, -1, &sp)));
	printf("sched_setparam 0: %s\n", S(sched_setparam(0, &(struct sched_param){ 0 })));
	show("main", me);
	struct timespec ts = { 9, 9 };
	printf("rr_get_interval (FIFO): %s ", S(sched_rr_get_interval(0, &ts)));
	printf("%ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
	sp.sched_priority = 20;
	printf("sched_setscheduler RR 20: %s\n", S(sched_setscheduler(0, SCHED_RR, &sp)));
	printf("rr_get_interval (RR): %s ", S(sched_rr_get_interval(0, &ts)));
	printf("%ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
	show("main", me);

	create("inherited", NULL);
	pthread_attr_t a;
	pthread_attr_init(&a);
	int v;
	pthread_attr_getinheritsched(&a, &v);
	printf("attr default inherit: %d\n", v == PTHREAD_INHERIT_SCHED);
	sp.sched_priority = 7;
	printf("attr FIFO 7: %s ", E(pthread_attr_setschedpolicy(&a, SCHED_FIFO)));
	printf("%s\n", E(pthread_attr_setschedparam(&a, &sp)));
	create("inherit (attr FIFO 7 ignored)", &a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	create("explicit FIFO 7", &a);
	sp.sched_priority = 0;
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	create("explicit OTHER", &a);
	pthread_attr_setschedpolicy(&a, SCHED_RR);
	create("explicit RR 0", &a);
	pthread_attr_destroy(&a);
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	create("explicit FIFO, no priority", &a);
	pthread_attr_destroy(&a);
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	sp.sched_priority = 3;
	pthread_attr_setschedparam(&a, &sp);
	cpu_set_t one;
	CPU_ZERO(&one);
	cpu_set_t all;
	sched_getaffinity(0, sizeof all, &all);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	pthread_attr_setaffinity_np(&a, sizeof one, &one);
	create("explicit FIFO 3, one CPU", &a);
	pthread_attr_destroy(&a);

	/* Another thread's values, set while it waits. */
	pthread_barrier_init(&bar, NULL, 2);
	pthread_t th;
	pthread_create(&th, NULL, waiter, "other");
	pthread_barrier_wait(&bar);
	sp.sched_priority = 15;
	printf("other FIFO 15: %s\n", E(pthread_setschedparam(th, SCHED_FIFO, &sp)));
	show("other", th);
	printf("other setschedprio 16: %s\n", E(pthread_setschedprio(th, 16)));
	printf("other setschedprio 100: %s\n", E(pthread_setschedprio(th, 100)));
	show("other", th);
	cpu_set_t got;
	printf("other affinity: %s ", E(pthread_setaffinity_np(th, sizeof one, &one)));
	printf("%s ", E(pthread_getaffinity_np(th, sizeof got, &got)));
	printf("%d\n", CPU_COUNT(&got));
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);

	/* Niceness: the caller's own, inherited, not another thread's. */
	printf("nice 5: %s\n", S(setpriority(PRIO_PROCESS, 0, 5)));
	errno = 0;
	printf("nice now %d errno %s\n", getpriority(PRIO_PROCESS, 0), E(errno));
	pthread_create(&th, NULL, set_nice, NULL);
	pthread_join(th, NULL);
	create("after a thread set nice 7", NULL);
	printf("nice 30 (clamped): %s ", S(setpriority(PRIO_PROCESS, 0, 30)));
	printf("%d\n", getpriority(PRIO_PROCESS, 0));
	printf("nice 0: %s\n", S(setpriority(PRIO_PROCESS, 0, 0)));
	printf("setpriority bad which: %s\n", S(setpriority(7, 0, 0)));

	/* CPU masks. */
	cpu_set_t none;
	CPU_ZERO(&none);
	printf("affinity empty: %s\n", S(sched_setaffinity(0, sizeof none, &none)));
	cpu_set_t far;
	CPU_ZERO(&far);
	CPU_SET(CPU_SETSIZE - 1, &far);
	printf("affinity CPU 1023: %s\n", S(sched_setaffinity(0, sizeof far, &far)));
	printf("affinity one: %s ", S(sched_setaffinity(0, sizeof one, &one)));
	sched_getaffinity(0, sizeof got, &got);
	printf("%d\n", CPU_COUNT(&got));
	create("after affinity one", NULL);
	printf("affinity all: %s\n", S(sched_setaffinity(0, sizeof all, &all)));
	printf("getaffinity size 1: %s\n", S(sched_getaffinity(0, 1, &got)));
	printf("getaffinity size 9: %s\n", S(sched_getaffinity(0, 9, &got)));

	sp.sched_priority = 0;
	printf("back to OTHER: %s\n", E(pthread_setschedparam(me, SCHED_OTHER, &sp)));
	show("main", me);

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		unprivileged();
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("child: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
