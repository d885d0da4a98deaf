/* More threads blocked in read(2) than there are procs: the writer (main)
 * must still run, so weft has to take procs from blocked workers. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "weft_check.h"

#define N 8

static int fds[N][2];

static void *reader(void *arg)
{
	long i = (long)arg;
	char c = 0;
	if (read(fds[i][0], &c, 1) != 1)
		return (void *)-1L;
	return (void *)(long)c;
}

int main(void)
{
	weft_check_loaded();
	pthread_t t[N];
	for (long i = 0; i < N; i++) {
		if (pipe(fds[i]) != 0)
			return 1;
		pthread_create(&t[i], NULL, reader, (void *)i);
	}
	usleep(50000); /* let them block (the result does not depend on it) */
	for (int i = 0; i < N; i++) {
		char c = (char)('a' + i);
		if (write(fds[i][1], &c, 1) != 1)
			return 1;
	}
	for (int i = 0; i < N; i++) {
		void *r;
		pthread_join(t[i], &r);
		printf("reader %d got %c\n", i, (char)(long)r);
	}
	return 0;
}
