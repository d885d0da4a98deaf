/* rwlock: reader/writer invariants, recursive read locks, the kinds, error
 * codes and timeouts of pthread_rwlock_*.  Deterministic output. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"


static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec t;
	clock_gettime(clk, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void init_kind(pthread_rwlock_t *l, int kind)
{
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, kind);
	pthread_rwlock_init(l, &a);
	pthread_rwlockattr_destroy(&a);
}

/* ---- 1. invariants under 8 threads ---- */
static pthread_rwlock_t L;
static atomic_int readers_in, writers_in, bad;
static long va, vb;
#define NTHR 8
#define ITER 20000

static void *mixer(void *arg)
{
	unsigned seed = (unsigned)(long)arg * 2654435761u + 1;
	for (int i = 0; i < ITER; i++) {
		seed = seed * 1103515245 + 12345;
		if ((seed >> 16) % 8 == 0) {
			pthread_rwlock_wrlock(&L);
			if (atomic_fetch_add(&writers_in, 1) != 0 || atomic_load(&readers_in) != 0)
				atomic_fetch_add(&bad, 1);
			va++;
			if ((i & 63) == 0)
				sched_yield();
			vb++;
			atomic_fetch_sub(&writers_in, 1);
			pthread_rwlock_unlock(&L);
		} else {
			pthread_rwlock_rdlock(&L);
			atomic_fetch_add(&readers_in, 1);
			if (atomic_load(&writers_in) != 0 || va != vb)
				atomic_fetch_add(&bad, 1);
			if ((i & 127) == 0)
				sched_yield();
			atomic_fetch_sub(&readers_in, 1);
			pthread_rwlock_unlock(&L);
		}
	}
	return NULL;
}

static void invariants(int kind)
{
	pthread_t t[NTHR];
	init_kind(&L, kind);
	va = vb = 0;
	atomic_store(&bad, 0);
	for (long i = 0; i < NTHR; i++)
		pthread_create(&t[i], NULL, mixer, (void *)i);
	for (int i = 0; i < NTHR; i++)
		pthread_join(t[i], NULL);
	/* The writes each thread did are fixed by its seed. */
	long expect = 0;
	for (long k = 0; k < NTHR; k++) {
		unsigned seed = (unsigned)k * 2654435761u + 1;
		for (int i = 0; i < ITER; i++) {
			seed = seed * 1103515245 + 12345;
			expect += (seed >> 16) % 8 == 0;
		}
	}
	printf("invariants kind %d: writes %s, a==b %s, violations %d\n", kind,
	       va == expect ? "all counted" : "LOST", va == vb ? "yes" : "no", atomic_load(&bad));
	pthread_rwlock_destroy(&L);
}

/* ---- helpers: a thread that takes a lock and reports ---- */
struct job {
	pthread_rwlock_t *l;
	int write;
	long timeout_ms;   /* 0: untimed */
	clockid_t clk;
	int clock_variant; /* use clock*lock */
	atomic_int state;  /* 1 acquired/returned */
	int result;
	long waited_ms;
	int hold_ms;       /* hold before unlocking */
	int *order;        /* append an id here when acquired */
	atomic_int *order_n;
	int id;
};

static void *locker(void *arg)
{
	struct job *j = arg;
	long t0 = now_ms();
	int r;
	if (j->timeout_ms) {
		struct timespec ts = in_ms(j->clk, j->timeout_ms);
		if (j->clock_variant)
			r = j->write ? pthread_rwlock_clockwrlock(j->l, j->clk, &ts)
				     : pthread_rwlock_clockrdlock(j->l, j->clk, &ts);
		else
			r = j->write ? pthread_rwlock_timedwrlock(j->l, &ts)
				     : pthread_rwlock_timedrdlock(j->l, &ts);
	} else {
		r = j->write ? pthread_rwlock_wrlock(j->l) : pthread_rwlock_rdlock(j->l);
	}
	j->waited_ms = now_ms() - t0;
	j->result = r;
	if (r == 0 && j->order)
		j->order[atomic_fetch_add(j->order_n, 1)] = j->id;
	atomic_store(&j->state, 1);
	if (r == 0) {
		if (j->hold_ms)
			usleep(j->hold_ms * 1000);
		pthread_rwlock_unlock(j->l);
	}
	return NULL;
}

