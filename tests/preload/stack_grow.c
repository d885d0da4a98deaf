/* Stacks that grow (sched/stack/stack.c): a recursion a million calls deep, 80
 * bytes a frame (80 MB, ten times the native 8 MiB), in a pthread with
 * default attributes and in main; then a thread that grows, exits and is
 * joined many times over, so its slot's deep pages and guards are reset
 * for reuse; and stacks the program asked for stay its own size at least.
 * Natively the recursion overflows the stack: SKIP-NATIVE.  Under weft the
 * output is compared with stack_grow.expected, and a wrong count also makes
 * the exit status non-zero.  main moves to a stack that grows only when
 * weft starts before main (sched/core/start.c: a process that starts it at its
 * second thread keeps main on the initial stack, as natively): the
 * program runs itself again with WEFT_START=eager. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "weft_check.h"

static long recurse(long n);
static long (*volatile again)(long) = recurse;

__attribute__((noinline)) static long recurse(long n)
{
	volatile char frame[64];
	frame[0] = (char)n;
	if (n == 0)
		return 0;
	long r = again(n - 1) + 1;
	return r + (frame[0] & 0) + (frame[63] & 0);
}

static void *deep(void *arg)
{
	return (void *)recurse((long)arg);
}

int main(void)
{
	weft_check_loaded();
	const char *e = getenv("WEFT_EXPECT");
	if (!e || *e != '1') {
		printf("SKIP-NATIVE\n");
		return 0;
	}
	const char *st = getenv("WEFT_START");
	if (!st || strcmp(st, "eager") != 0) {
		char *argv[] = { "stack_grow", NULL };
		setenv("WEFT_START", "eager", 1);
		execv("/proc/self/exe", argv);
		perror("execv");
		return 1;
	}
	pthread_t th;
	void *r;
	int bad = 0;
	pthread_create(&th, NULL, deep, (void *)1000000L);
	pthread_join(th, &r);
	printf("thread deep: %ld\n", (long)r);
	bad |= r != (void *)1000000L;
	long m = recurse(1000000);
	printf("main deep: %ld\n", m);
	bad |= m != 1000000;
	/* Grow, exit, join, again: the next thread gets the same slot back. */
	long ok = 0;
	for (int i = 0; i < 6; i++) {
		pthread_create(&th, NULL, deep, (void *)(i % 2 ? 1000000L : 1000L));
		pthread_join(th, &r);
		ok += r == (void *)(i % 2 ? 1000000L : 1000L);
	}
	printf("grow and reuse: %ld of 6\n", ok);
	bad |= ok != 6;
	/* Several at once, each 100,000 deep (8 MB, the whole native stack). */
	pthread_t many[8];
	for (int i = 0; i < 8; i++)
		pthread_create(&many[i], NULL, deep, (void *)100000L);
	ok = 0;
	for (int i = 0; i < 8; i++) {
		pthread_join(many[i], &r);
		ok += r == (void *)100000L;
	}
	printf("8 threads 100000 deep: %ld\n", ok);
	bad |= ok != 8;
	/* A 256 MiB stack asked for: four slots held from the start. */
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256ul << 20);
	pthread_create(&th, &a, deep, (void *)1500000L);
	pthread_join(th, &r);
	printf("256 MiB attr, 1500000 deep: %ld\n", (long)r);
	bad |= r != (void *)1500000L;
	return bad;
}
