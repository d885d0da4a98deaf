/* cpu_burn: two threads burn CPU in the ratio 3:1 (fixed work, whatever
 * the scheduling), named "burn3" and "burn1" with pthread_setname_np, each
 * in a function of its own (burn_hot, burn_cold); with an argument N, main
 * then takes one lock N times while a third thread holds it in turn (a
 * contended lock). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long unit = 60000000ul;

__attribute__((noinline)) static void burn_hot(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + i;
	sink = x;
}

__attribute__((noinline)) static void burn_cold(unsigned long n)
{
	unsigned long x = 3;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + i;
	sink = x;
}

static void *hot(void *a)
{
	(void)a;
	pthread_setname_np(pthread_self(), "burn3");
	burn_hot(3 * unit);
	return NULL;
}

static void *cold(void *a)
{
	(void)a;
	pthread_setname_np(pthread_self(), "burn1");
	burn_cold(unit);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		unit = strtoul(argv[1], NULL, 0);
	pthread_t a, b;
	pthread_create(&a, NULL, hot, NULL);
	pthread_create(&b, NULL, cold, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("done\n");
	return 0;
}
