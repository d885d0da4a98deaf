/*
 * test_unjoined.c — the table of exited, unjoined tasks by pthread_t
 * (sched/unjoined.c): chains that share a bucket, removal from the middle
 * of one, and the pages an empty table gives back.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "stubs.h"
#include "sched/unjoined.h"
#include "tests/preload/test_util.h"

static struct wt_task t[4096];

static void setup(void)
{
	stub_reset(1);
}

TestSuite(unjoined, .init = setup);

Test(unjoined, finds_each_task_by_its_pthread_t_until_removed)
{
	cr_assert_null(wt_unjoined_find(0x1000));
	/* 4096 keys 64 bytes apart: many share a bucket of the 2^16. */
	for (int i = 0; i < 4096; i++) {
		memset(&t[i], 0, sizeof t[i]);
		t[i].tp = 0x7f0000000000ul + (uintptr_t)i * 64 * 997;
		cr_assert(wt_unjoined_add(&t[i]));
	}
	for (int i = 0; i < 4096; i++)
		cr_assert_eq(wt_unjoined_find(t[i].tp), &t[i], "task %d", i);
	cr_assert_null(wt_unjoined_find(t[0].tp + 64 * 998));
	for (int i = 0; i < 4096; i += 2)
		wt_unjoined_del(&t[i]);
	for (int i = 0; i < 4096; i++)
		cr_assert_eq(wt_unjoined_find(t[i].tp), i % 2 ? &t[i] : NULL, "task %d", i);
	for (int i = 1; i < 4096; i += 2)
		wt_unjoined_del(&t[i]);
	for (int i = 0; i < 4096; i++)
		cr_assert_null(wt_unjoined_find(t[i].tp));
}

Test(unjoined, an_empty_table_gives_its_pages_back_and_is_used_again)
{
	/* 4096 keys write every page of the 512 KiB of buckets. */
	for (int i = 0; i < 4096; i++) {
		memset(&t[i], 0, sizeof t[i]);
		t[i].tp = 0x7f0000000000ul + (uintptr_t)i * 64 * 997;
	}
	long before = status_kb("VmRSS");
	for (int i = 0; i < 4096; i++)
		cr_assert(wt_unjoined_add(&t[i]));
	long full = status_kb("VmRSS");
	cr_assert_geq(full - before, 400, "buckets written: %ld -> %ld kB", before, full);
	int64_t s = 1000000000ll;
	wt_unjoined_scavenge(s); /* not empty: nothing */
	for (int i = 0; i < 4096; i++)
		wt_unjoined_del(&t[i]);
	wt_unjoined_scavenge(2 * s);     /* empty since now */
	wt_unjoined_scavenge(2 * s + 1); /* not a second yet */
	cr_assert_geq(status_kb("VmRSS"), full - 64, "kept for a second");
	wt_unjoined_scavenge(3 * s + 1); /* given back */
	cr_assert_leq(status_kb("VmRSS"), full - 400, "given back: %ld -> %ld kB", full, status_kb("VmRSS"));
	for (int i = 0; i < 4096; i++)
		cr_assert_null(wt_unjoined_find(t[i].tp));
	for (int i = 0; i < 4096; i++)
		cr_assert(wt_unjoined_add(&t[i]));
	for (int i = 0; i < 4096; i++)
		cr_assert_eq(wt_unjoined_find(t[i].tp), &t[i]);
}
