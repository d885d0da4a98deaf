/*
 * test_slab.c — runtime objects (sched/base/slab.c): a trimmed slab hands
 * objects back zeroed, and returns the pages its free objects wholly cover
 * once the free count stood still for a second.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "stubs.h"
#include "sched/base/slab.h"

#define NOBJ 2000
#define SIZE 424

static struct wt_slab slab = WT_SLAB_INIT_TRIMMED(SIZE);
static char *obj[NOBJ];

Test(slab, trimmed_slab_returns_pages_of_free_objects)
{
	for (int i = 0; i < NOBJ; i++) {
		obj[i] = wt_slab_alloc(&slab);
		cr_assert_not_null(obj[i]);
		memset(obj[i], 0x5a, SIZE);
	}
	/* All but one in the middle are freed: the pages around it stay. */
	for (int i = 0; i < NOBJ; i++)
		if (i != NOBJ / 2)
			wt_slab_free(&slab, obj[i]);
	int64_t t = 5000000000ll;
	wt_slab_trim(&slab, t);
	wt_slab_trim(&slab, t + 500000000ll);
	cr_assert_eq(obj[10][SIZE - 1], 0x5a, "not before a quiet second");
	wt_slab_trim(&slab, t + 1500000000ll);
	cr_assert_eq(obj[10][SIZE - 1], 0, "a page of free objects went back");
	cr_assert_eq(obj[NOBJ / 2][0], 0x5a, "the object in use is untouched");
	cr_assert_eq(obj[NOBJ / 2][SIZE - 1], 0x5a);
	/* Taken again: zeroed, every one of them once. */
	for (int i = 0; i < NOBJ - 1; i++) {
		char *p = wt_slab_alloc(&slab);
		cr_assert_not_null(p);
		for (int j = 0; j < SIZE; j++)
			cr_assert_eq(p[j], 0);
		memset(p, 1, SIZE);
	}
	cr_assert_eq(obj[NOBJ / 2][0], 0x5a, "never handed out twice");
}
