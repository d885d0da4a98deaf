/*
 * grow — the seeds' stack experiment: a function that calls itself a
 * million times, each call holding at least 64 bytes.  Natively an 8 MiB
 * stack overflows (SIGSEGV); a goroutine's stack grows, and so does a weft
 * task's.
 *   grow thread [N]   recurse N deep (1000000) in a pthread, default attributes
 *   grow main [N]     the same in main
 *   grow runaway      recurse without end in a pthread (must die by SIGSEGV)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long depth = 1000000;

/* Called through a volatile pointer, with the frame used after the call:
 * the compiler can neither turn the recursion into a loop nor drop the
 * 64 bytes. */
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

static long runaway(long n);
static long (*volatile forever_again)(long) = runaway;

__attribute__((noinline)) static long runaway(long n)
{
	volatile char frame[64];
	frame[0] = (char)n;
	long r = forever_again(n + 1);
	return r + (frame[0] & 0);
}

static void *deep(void *arg)
{
	(void)arg;
	printf("deep: %ld\n", recurse(depth));
	return NULL;
}

static void *forever(void *arg)
{
	(void)arg;
	printf("never: %ld\n", runaway(0));
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "thread";
	if (argc > 2)
		depth = atol(argv[2]);
	setvbuf(stdout, NULL, _IONBF, 0);
	pthread_t th;
	if (!strcmp(mode, "main")) {
		deep(NULL);
		return 0;
	}
	if (pthread_create(&th, NULL, strcmp(mode, "runaway") ? deep : forever, NULL) != 0)
		return perror("pthread_create"), 1;
	pthread_join(th, NULL);
	return 0;
}
