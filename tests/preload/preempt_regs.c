/* Tasks preempted in the middle of floating-point work (SSE doubles, x87
 * long doubles kept on the x87 stack, a changed rounding mode) and integer
 * work must compute exactly what they compute natively: the preemption stub
 * saves every register, the flags and the extended state. */
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>
#include "weft_check.h"

#define T 4

static volatile int go;
static double dres[T];
static long double lres[T];
static unsigned long ires[T];

static void *work(void *arg)
{
	long id = (long)arg;
	while (!go)
		;
	if (id & 1)
		fesetround(FE_UPWARD); /* MXCSR and the x87 control word differ per task */
	double d = 1.0 + id;
	long double l = 1.0L + id, l2 = 0.5L;
	unsigned long x = 88172645463325252ul + id;
	for (long i = 0; i < 30000000; i++) {
		d = d * 1.0000001 + 1e-9 * (double)(i & 7);
		l = l * 1.00000001L + l2;
		l2 = l2 * 0.999999L;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	dres[id] = d;
	lres[id] = l;
	ires[id] = x;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_t t[T];
	for (long i = 0; i < T; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	go = 1;
	for (int i = 0; i < T; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < T; i++)
		printf("task %d: %.17g %.21Lg %lx\n", i, dres[i], lres[i], ires[i]);
	return 0;
}
