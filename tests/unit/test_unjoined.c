/*
 * test_unjoined.c — the table of exited, unjoined tasks' small records by
 * pthread_t (sched/core/unjoined.c): chains that share a bucket, removal from
 * the middle of one, and the pages an empty table gives back.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "stubs.h"
#include "sched/core/unjoined.h"
#include "tests/preload/test_util.h"

static struct wt_unjoined u[4096];

static void setup(void)
{
	stub_reset(1);
}

TestSuite(unjoined, .init = setup);

static bool has(uintptr_t tp)
{
	struct wt_unjoined c;
	return wt_unjoined_find(tp, &c) && c.tp == tp;
}

Test(unjoined, finds_each_record_by_its_pthread_t_until_taken)
{
	cr_assert_not(has(0x1000));
	cr_assert_null(wt_unjoined_take(0x1000));
	/* 4096 keys 64 bytes apart: many share a bucket of the 2^14. */
	for (int i = 0; i < 4096; i++) {
		memset(&u[i], 0, sizeof u[i]);
		u[i].tp = 0x7f0000000000ul + (uintptr_t)i * 64 * 997;
		u[i].retval = &u[i];
		cr_assert(wt_unjoined_add(&u[i]));
	}
	for (int i = 0; i < 4096; i++) {
		struct wt_unjoined c;
		cr_assert(wt_unjoined_find(u[i].tp, &c), "record %d", i);
		cr_assert_eq(c.retval, &u[i]);
	}
	cr_assert_not(has(u[0].tp + 64 * 998));
	for (int i = 0; i < 4096; i += 2)
		cr_assert_eq(wt_unjoined_take(u[i].tp), &u[i]);
	for (int i = 0; i < 4096; i++)
		cr_assert_eq(has(u[i].tp), i % 2 == 1, "record %d", i);
	cr_assert_null(wt_unjoined_take(u[0].tp), "taken once only");
	for (int i = 1; i < 4096; i += 2)
		cr_assert_eq(wt_unjoined_take(u[i].tp), &u[i]);
	for (int i = 0; i < 4096; i++)
		cr_assert_not(has(u[i].tp));
}

Test(unjoined, a_find_copies_the_record)
{
	memset(&u[0], 0, sizeof u[0]);
	u[0].tp = 0x7f0000001000ul;
	u[0].retval = (void *)7;
	u[0].stack_size = 1 << 20;
	cr_assert(wt_unjoined_add(&u[0]));
	cr_assert_not(has(u[0].tp + 64));
	struct wt_unjoined c;
	cr_assert(wt_unjoined_find(u[0].tp, &c));
	cr_assert_eq(c.retval, (void *)7);
	cr_assert_eq(c.stack_size, 1 << 20);
	cr_assert_eq(wt_unjoined_take(u[0].tp), &u[0]);
}

Test(unjoined, an_empty_table_gives_its_pages_back_and_is_used_again)
{
	/* 4096 keys write every page of the 128 KiB of buckets. */
	for (int i = 0; i < 4096; i++) {
		memset(&u[i], 0, sizeof u[i]);
		u[i].tp = 0x7f0000000000ul + (uintptr_t)i * 64 * 997;
	}
	long before = status_kb("VmRSS");
	for (int i = 0; i < 4096; i++)
		cr_assert(wt_unjoined_add(&u[i]));
	long full = status_kb("VmRSS");
	cr_assert_geq(full - before, 100, "buckets written: %ld -> %ld kB", before, full);
	int64_t s = 1000000000ll;
	wt_unjoined_scavenge(s); /* not empty: nothing */
	for (int i = 0; i < 4096; i++)
		cr_assert_eq(wt_unjoined_take(u[i].tp), &u[i]);
	wt_unjoined_scavenge(2 * s);     /* empty since now */
	wt_unjoined_scavenge(2 * s + 1); /* not a second yet */
	cr_assert_geq(status_kb("VmRSS"), full - 32, "kept for a second");
	wt_unjoined_scavenge(3 * s + 1); /* given back */
	cr_assert_leq(status_kb("VmRSS"), full - 100, "given back: %ld -> %ld kB", full, status_kb("VmRSS"));
	for (int i = 0; i < 4096; i++)
		cr_assert_not(has(u[i].tp));
	for (int i = 0; i < 4096; i++)
		cr_assert(wt_unjoined_add(&u[i]));
	for (int i = 0; i < 4096; i++)
		cr_assert(has(u[i].tp));
}
