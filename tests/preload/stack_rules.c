/* The stack a thread is given and the one pthread_getattr_np reports
 * (sched/stack/stack.c's rules), checked against what glibc promises:
 *  - pthread_attr_setstack: the thread runs on exactly the given memory,
 *    down to PTHREAD_STACK_MIN, its locals inside it; reported as given,
 *    with no guard;
 *  - pthread_attr_setstacksize / setguardsize: reported as asked, the
 *    block page-aligned with the thread's locals inside, every page of it
 *    writable, and (guard > 0) the page under it not accessible;
 *  - main: its locals inside the reported stack, no guard reported;
 *  - a guard zone the program makes inside the reported stack (as a JVM
 *    does: mprotect at its bottom) stops a recursion there with SIGSEGV,
 *    caught on the thread's sigaltstack; the zone is left PROT_NONE (as a
 *    JVM leaves it), and threads created afterwards recurse deep as usual.
 * Accessibility is asked of the kernel (write(2) from the address into a
 * pipe: EFAULT when not accessible), never by touching.  Sizes stay at or
 * under 1 MiB: glibc's stack cache gives a bigger cached stack (and reports
 * it) to a request of a quarter of its size or more. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "weft_check.h"

#define PAGE 4096ul
static int pfd[2];

static int accessible(const void *p)
{
	char c;
	if (write(pfd[1], p, 1) != 1)
		return errno == EFAULT ? 0 : -1;
	if (read(pfd[0], &c, 1) != 1)
		return -1;
	return 1;
}

struct seen {
	char *addr;
	size_t size, guard;
	int inside, aligned, writable, below;
};

/* What the running thread's own attributes say, checked against a local. */
static void look(struct seen *s, int probe)
{
	volatile char local[64];
	pthread_attr_t a;
	local[0] = 1;
	if (pthread_getattr_np(pthread_self(), &a) != 0) {
		memset(s, 0, sizeof *s);
		return;
	}
	void *addr;
	pthread_attr_getstack(&a, &addr, &s->size);
	pthread_attr_getguardsize(&a, &s->guard);
	pthread_attr_destroy(&a);
	s->addr = addr;
	char *lo = addr, *hi = lo + s->size;
	s->inside = (char *)local > lo && (char *)local < hi;
	s->aligned = ((uintptr_t)lo % PAGE) == 0 && ((uintptr_t)hi % PAGE) == 0;
	s->writable = 1;
	s->below = -1;
	if (!probe)
		return;
	/* Every page from the bottom up to 8 KiB under this frame. */
	for (volatile char *p = (volatile char *)lo; p + 8192 < local; p += PAGE) {
		*p = 1;
		s->writable &= *p == 1;
	}
	s->below = accessible(lo - 1);
}

static void *run_look(void *arg)
{
	look(arg, 1);
	return NULL;
}

static void sized(const char *what, size_t size, long guard)
{
	pthread_attr_t a;
	pthread_t th;
	struct seen s;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, size);
	if (guard >= 0)
		pthread_attr_setguardsize(&a, (size_t)guard);
	int r = pthread_create(&th, &a, run_look, &s);
	pthread_attr_destroy(&a);
	if (r) {
		printf("%s: create %s\n", what, strerror(r));
		return;
	}
	pthread_join(th, NULL);
	printf("%s: size %zuK guard %zu locals inside %d aligned %d writable %d", what,
	       s.size >> 10, s.guard, s.inside, s.aligned, s.writable);
	if (guard != 0) /* with no guard, whatever lies under it */
		printf(" under it %s", s.below == 0 ? "not accessible" : s.below == 1 ? "accessible" : "?");
	printf("\n");
}

/* A stack the program gives. */
static void *on_given(void *arg)
{
	struct seen *s = arg;
	volatile char big[8192]; /* half of a 16 KiB stack */
	memset((char *)big, 7, sizeof big);
	look(s, 0);
	s->writable = big[0] == 7 && big[sizeof big - 1] == 7;
	s->below = (char *)big >= s->addr && (char *)big + sizeof big <= s->addr + s->size;
	return NULL;
}

