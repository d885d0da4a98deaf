/* Robust lists a thread registers itself with set_robust_list and leaves
 * broken when it exits: the kernel's walk reads them with get_user,
 * stopping at the first word it cannot read or lock word it cannot
 * write, and at 2048 entries.  Lists here: one that runs into an unmapped
 * page, a cycle that never comes back to the head (stress-ng's pthread
 * stressor registers a head in a frame it then returns from, whose words
 * become anything), and one whose second lock word lies in a read-only
 * page, and one whose link is an address no process can map (on x86_64 a
 * non-canonical one, whose fault reports no address).  Each thread holds some lock words (its id in them); the words
 * the walk reached are marked FUTEX_OWNER_DIED, the others keep the id.
 * Many threads exit through the cycle, each walk going to the bound.
 * Printed lines are the same natively and under weft. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

struct entry {
	struct entry *next;
	uint32_t lock;
};

struct head {
	struct entry *next;
	long futex_offset;
	struct entry *pending;
};

static char *pages;          /* page 0: entries; page 1: unmapped; page 2: read-only */
static long psz;
static __thread struct head own; /* each thread's, registered with the kernel */

enum { UNMAPPED, CYCLE, READONLY, NONCANONICAL };

static struct entry *at(int page, int i)
{
	return (struct entry *)(pages + page * psz) + i;
}

static _Atomic uint32_t readonly_holder;

static void *exits_with_list(void *arg)
{
	int kind = (int)(intptr_t)arg;
	uint32_t tid = (uint32_t)gettid();
	own.futex_offset = offsetof(struct entry, lock);
	own.pending = NULL;
	struct entry *a = at(0, 2 * kind), *b = at(0, 2 * kind + 1), *r = at(2, 0);
	a->lock = tid;
	own.next = a;
	switch (kind) {
	case UNMAPPED: /* a -> (unmapped page) */
		a->next = at(1, 0);
		break;
	case CYCLE: /* a -> b -> a, never back to the head */
		a->next = b;
		b->next = a;
		b->lock = tid + 1;
		break;
	case READONLY: /* a -> r (held, read-only) -> head */
		r->lock = tid;
		r->next = (struct entry *)&own;
		readonly_holder = tid;
		mprotect(pages + 2 * psz, psz, PROT_READ);
		a->next = r;
		break;
	case NONCANONICAL: /* a -> (an address outside user space) */
		a->next = (struct entry *)0xdead000000000000ul;
		break;
	}
	syscall(SYS_set_robust_list, &own, sizeof own);
	return NULL;
}

static const char *marked(uint32_t w)
{
	return w == FUTEX_OWNER_DIED ? "owner died" : "not marked";
}

int main(void)
{
	weft_check_loaded();
	/* qemu-user walks no robust list at a thread's exit: under it the
	 * reference is robust_user.expected, this output on Linux. */
	if (emulated() && !weft_loaded()) {
		printf("SKIP-NATIVE\n");
		return 0;
	}
	psz = sysconf(_SC_PAGESIZE);
	pages = mmap(NULL, 3 * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		return 1;
	munmap(pages + psz, psz);

	pthread_t th;
	for (int kind = UNMAPPED; kind <= NONCANONICAL; kind++) {
		if (pthread_create(&th, NULL, exits_with_list, (void *)(intptr_t)kind) != 0)
			return 1;
		pthread_join(th, NULL);
	}
	/* Each first word held: marked.  The cycle's second, another id's:
	 * left.  The read-only word: not writable, still the holder's, and
	 * the walk stopped there. */
	printf("unmapped: first word %s\n", marked(at(0, 0)->lock));
	printf("cycle: first word %s, second word %s\n", marked(at(0, 2)->lock),
	       at(0, 3)->lock == FUTEX_OWNER_DIED ? "owner died" : "left");
	printf("read-only: first word %s, read-only word %s\n", marked(at(0, 4)->lock),
	       at(2, 0)->lock == readonly_holder ? "still held" : "changed");
	printf("outside user space: first word %s\n", marked(at(0, 6)->lock));

	/* Many exits through the cycle: each walk goes to the bound. */
	int n = 0;
	for (int i = 0; i < 400; i++) {
		if (pthread_create(&th, NULL, exits_with_list, (void *)(intptr_t)CYCLE) != 0)
			break;
		pthread_join(th, NULL);
		n += at(0, 2)->lock == FUTEX_OWNER_DIED;
	}
	printf("cycle exits: %d of 400 marked\n", n);
	return 0;
}