static void wait_state(struct job *j)
{
	while (!atomic_load(&j->state))
		usleep(1000);
}

/* Wait until a writer is queued: natively we cannot see that, so give it
 * time; kind 2 also shows it through tryrdlock. */
static void settle(void)
{
	usleep(50 * 1000);
}

/* ---- 2. recursive read locks with a writer waiting (default kind) ---- */
static void recursive_read(pthread_rwlock_t *l, const char *name)
{
	pthread_t w;
	struct job wj = { .l = l, .write = 1 };
	int r1 = pthread_rwlock_rdlock(l);
	pthread_create(&w, NULL, locker, &wj);
	settle();
	int r2 = pthread_rwlock_rdlock(l);
	int r3 = pthread_rwlock_tryrdlock(l);
	printf("%s: rdlock %s, recursive rdlock with writer waiting %s, tryrdlock %s, writer in: %s\n",
	       name, en(r1), en(r2), en(r3), atomic_load(&wj.state) ? "yes" : "no");
	pthread_rwlock_unlock(l);
	pthread_rwlock_unlock(l);
	pthread_rwlock_unlock(l);
	pthread_join(w, NULL);
	printf("%s: writer got it after readers left: %s\n", name, en(wj.result));
}

/* ---- 3. preference: reader arriving while a reader holds and a writer waits ---- */
static void preference(int kind)
{
	pthread_rwlock_t l;
	init_kind(&l, kind);
	int order[2];
	atomic_int n = 0;
	struct job wj = { .l = &l, .write = 1, .order = order, .order_n = &n, .id = 'W' };
	struct job rj = { .l = &l, .write = 0, .order = order, .order_n = &n, .id = 'R',
			  .hold_ms = 0 };
	pthread_t w, r;
	pthread_rwlock_rdlock(&l);
	pthread_create(&w, NULL, locker, &wj);
	if (kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP) {
		/* The writer is queued once tryrdlock refuses. */
		int e;
		while ((e = pthread_rwlock_tryrdlock(&l)) == 0) {
			pthread_rwlock_unlock(&l);
			usleep(1000);
		}
		printf("kind %d: tryrdlock with a writer waiting: %s\n", kind, en(e));
	} else {
		settle();
	}
	pthread_create(&r, NULL, locker, &rj);
	if (kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP) {
		usleep(100 * 1000);
		printf("kind %d: new reader blocked behind the writer: %s\n", kind,
		       atomic_load(&rj.state) ? "no" : "yes");
	} else {
		wait_state(&rj);
		printf("kind %d: new reader entered while the writer waits: %s\n", kind,
		       en(rj.result));
	}
	pthread_rwlock_unlock(&l);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	printf("kind %d: order %c%c\n", kind, order[0], order[1]);
	pthread_rwlock_destroy(&l);
}

/* ---- 4. error codes ---- */
static void *try_both(void *arg)
{
	pthread_rwlock_t *l = arg;
	int a = pthread_rwlock_tryrdlock(l);
	if (a == 0)
		pthread_rwlock_unlock(l);
	int b = pthread_rwlock_trywrlock(l);
	if (b == 0)
		pthread_rwlock_unlock(l);
	printf("  other thread: tryrdlock %s, trywrlock %s\n", en(a), en(b));
	return NULL;
}

