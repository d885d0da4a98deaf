/* Memory exhausted after the program (and weft) started: the address-space
 * limit (RLIMIT_AS) lowered to a little above what the process maps now,
 * and the rest taken by the program's own mappings until mmap fails.  Then
 * pthread_create fails with EAGAIN (natively at once: no room for a stack;
 * under weft once its task structs run out, as its stacks were reserved at
 * start), the threads made run on, and once the mappings are gone new
 * threads can be created again, as many, several times (nothing was lost
 * to the failures).  A sleep works meanwhile: under weft it is the
 * process's first timed wait, whose timer needs a place that memory
 * exhausted cannot refuse.  Counts differ, so the test checks the error, not
 * counts. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"

#define MAXT 4000
#define ROOM (64ul << 20) /* room above the current size: a few stacks */

static struct gate released = GATE_INIT;

static void *waiter(void *a)
{
	gate_wait(&released);
	return a;
}

static void *quick(void *a)
{
	return (void *)((long)a + 1);
}

static unsigned long vm_size(void)
{
	return (unsigned long)status_kb("VmSize") << 10;
}

static pthread_t t[MAXT];

int main(void)
{
	weft_check_loaded();
	struct rlimit old, rl;
	getrlimit(RLIMIT_AS, &old);
	/* Warm up: stdio, the first thread. */
	pthread_t w;
	pthread_create(&w, NULL, quick, NULL);
	pthread_join(w, NULL);
	/* The size may change while it is read: a runtime's own thread can map
	 * memory at any moment (under weft, glibc reserves a 64 MiB malloc
	 * arena for sysmon when sysmon starts its first worker, which the
	 * warm-up may have asked for).  A limit set from a size read before
	 * such a mapping would leave no room, nothing for the chunks below to take
	 * and give back, and the rounds after them nothing to run in.  So the
	 * limit is set again until the size it was set from still holds after
	 * it: the room above is then the program's. */
	rl.rlim_max = old.rlim_max;
	for (int tries = 0;; tries++) {
		unsigned long v = vm_size();
		rl.rlim_cur = v + ROOM;
		if (setrlimit(RLIMIT_AS, &rl))
			return 1;
		if (vm_size() == v)
			break;
		if (tries == 100)
			return 1;
	}
	static void *chunk[4096];
	int nc = 0;
	while (nc < 4096) {
		void *c = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			break;
		chunk[nc++] = c;
	}
	if (nc == 4096 && emulated()) {
		/* qemu-user keeps RLIMIT_AS from the kernel (it would bind the
		 * emulator itself): there is no limit here to run into. */
		for (int i = 0; i < nc; i++)
			munmap(chunk[i], 1 << 20);
		setrlimit(RLIMIT_AS, &old);
		printf("RLIMIT_AS is not enforced here (qemu-user): nothing to exhaust\n");
		return 0;
	}
	printf("address space taken: %s\n", nc < 4096 ? "yes" : "no");
	int n = 0, err = 0;
	while (n < MAXT && !(err = pthread_create(&t[n], NULL, waiter, NULL)))
		n++;
	printf("address space limited after start: pthread_create fails with %s\n", en(err));
	void *p = malloc(4 << 20);
	printf("a 4 MiB malloc fails too: %s\n", p ? "no" : "yes");
	free(p);
	/* The process's first timed wait, with no memory to map. */
	printf("a 1 ms sleep works: %s\n", usleep(1000) == 0 ? "yes" : "no");
	gate_open(&released);
	int joined = 0;
	for (int i = 0; i < n; i++)
		joined += pthread_join(t[i], NULL) == 0;
	printf("all joined: %s\n", joined == n ? "yes" : "no");
	for (int i = 0; i < nc; i++)
		munmap(chunk[i], 1 << 20);
	/* At least four: the mappings freed make room for as many natively. */
	if (n < 4)
		n = 4;
	/* The same number again, one at a time: nothing leaked. */
	int again = 0;
	for (int round = 0; round < 3; round++) {
		gate_reset(&released);
		int m = 0;
		while (m < n && !pthread_create(&t[m], NULL, waiter, NULL))
			m++;
		gate_open(&released);
		for (int i = 0; i < m; i++)
			pthread_join(t[i], NULL);
		again += m == n;
	}
	printf("as many threads again, three times: %s\n", again == 3 ? "yes" : "no");
	setrlimit(RLIMIT_AS, &old);
	long sum = 0;
	for (long i = 0; i < 64; i++)
		if (!pthread_create(&t[i], NULL, quick, (void *)i))
			sum++;
	for (long i = 0; i < sum; i++) {
		void *r;
		pthread_join(t[i], &r);
	}
	printf("limit lifted: %ld of 64 threads\n", sum);
	return 0;
}
