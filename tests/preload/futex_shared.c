/*
 * futex_shared: futex operations made through syscall() behave as the
 * kernel's.  A futex without FUTEX_PRIVATE_FLAG on MAP_SHARED memory is
 * shared with a forked child: its waits and wakes meet the other process's
 * (a round trip per wake, a wake's count of waiters woken, requeue and
 * wake-op across processes).  Private requeue, compare-requeue and wake-op
 * reach waiters that are threads of this process.
 * Every loop is bounded by alarm(8): natively all of it takes well under a
 * second.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "weft_check.h"
#include "pshared_util.h"

#define TRIPS 2000
#define WAKES 200

struct shm {
	_Atomic int turn;  /* ping-pong: odd = the child's move */
	_Atomic int wq;    /* the child waits here for counted wakes */
	_Atomic int rq1, rq2; /* requeue / wake-op words */
	_Atomic int ready;
};

static void wait_shared(_Atomic int *w, int val)
{
	while (atomic_load(w) == val)
		sfutex(w, FUTEX_WAIT, val, 0, NULL, 0);
}

static int child(struct shm *s)
{
	/* Ping-pong: wait for an odd turn, make it even. */
	for (int i = 0; i < TRIPS; i++) {
		wait_shared(&s->turn, 2 * i);
		atomic_store(&s->turn, 2 * i + 2);
		sfutex(&s->turn, FUTEX_WAKE, 1, 0, NULL, 0);
	}
	/* Counted wakes: each wait ends by the parent's wake. */
	int woken = 0;
	while (woken < WAKES) {
		long r = sfutex(&s->wq, FUTEX_WAIT, 0, 0, NULL, 0);
		if (r == 0)
			woken++;
	}
	/* Woken by a shared compare-requeue, then by a shared wake-op. */
	long r1, r2;
	do
		r1 = sfutex(&s->rq1, FUTEX_WAIT, 0, 0, NULL, 0);
	while (r1 != 0);
	do
		r2 = sfutex(&s->rq1, FUTEX_WAIT, 0, 0, NULL, 0);
	while (r2 != 0);
	return woken == WAKES ? 0 : 1;
}

/* Private operations, waiters that are threads of this process.  Round k's
 * waiter waits on pw[k] until done[k] (a requeued waiter may be woken on the
 * target word instead: futex users re-check their condition). */
static _Atomic int pw[3], target, done[3], exited[3];

static void *private_waiter(void *arg)
{
	int k = (int)(long)arg;
	while (!atomic_load(&done[k]))
		sfutex(&pw[k], FUTEX_WAIT_PRIVATE, 0, 0, NULL, 0);
	atomic_store(&exited[k], 1);
	return NULL;
}

static long p_cmp_requeue(void)
{
	return sfutex(&pw[0], FUTEX_CMP_REQUEUE_PRIVATE, 0, 1, &target, 0);
}
static long p_requeue(void)
{
	return sfutex(&pw[1], FUTEX_REQUEUE_PRIVATE, 1, 0, &target, 0);
}
static long p_wake_op(void)
{
	return sfutex(&pw[2], FUTEX_WAKE_OP_PRIVATE, 1, 1, &target,
		      FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, -99));
}

static long until_one(long (*op)(void))
{
	long r;
	while ((r = op()) == 0)
		sched_yield();
	return r;
}

static void private_round(int k, const char *name, long (*op)(void))
{
	pthread_t th;
	pthread_create(&th, NULL, private_waiter, (void *)(long)k);
	printf("private %s: %ld\n", name, until_one(op));
	atomic_store(&done[k], 1);
	while (!atomic_load(&exited[k])) {
		sfutex(&pw[k], FUTEX_WAKE_PRIVATE, 1, 0, NULL, 0);
		sfutex(&target, FUTEX_WAKE_PRIVATE, 1, 0, NULL, 0);
		sched_yield();
	}
	pthread_join(th, NULL);
}

static struct shm *S;
static long s_cmp_requeue(void)
{
	return sfutex(&S->rq1, FUTEX_CMP_REQUEUE, 1, 0, &S->rq2, 0);
}
static long s_wake_op(void)
{
	return sfutex(&S->rq1, FUTEX_WAKE_OP, 1, 0, &S->rq2,
		      FUTEX_OP(FUTEX_OP_SET, 7, FUTEX_OP_CMP_EQ, 0));
}

int main(void)
{
	weft_check_loaded();
	alarm(8);
	setvbuf(stdout, NULL, _IONBF, 0);

	/* Private: the requeue family and wake-op reach a waiting thread. */
	errno = 0;
	long r = sfutex(&pw[0], FUTEX_CMP_REQUEUE_PRIVATE, 0, 1, &target, 5);
	printf("private cmp_requeue, word differs: %ld %s\n", r, errno == EAGAIN ? "EAGAIN" : "?");
	private_round(0, "cmp_requeue", p_cmp_requeue);
	private_round(1, "requeue", p_requeue);
	atomic_store(&target, 0);
	private_round(2, "wake_op", p_wake_op);
	printf("wake_op applied: %s\n", atomic_load(&target) > 0 ? "yes" : "no");

	/* Shared, with a forked child. */
	struct shm *s = S = shared_page(4096);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(s));
	for (int i = 0; i < TRIPS; i++) {
		atomic_store(&s->turn, 2 * i + 1);
		sfutex(&s->turn, FUTEX_WAKE, 1, 0, NULL, 0);
		wait_shared(&s->turn, 2 * i + 1);
	}
	printf("round trips: %d\n", TRIPS);
	int counted = 0;
	for (int i = 0; i < WAKES; i++) {
		long n;
		while ((n = sfutex(&s->wq, FUTEX_WAKE, 1, 0, NULL, 0)) == 0)
			sched_yield();
		counted += (int)n;
	}
	printf("wakes that woke the child: %d\n", counted);
	printf("shared cmp_requeue: %ld\n", until_one(s_cmp_requeue));
	printf("shared wake_op: %ld\n", until_one(s_wake_op));
	printf("wake_op's word: %d\n", atomic_load(&s->rq2));
	printf("child: %d\n", reap(pid));
	return 0;
}
