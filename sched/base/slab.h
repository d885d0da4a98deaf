/*
 * slab.h — fixed-size runtime objects from mmap'd chunks (slab.c), never
 * the program's malloc.
 */
#ifndef WEFT_SLAB_H
#define WEFT_SLAB_H

#include "lock.h"

struct wt_slab {
	wt_lock_t lock;
	size_t size;        /* [const] */
	void *free;         /* [slab.lock] free list */
	char *cur, *end;    /* [slab.lock] bump region */
	/* A trimmed slab (wt_slab_trim) keeps its free objects in freev
	 * instead of the list, so their pages can go. */
	bool trimmed;       /* [const] set by WT_SLAB_INIT_TRIMMED */
	void **freev;       /* [slab.lock] free objects */
	size_t nfree, cap;  /* [slab.lock] */
	size_t look_n;      /* [slab.lock] nfree at the trimmer's last look */
	int64_t look_ns;    /* [slab.lock] since when nfree stayed look_n */
	size_t done_n;      /* [slab.lock] nfree when last trimmed */
};
#define WT_SLAB_INIT(sz) { .lock = WT_LOCK_INIT(WT_RANK_SLAB), .size = (sz) }
#define WT_SLAB_INIT_TRIMMED(sz) \
	{ .lock = WT_LOCK_INIT(WT_RANK_SLAB), .size = (sz), .trimmed = true }
void *wt_slab_alloc(struct wt_slab *s);   /* zeroed; NULL when out of memory */
void wt_slab_free(struct wt_slab *s, void *p);
void wt_slab_fork_reset(struct wt_slab *s);
/* sysmon: the pages wholly covered by free objects of a trimmed slab go
 * back once its free count stood still for a second. */
void wt_slab_trim(struct wt_slab *s, int64_t now);
void *wt_mmap_anon(size_t n);             /* NULL when out of memory */

#endif
