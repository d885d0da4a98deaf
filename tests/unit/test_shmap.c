/*
 * test_shmap.c — the table of shared ranges (sched/process/shmap.c): what mmap,
 * munmap, mremap and shmdt make of it (splits, trims, moves), a full table
 * falling to "everything shared", and readers that never see a range
 * another thread is not changing come and go.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "stubs.h"
#include "sched/process/shmap.h"

#define PG 4096ul
#define A(page) ((void *)(0x10000000ul + (page) * PG))

static bool sh(unsigned long page)
{
	return wt_shmap_shared((char *)A(page) + 8);
}

static void setup(void)
{
	stub_reset(1);
}

TestSuite(shmap, .init = setup);

Test(shmap, nothing_mapped_shared_is_private)
{
	cr_assert_not(sh(0));
	cr_assert_not(wt_shmap_shared(&(int){0}));
	wt_shmap_mmap(A(0), 4 * PG, MAP_PRIVATE | MAP_ANONYMOUS);
	cr_assert_not(sh(0));
}

Test(shmap, mmap_shared_then_munmap_of_the_middle_splits)
{
	wt_shmap_mmap(A(10), 10 * PG, MAP_SHARED);
	cr_assert(sh(10) && sh(19));
	cr_assert_not(sh(9) || sh(20));
	wt_shmap_munmap(A(13), 2 * PG);
	cr_assert(sh(12) && sh(15));
	cr_assert_not(sh(13) || sh(14));
	/* A private mapping over the start, then the end trimmed. */
	wt_shmap_mmap(A(9), 2 * PG, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS);
	cr_assert_not(sh(9) || sh(10));
	cr_assert(sh(11));
	wt_shmap_munmap(A(18), 10 * PG);
	cr_assert(sh(17));
	cr_assert_not(sh(18) || sh(19));
	/* One call across several ranges and the gaps between. */
	wt_shmap_mmap(A(30), PG, MAP_SHARED_VALIDATE);
	wt_shmap_munmap(A(0), 100 * PG);
	for (int p = 0; p < 100; p++)
		cr_assert_not(sh(p), "page %d", p);
}

Test(shmap, a_length_short_of_a_page_covers_the_page)
{
	wt_shmap_mmap(A(5), 100, MAP_SHARED | MAP_ANONYMOUS);
	cr_assert(wt_shmap_shared((char *)A(5) + PG - 4));
	cr_assert_not(sh(6));
}

Test(shmap, mremap_moves_a_shared_range_and_not_a_private_one)
{
	wt_shmap_mmap(A(40), 2 * PG, MAP_SHARED);
	wt_shmap_mremap(A(40), 2 * PG, A(60), 4 * PG, MREMAP_MAYMOVE);
	cr_assert_not(sh(40) || sh(41));
	cr_assert(sh(60) && sh(63));
	/* Grown in place. */
	wt_shmap_mremap(A(60), 4 * PG, A(60), 6 * PG, 0);
	cr_assert(sh(65));
	/* An old size of 0 duplicates: both stay. */
	wt_shmap_mremap(A(60), 0, A(80), PG, MREMAP_MAYMOVE);
	cr_assert(sh(60) && sh(80));
	/* A private mapping moved onto shared pages makes them private. */
	wt_shmap_mremap(A(0), PG, A(80), PG, MREMAP_MAYMOVE | MREMAP_FIXED);
	cr_assert_not(sh(80));
}

Test(shmap, shmdt_takes_the_range_that_starts_there)
{
	wt_shmap_mmap(A(7), 3 * PG, MAP_SHARED); /* as shmat with a known size */
	wt_shmap_shmdt(A(8));                   /* not a segment's start: nothing */
	cr_assert(sh(8));
	wt_shmap_shmdt(A(7));
	cr_assert_not(sh(7) || sh(8) || sh(9));
}

Test(shmap, a_full_table_makes_everything_shared)
{
	/* Every other page: no two ranges touch. */
	for (unsigned long i = 0; i < 4096; i++)
		wt_shmap_mmap(A(2 * i), PG, MAP_SHARED);
	cr_assert(sh(0) && sh(8190));
	cr_assert_not(sh(1) || sh(8191));
	wt_shmap_mmap(A(9000), PG, MAP_SHARED); /* one more than it holds */
	cr_assert(sh(1) && sh(9000));
	cr_assert(wt_shmap_shared(&(int){0}));
}

/* Readers against a writer that maps and unmaps other ranges without
 * pause: a page that stays shared never reads private (a reader the writer
 * keeps from a quiet moment answers shared, the kernel's side, so a page
 * never shared may read shared meanwhile, and reads private after). */
static atomic_bool stop;

static void *churn(void *a)
{
	for (unsigned long i = 0; !atomic_load(&stop); i++) {
		unsigned long p = 200 + (i * 7) % 300;
		if (p >= 331 && p <= 333) /* up to three pages from p */
			continue;
		wt_shmap_mmap(A(p), (1 + i % 3) * PG, MAP_SHARED);
		if (i % 2)
			wt_shmap_munmap(A(p + 1), PG);
	}
	return a;
}

Test(shmap, readers_see_no_torn_table)
{
	wt_shmap_mmap(A(100), PG, MAP_SHARED);
	pthread_t w;
	pthread_create(&w, NULL, churn, NULL);
	long bad = 0;
	for (int i = 0; i < 300000; i++)
		bad += !sh(100);
	atomic_store(&stop, true);
	pthread_join(w, NULL);
	cr_assert_eq(bad, 0);
	cr_assert_not(sh(150) || sh(333));
	cr_assert(sh(100));
}