static void given(size_t size)
{
	char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_attr_t a;
	pthread_t th;
	struct seen s;
	memset(&s, 0, sizeof s);
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, mem, size);
	int r = pthread_create(&th, &a, on_given, &s);
	pthread_attr_destroy(&a);
	if (r) {
		printf("given %zuK: create %s\n", size >> 10, strerror(r));
		return;
	}
	pthread_join(th, NULL);
	printf("given %zuK: reported as given %d guard %zu locals inside %d buffer inside %d ok %d\n",
	       size >> 10, s.addr == mem && s.size == size, s.guard, s.inside, (int)s.below,
	       s.writable);
	munmap(mem, size);
}

/* A guard zone of the program's own at the bottom of the reported stack. */
static sigjmp_buf back;
static char *zone_lo, *zone_hi;
static volatile sig_atomic_t in_zone, on_alt;
static char altstack[64 << 10];

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	char here;
	in_zone = (char *)si->si_addr >= zone_lo && (char *)si->si_addr < zone_hi;
	on_alt = &here >= altstack && &here < altstack + sizeof altstack;
	siglongjmp(back, 1);
}

static long recurse(long n)
{
	volatile char frame[1024];
	frame[0] = (char)n;
	return n <= 0 ? 0 : recurse(n - 1) + frame[0];
}

static void *zoned(void *arg)
{
	(void)arg;
	struct seen s;
	look(&s, 0);
	zone_lo = s.addr + s.guard;
	zone_hi = zone_lo + 3 * PAGE;
	int mp = mprotect(zone_lo, 3 * PAGE, PROT_NONE);
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	int caught = 0;
	if (mp == 0 && sigsetjmp(back, 1) == 0)
		recurse(100000); /* 100 MB: far deeper than the stack */
	else
		caught = 1;
	signal(SIGSEGV, SIG_DFL);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	printf("program guard zone: mprotect %d, overflow caught %d, in the zone %d, "
	       "on the sigaltstack %d\n", mp, caught, (int)in_zone, (int)on_alt);
	return NULL; /* the zone stays PROT_NONE, as a JVM leaves it */
}

static void *deep(void *arg)
{
	return (void *)recurse((long)arg);
}

int main(void)
{
	weft_check_loaded();
	if (pipe(pfd))
		return 1;
	struct seen m;
	look(&m, 0);
	printf("main: locals inside %d guard %zu top aligned %d\n", m.inside, m.guard,
	       ((uintptr_t)(m.addr + m.size) % PAGE) == 0);

	struct rlimit rl;
	getrlimit(RLIMIT_STACK, &rl);
	pthread_t th;
	struct seen d;
	pthread_create(&th, NULL, run_look, &d);
	pthread_join(th, NULL);
	printf("default: size is RLIMIT_STACK %d guard %zu locals inside %d aligned %d "
	       "writable %d\n", rl.rlim_cur == RLIM_INFINITY || d.size == rl.rlim_cur, d.guard,
	       d.inside, d.aligned, d.writable);

	sized("16K", PTHREAD_STACK_MIN, -1);
	sized("64K guard 0", 64 << 10, 0);
	sized("1M", 1 << 20, -1);
	sized("1M guard 64K", 1 << 20, 64 << 10);

	given(PTHREAD_STACK_MIN);
	given(64 << 10);

	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 << 10);
	pthread_attr_setguardsize(&a, 0);
	pthread_create(&th, &a, zoned, NULL);
	pthread_join(th, NULL);
	pthread_attr_destroy(&a);

	/* 2 MiB deep, in threads made after the zone was left behind. */
	long want = recurse(2000), ok = 0;
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_create(&th, NULL, deep, (void *)2000L);
		pthread_join(th, &r);
		ok += (long)r == want;
	}
	printf("deep threads afterwards: %ld of 4\n", ok);
	return 0;
}
