// Asynchronous cancellation of a thread spinning in C++ code: its
// thread_local objects are destroyed, as with glibc, and the join returns
// PTHREAD_CANCELED.
#include <pthread.h>
#include <semaphore.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>
#include "weft_check.h"

static sem_t started;
static std::atomic<int> tl_dtors{0};
static volatile unsigned long sink;

struct Tracked {
	int v = 0;
	~Tracked() { tl_dtors++; }
};
static thread_local Tracked tl;

__attribute__((noinline)) static void spin()
{
	for (unsigned long i = 0;; i++)
		sink = i + 1;
}


static void *worker(void *)
{
	tl.v = 1;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, nullptr);
	sem_post(&started);
	spin();
	return nullptr;
}

int main()
{
	weft_check_loaded();
	setvbuf(stdout, nullptr, _IOLBF, 0);
	sem_init(&started, 0, 0);
	pthread_t t;
	void *r = nullptr;
	pthread_create(&t, nullptr, worker, nullptr);
	sem_wait(&started);
	usleep(20000);
	pthread_cancel(t);
	timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 10;
	int j = pthread_timedjoin_np(t, &r, &dl);
	if (j) {
		std::printf("not cancelled within 10 s (join %d)\n", j);
		std::exit(1);
	}
	std::printf("join %d, %s, thread_local destructors %d\n", j,
		    r == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "returned", tl_dtors.load());
	return 0;
}