static void errors(void)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	pthread_t t;
	struct timespec ts = in_ms(CLOCK_REALTIME, 1000), bad = { 0, 1000000000 };
	struct timespec mts = in_ms(CLOCK_MONOTONIC, 1000);

	printf("errors, write-held by me:\n");
	printf("  wrlock %s\n", en(pthread_rwlock_wrlock(&l)));
	printf("  wrlock again %s\n", en(pthread_rwlock_wrlock(&l)));
	printf("  rdlock %s\n", en(pthread_rwlock_rdlock(&l)));
	printf("  trywrlock %s\n", en(pthread_rwlock_trywrlock(&l)));
	printf("  tryrdlock %s\n", en(pthread_rwlock_tryrdlock(&l)));
	printf("  timedwrlock %s\n", en(pthread_rwlock_timedwrlock(&l, &ts)));
	printf("  timedrdlock %s\n", en(pthread_rwlock_timedrdlock(&l, &ts)));
	printf("  clockwrlock mono %s\n", en(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &mts)));
	printf("  clockrdlock mono %s\n", en(pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &mts)));
	printf("  timedrdlock bad nsec %s\n", en(pthread_rwlock_timedrdlock(&l, &bad)));
	printf("  clockwrlock bad clock %s\n",
	       en(pthread_rwlock_clockwrlock(&l, CLOCK_PROCESS_CPUTIME_ID, &ts)));
	pthread_create(&t, NULL, try_both, &l);
	pthread_join(t, NULL);
	printf("  unlock %s\n", en(pthread_rwlock_unlock(&l)));

	printf("errors, read-held by me:\n");
	printf("  rdlock %s\n", en(pthread_rwlock_rdlock(&l)));
	printf("  trywrlock %s\n", en(pthread_rwlock_trywrlock(&l)));
	pthread_create(&t, NULL, try_both, &l);
	pthread_join(t, NULL);
	printf("  unlock %s\n", en(pthread_rwlock_unlock(&l)));

	printf("errors, free lock:\n");
	printf("  timedwrlock bad nsec %s\n", en(pthread_rwlock_timedwrlock(&l, &bad)));
	printf("  clockrdlock bad clock %s\n",
	       en(pthread_rwlock_clockrdlock(&l, 12345, &ts)));
	struct timespec past = { -1, 0 };
	int r = pthread_rwlock_timedwrlock(&l, &past);
	printf("  timedwrlock past deadline on a free lock %s\n", en(r));
	if (r == 0)
		pthread_rwlock_unlock(&l);
	printf("  trywrlock %s\n", en(pthread_rwlock_trywrlock(&l)));
	printf("  unlock %s\n", en(pthread_rwlock_unlock(&l)));
	printf("  destroy %s\n", en(pthread_rwlock_destroy(&l)));
}

/* ---- 5. timed variants timing out ---- */
static void timeouts(void)
{
	pthread_rwlock_t l;
	init_kind(&l, PTHREAD_RWLOCK_PREFER_READER_NP);
	struct { int write, clockv; clockid_t clk; const char *name; } v[] = {
		{ 0, 0, CLOCK_REALTIME, "timedrdlock" },
		{ 1, 0, CLOCK_REALTIME, "timedwrlock" },
		{ 0, 1, CLOCK_MONOTONIC, "clockrdlock mono" },
		{ 1, 1, CLOCK_MONOTONIC, "clockwrlock mono" },
		{ 0, 1, CLOCK_REALTIME, "clockrdlock realtime" },
		{ 1, 1, CLOCK_REALTIME, "clockwrlock realtime" },
	};
	pthread_rwlock_wrlock(&l);
	for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct job j = { .l = &l, .write = v[i].write, .timeout_ms = 60,
				 .clk = v[i].clk, .clock_variant = v[i].clockv };
		pthread_t t;
		pthread_create(&t, NULL, locker, &j);
		pthread_join(t, NULL);
		printf("timeout %s while write-held: %s, waited >= 50ms: %s\n", v[i].name,
		       en(j.result), j.waited_ms >= 50 ? "yes" : "no");
	}
	pthread_rwlock_unlock(&l);

	/* A writer times out while read-held; a past deadline too. */
	pthread_rwlock_rdlock(&l);
	struct job j = { .l = &l, .write = 1, .timeout_ms = 60, .clk = CLOCK_REALTIME };
	pthread_t t;
	pthread_create(&t, NULL, locker, &j);
	pthread_join(t, NULL);
	printf("timeout timedwrlock while read-held: %s\n", en(j.result));
	struct timespec past = { -1, 0 };
	printf("clockwrlock mono, negative deadline, read-held: %s\n",
	       en(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &past)));
	struct timespec zero = { 0, 0 };
	printf("clockwrlock mono, deadline 0, read-held: %s\n",
	       en(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &zero)));
	pthread_rwlock_unlock(&l);
	printf("wrlock after timeouts: %s\n", en(pthread_rwlock_trywrlock(&l)));
	pthread_rwlock_unlock(&l);

	/* Timed lock that succeeds once the holder lets go. */
	pthread_rwlock_wrlock(&l);
	struct job ok = { .l = &l, .write = 0, .timeout_ms = 5000, .clk = CLOCK_MONOTONIC,
			  .clock_variant = 1 };
	pthread_create(&t, NULL, locker, &ok);
	usleep(30 * 1000);
	pthread_rwlock_unlock(&l);
	pthread_join(t, NULL);
	printf("clockrdlock released in time: %s\n", en(ok.result));
	pthread_rwlock_destroy(&l);
}

