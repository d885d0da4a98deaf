/* A program built with AddressSanitizer (-fsanitize=address) that recurses
 * until its stack overflows: in a thread with the default stack ("thread"),
 * in one with a 1 MiB stack set by pthread_attr_setstacksize ("sized"), and
 * in main ("main").  ASan's SIGSEGV handler, installed with a raw system
 * call before weft starts, must report "stack-overflow" and exit 1, as
 * natively.  (With libweft.so preloaded ASan needs
 * ASAN_OPTIONS=verify_asan_link_order=0, as with any preloaded library.) */
#include <pthread.h>
#include <string.h>

static int __attribute__((noinline)) rec(int n)
{
	volatile char buf[256];
	memset((char *)buf, n, sizeof buf);
	return rec(n + 1) + buf[3];
}

static void *th(void *a)
{
	(void)a;
	return (void *)(long)rec(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "thread";
	if (!strcmp(mode, "main"))
		return rec(0);
	pthread_attr_t at;
	pthread_attr_init(&at);
	if (!strcmp(mode, "sized"))
		pthread_attr_setstacksize(&at, 1 << 20);
	pthread_t t;
	pthread_create(&t, &at, th, NULL);
	pthread_join(t, NULL);
	return 0;
}
