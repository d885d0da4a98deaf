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
};
#define WT_SLAB_INIT(sz) { .lock = WT_LOCK_INIT(WT_RANK_SLAB), .size = (sz) }
void *wt_slab_alloc(struct wt_slab *s);   /* zeroed; NULL when out of memory */
void wt_slab_free(struct wt_slab *s, void *p);
void wt_slab_fork_reset(struct wt_slab *s);
void *wt_mmap_anon(size_t n);             /* NULL when out of memory */

#endif
