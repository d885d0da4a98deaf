/* Every call that takes a pthread_t, on threads that have exited and are
 * not joined yet, with a default stack, a fixed size and a stack of the
 * program's own.  glibc 2.36 keeps such a thread's descriptor with the
 * tid the kernel cleared to 0: the calls that check it
 * (pthread_{get,set}schedparam, pthread_setschedprio,
 * pthread_getcpuclockid, pthread_sigqueue) say ESRCH, even for arguments
 * they would refuse otherwise; pthread_kill sends nothing and returns 0,
 * as pthread_cancel does; pthread_{get,set}name_np open
 * /proc/self/task/0/comm and say ENOENT after their ERANGE checks; the
 * affinity calls pass tid 0 to the kernel, which takes it for the caller,
 * so pthread_setaffinity_np changes the caller's mask and
 * pthread_getattr_np reports the caller's; the join still gets the
 * thread's value.  A live thread's pthread_getattr_np carries its mask
 * too. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"

static atomic_int handled;
static void on_usr1(int s) { (void)s; atomic_fetch_add(&handled, 1); }

static void *ret_arg(void *a) { return a; }

static void *wait_gate(void *g)
{
	gate_wait(g);
	return NULL;
}

#define SAY(what, call) printf("  %-36s %s\n", what, en(call))

static int mask_count(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	sched_getaffinity(0, sizeof s, &s);
	return CPU_COUNT(&s);
}

static void probe(const char *kind, pthread_attr_t *attr, long value)
{
	pthread_t t;
	if (pthread_create(&t, attr, ret_arg, (void *)value)) {
		printf("create failed\n");
		exit(1);
	}
	/* Until it has exited: natively, until the kernel has cleared its
	 * tid, which pthread_sigqueue checks first. */
	while (pthread_sigqueue(t, 0, (union sigval){ 0 }) == 0)
		usleep(1000);
	printf("%s, exited, not joined:\n", kind);
	printf("  %-36s %d %d\n", "equal to itself, to main", pthread_equal(t, t) != 0,
	       pthread_equal(t, pthread_self()) != 0);
	SAY("kill 0", pthread_kill(t, 0));
	SAY("kill SIGUSR1", pthread_kill(t, SIGUSR1));
	SAY("kill 99", pthread_kill(t, 99));
	SAY("sigqueue SIGUSR1", pthread_sigqueue(t, SIGUSR1, (union sigval){ 0 }));
	SAY("sigqueue 99", pthread_sigqueue(t, 99, (union sigval){ 0 }));
	printf("  %-36s %d\n", "handlers run", atomic_load(&handled));

	int pol = -7;
	struct sched_param sp = { .sched_priority = -7 };
	SAY("getschedparam", pthread_getschedparam(t, &pol, &sp));
	printf("  %-36s %d %d\n", "policy, priority left", pol, sp.sched_priority);
	sp.sched_priority = 0;
	SAY("setschedparam SCHED_OTHER 0", pthread_setschedparam(t, SCHED_OTHER, &sp));
	SAY("setschedparam policy 77", pthread_setschedparam(t, 77, &sp));
	sp.sched_priority = 10;
	SAY("setschedparam SCHED_FIFO 10", pthread_setschedparam(t, SCHED_FIFO, &sp));
	SAY("setschedprio 0", pthread_setschedprio(t, 0));
	SAY("setschedprio 5", pthread_setschedprio(t, 5));

	clockid_t clk = (clockid_t)12345;
	SAY("getcpuclockid", pthread_getcpuclockid(t, &clk));
	printf("  %-36s %d\n", "clock left", clk == (clockid_t)12345);

	char buf[32] = "unset";
	SAY("getname 32", pthread_getname_np(t, buf, sizeof buf));
	SAY("getname 8", pthread_getname_np(t, buf, 8));
	printf("  %-36s %s\n", "buffer", buf);
	SAY("setname \"x\"", pthread_setname_np(t, "x"));
	SAY("setname of 18 bytes", pthread_setname_np(t, "0123456789abcdefgh"));

	/* The affinity calls act on the caller: one CPU of its own mask, as
	 * seen by the caller and through the exited thread, then the mask
	 * as it was. */
	cpu_set_t mine, one, its;
	sched_getaffinity(0, sizeof mine, &mine);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mine)) {
			CPU_SET(c, &one);
			break;
		}
	CPU_ZERO(&its);
	SAY("getaffinity", pthread_getaffinity_np(t, sizeof its, &its));
	printf("  %-36s %d\n", "it is the caller's", CPU_EQUAL(&its, &mine));
	SAY("setaffinity one CPU", pthread_setaffinity_np(t, sizeof one, &one));
	printf("  %-36s %d\n", "the caller's CPUs now", mask_count());
	CPU_ZERO(&its);
	pthread_getaffinity_np(t, sizeof its, &its);
	printf("  %-36s %d\n", "getaffinity's CPUs now", CPU_COUNT(&its));
	pthread_attr_t a;
	int r = pthread_getattr_np(t, &a);
	SAY("getattr_np", r);
	if (r == 0) {
		int ds = -1;
		cpu_set_t am;
		CPU_ZERO(&am);
		pthread_attr_getdetachstate(&a, &ds);
		int ar = pthread_attr_getaffinity_np(&a, sizeof am, &am);
		printf("  %-36s %s\n", "its detach state",
		       ds == PTHREAD_CREATE_JOINABLE ? "joinable" : "detached");
		printf("  %-36s %s %d\n", "its affinity, CPUs", en(ar), CPU_COUNT(&am));
		pthread_attr_destroy(&a);
	}
	sched_setaffinity(0, sizeof mine, &mine);

	SAY("cancel", pthread_cancel(t));
	void *v = NULL;
	r = pthread_join(t, &v);
	SAY("join", r);
	printf("  %-36s %ld\n", "its value", (long)v);
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(30);
	signal(SIGUSR1, on_usr1);

	probe("default stack", NULL, 7);

	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	probe("256 KiB stack", &attr, 8);
	pthread_attr_destroy(&attr);

	static char stack[1 << 20] __attribute__((aligned(4096)));
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stack, sizeof stack);
	probe("the program's stack", &attr, 9);
	pthread_attr_destroy(&attr);

	/* A live thread's attribute has its mask: one CPU of main's. */
	cpu_set_t mine, one;
	sched_getaffinity(0, sizeof mine, &mine);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mine)) {
			CPU_SET(c, &one);
			break;
		}
	struct gate g = GATE_INIT;
	pthread_t t;
	pthread_create(&t, NULL, wait_gate, &g);
	SAY("live: setaffinity one CPU", pthread_setaffinity_np(t, sizeof one, &one));
	pthread_attr_t a;
	int r = pthread_getattr_np(t, &a);
	cpu_set_t am;
	CPU_ZERO(&am);
	int ar = r ? r : pthread_attr_getaffinity_np(&a, sizeof am, &am);
	printf("  %-36s %s %s %d\n", "live: getattr_np, affinity, CPUs", en(r), en(ar), CPU_COUNT(&am));
	printf("  %-36s %d\n", "it is the one set", CPU_EQUAL(&am, &one));
	if (!r)
		pthread_attr_destroy(&a);
	gate_open(&g);
	pthread_join(t, NULL);
	return 0;
}
