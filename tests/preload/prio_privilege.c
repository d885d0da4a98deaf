/* The privilege a real-time policy needs is the caller's at the moment it
 * asks: CAP_SYS_NICE dropped from the effective set (by libc's capset or
 * by syscall(SYS_capset)) makes pthread_setschedparam(SCHED_FIFO) fail
 * with EPERM at once, and raising it again makes it succeed at once, each
 * time, in a loop (as a program that drops privileges around a section
 * would).  Also from another thread than the one that changed it. Run as
 * root without CAP_SYS_NICE in the permitted set, the test says so. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "weft_check.h"

int capset(void *hdr, const void *data); /* libcap's header declares it */

static int fifo(int prio)
{
	struct sched_param sp = { prio };
	return pthread_setschedparam(pthread_self(), prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static int nice_cap(int on, int raw)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	if (on)
		d[0].effective |= 1u << CAP_SYS_NICE;
	else
		d[0].effective &= ~(1u << CAP_SYS_NICE);
	return raw ? (int)syscall(SYS_capset, &h, d) : capset(&h, d);
}

static void *other(void *arg)
{
	(void)arg;
	int r = fifo(10);
	fifo(0);
	return (void *)(long)r;
}

static int from_thread(void)
{
	pthread_t t;
	void *r;
	pthread_create(&t, NULL, other, NULL);
	pthread_join(t, &r);
	return (int)(long)r;
}

int main(void)
{
	weft_check_loaded();
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) != 0 || !(d[0].permitted & (1u << CAP_SYS_NICE))) {
		printf("no CAP_SYS_NICE to drop: nothing to check\n");
		return 0;
	}
	int bad = 0;
	for (int i = 0; i < 20; i++) {
		int raw = i & 1;
		int a = fifo(10);
		fifo(0);
		int off = nice_cap(0, raw);
		int b = fifo(10), bt = from_thread();
		fifo(0);
		int on = nice_cap(1, raw);
		int c = fifo(10), ct = from_thread();
		fifo(0);
		if (i < 2)
			printf("%s capset: with %s, without %s (another thread: %s), again %s (%s); "
			       "capset %d %d\n", raw ? "raw" : "libc", strerrorname_np(a) ?: "0",
			       strerrorname_np(b) ?: "0", strerrorname_np(bt) ?: "0",
			       strerrorname_np(c) ?: "0", strerrorname_np(ct) ?: "0", off, on);
		bad += a != 0 || b != EPERM || bt != EPERM || c != 0 || ct != 0;
	}
	printf("20 rounds, wrong answers: %d\n", bad);
	return 0;
}
