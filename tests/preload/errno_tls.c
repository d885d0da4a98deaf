/* errno and __thread variables are per thread and survive blocking calls
 * (which may move a weft task to another worker). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include "weft_check.h"

#define N 200
#define ROUNDS 50

static __thread long tlsvar;
static __thread char tlsbuf[64];
static pthread_mutex_t mtx[4] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
				  PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static atomic_int errno_ok, tls_ok, addr_ok, buf_ok;
static long sums[4]; /* sums[k] is protected by mtx[k] */

static void *worker(void *arg)
{
	long id = (long)arg;
	errno = (int)id + 1000;
	tlsvar = id;
	snprintf(tlsbuf, sizeof tlsbuf, "thread-%ld", id);
	int *ea = &errno;
	long *ta = &tlsvar;
	int e_good = 1, t_good = 1, a_good = 1, b_good = 1;
	for (int r = 0; r < ROUNDS; r++) {
		switch (r % 4) {
		case 0:
			sched_yield();
			break;
		case 1:
			usleep(100);
			break;
		case 2: {
			int k = (int)((id + r) % 4);
			pthread_mutex_t *m = &mtx[k];
			pthread_mutex_lock(m);
			sums[k] += id;
			sched_yield();
			pthread_mutex_unlock(m);
			break;
		}
		case 3: {
			struct timespec ts = { 0, 50000 };
			nanosleep(&ts, NULL);
			break;
		}
		}
		/* sched_yield/usleep/nanosleep/mutex succeed and leave errno alone */
		if (errno != (int)id + 1000)
			e_good = 0;
		if (tlsvar != id)
			t_good = 0;
		if (&errno != ea || &tlsvar != ta)
			a_good = 0;
		char want[64];
		snprintf(want, sizeof want, "thread-%ld", id);
		if (strcmp(want, tlsbuf) != 0)
			b_good = 0;
		errno = (int)id + 1000; /* snprintf may touch errno in principle */
		tlsvar = id;
	}
	/* A failing call sets this thread's errno only. */
	if (close(-1) != -1 || errno != EBADF)
		e_good = 0;
	atomic_fetch_add(&errno_ok, e_good);
	atomic_fetch_add(&tls_ok, t_good);
	atomic_fetch_add(&addr_ok, a_good);
	atomic_fetch_add(&buf_ok, b_good);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_t t[N];
	errno = 4242;
	tlsvar = -1;
	for (long i = 0; i < N; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			printf("create failed\n");
			return 1;
		}
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	printf("errno ok %d\n", atomic_load(&errno_ok));
	printf("tls ok %d\n", atomic_load(&tls_ok));
	printf("addr ok %d\n", atomic_load(&addr_ok));
	printf("tlsbuf ok %d\n", atomic_load(&buf_ok));
	printf("main errno %d tlsvar %ld\n", errno, tlsvar);
	printf("sum %ld\n", sums[0] + sums[1] + sums[2] + sums[3]);
	return 0;
}