/* ---- 6. kind 2: a writer that times out lets blocked readers in ---- */
static void writer_gives_up(void)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
	pthread_rwlock_rdlock(&l);
	struct job wj = { .l = &l, .write = 1, .timeout_ms = 150, .clk = CLOCK_REALTIME };
	struct job rj = { .l = &l, .write = 0 };
	pthread_t w, r;
	pthread_create(&w, NULL, locker, &wj);
	while (pthread_rwlock_tryrdlock(&l) == 0) {
		pthread_rwlock_unlock(&l);
		usleep(1000);
	}
	pthread_create(&r, NULL, locker, &rj);
	pthread_join(w, NULL);
	wait_state(&rj); /* with the first read lock still held */
	printf("kind 2: writer %s, then the blocked reader got in: %s\n", en(wj.result),
	       en(rj.result));
	pthread_join(r, NULL);
	pthread_rwlock_unlock(&l);
	printf("kind 2: trywrlock afterwards %s\n", en(pthread_rwlock_trywrlock(&l)));
	pthread_rwlock_unlock(&l);
}

/* ---- 7. many writers and readers queued on one lock ---- */
static void queue_drain(void)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	struct job j[12];
	pthread_t t[12];
	pthread_rwlock_wrlock(&l);
	for (int i = 0; i < 12; i++) {
		j[i] = (struct job){ .l = &l, .write = i % 3 == 0, .hold_ms = 1 };
		pthread_create(&t[i], NULL, locker, &j[i]);
	}
	settle();
	pthread_rwlock_unlock(&l);
	int ok = 0;
	for (int i = 0; i < 12; i++) {
		pthread_join(t[i], NULL);
		ok += j[i].result == 0;
	}
	printf("queued 4 writers + 8 readers all got the lock: %d/12\n", ok);
}

/* ---- 8. too many readers ---- */
static void too_many_readers(void)
{
	static pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	unsigned long n = 0;
	int r;
	while ((r = pthread_rwlock_tryrdlock(&l)) == 0)
		n++;
	printf("tryrdlock failed after %lu readers: %s\n", n, en(r));
	printf("rdlock then: %s\n", en(pthread_rwlock_rdlock(&l)));
	int u = pthread_rwlock_unlock(&l);
	r = pthread_rwlock_rdlock(&l);
	printf("unlock one: %s, rdlock: %s\n", en(u), en(r));
	printf("trywrlock: %s\n", en(pthread_rwlock_trywrlock(&l)));
	/* The lock is left read-held: nothing else uses it. */
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);

	pthread_rwlock_t s0 = PTHREAD_RWLOCK_INITIALIZER;
	pthread_rwlock_t s2 = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
	int a = pthread_rwlock_rdlock(&s0);
	pthread_rwlock_unlock(&s0);
	int b = pthread_rwlock_wrlock(&s0);
	int c = pthread_rwlock_wrlock(&s2);
	printf("static initialisers: rd %s, wr after unlock %s, kind 2 wr %s\n", en(a), en(b), en(c));
	pthread_rwlock_unlock(&s0);
	pthread_rwlock_unlock(&s2);

	invariants(PTHREAD_RWLOCK_PREFER_READER_NP);
	invariants(PTHREAD_RWLOCK_PREFER_WRITER_NP);
	invariants(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);

	pthread_rwlock_t rl = PTHREAD_RWLOCK_INITIALIZER;
	recursive_read(&rl, "default kind");
	pthread_rwlock_t rl1;
	init_kind(&rl1, PTHREAD_RWLOCK_PREFER_WRITER_NP);
	recursive_read(&rl1, "kind 1");

	preference(PTHREAD_RWLOCK_PREFER_READER_NP);
	preference(PTHREAD_RWLOCK_PREFER_WRITER_NP);
	preference(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);

	errors();
	timeouts();
	writer_gives_up();
	queue_drain();
	too_many_readers();
	printf("done\n");
	return 0;
}
