/* 100 threads blocked in fgets() on pipes: stdio reads with libc's own
 * read, which weft does not see.  Another thread must keep making progress
 * meanwhile (at GOMAXPROCS=1 it runs only if weft takes the proc from each
 * blocked worker), and when data arrives every reader gets its line. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "weft_check.h"

#define N 100
#define COUNT 20000000L

static FILE *in[N];
static int wfd[N];
static char line[N][64];
static volatile long counter;
static int waiting; /* readers about to block */

static void *reader(void *arg)
{
	long i = (long)arg;
	__atomic_fetch_add(&waiting, 1, __ATOMIC_SEQ_CST);
	if (!fgets(line[i], sizeof line[i], in[i]))
		strcpy(line[i], "EOF\n");
	return NULL;
}

static void *count(void *arg)
{
	(void)arg;
	while (counter < COUNT)
		counter++;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_t r[N], c;
	for (long i = 0; i < N; i++) {
		int fd[2];
		if (pipe(fd) != 0)
			return 1;
		in[i] = fdopen(fd[0], "r");
		wfd[i] = fd[1];
		pthread_create(&r[i], NULL, reader, (void *)i);
	}
	/* Every reader in fgets (or about to be) before the counter starts.
	 * At GOMAXPROCS=1 even this loop needs the proc back from them. */
	while (__atomic_load_n(&waiting, __ATOMIC_SEQ_CST) < N)
		usleep(1000);
	usleep(20000);
	pthread_create(&c, NULL, count, NULL);
	pthread_join(c, NULL);
	printf("counter reached %ld\n", (long)counter);
	for (int i = 0; i < N; i++) {
		char buf[64];
		int n = snprintf(buf, sizeof buf, "line %03d\n", i);
		if (write(wfd[i], buf, n) != n)
			return 1;
	}
	for (int i = 0; i < N; i++) {
		pthread_join(r[i], NULL);
		fputs(line[i], stdout);
	}
	return 0;
}
