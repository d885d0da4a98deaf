/*
 * core_abort: a program that dies with a core (tests/tools/run.sh).  A
 * second thread parks in core_waiter (pause), then main calls abort()
 * from core_die, so that a core shows both: the dying thread's backtrace
 * and a parked one's.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t started;

__attribute__((noinline)) static void *core_waiter(void *arg)
{
	pthread_barrier_wait(&started);
	for (;;)
		pause();
	return arg;
}

__attribute__((noinline)) static void core_die(void)
{
	abort();
}

int main(void)
{
	pthread_t t;
	pthread_barrier_init(&started, NULL, 2);
	if (pthread_create(&t, NULL, core_waiter, NULL) != 0)
		return 1;
	pthread_barrier_wait(&started);
	usleep(20000); /* core_waiter is in pause() */
	core_die();
	return 0;
}
