/*
 * slab.c — fixed-size objects from mmap'd chunks, for the runtime's own
 * structures (tasks, key blocks, destructor records).  Never the program's
 * malloc: a program may bring an allocator (jemalloc) whose locks are our
 * mutexes.  Chunks are never returned: task structs must stay readable
 * after release, because a stale pthread_t may still be looked up.
 */
#include <sys/mman.h>
#include <sys/syscall.h>
#include <string.h>

#include "base.h"
#include "arch.h"
#include "lock.h"
#include "slab.h"

#define CHUNK (1u << 20)

void *wt_mmap_anon(size_t n)
{
	long p = wt_syscall6(SYS_mmap, 0, (long)n, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p < 0 && p > -4096 ? NULL : (void *)p;
}

void *wt_slab_alloc(struct wt_slab *s)
{
	void *p;
	wt_lock(&s->lock);
	if ((p = s->free)) {
		s->free = *(void **)p;
		wt_unlock(&s->lock);
		memset(p, 0, s->size);
		return p;
	}
	if (s->cur + s->size > s->end) {
		char *c = wt_mmap_anon(CHUNK);
		if (!c) {
			wt_unlock(&s->lock);
			return NULL;
		}
		s->cur = c;
		s->end = c + CHUNK;
	}
	p = s->cur;
	s->cur += WT_ALIGN_UP(s->size, 16);
	wt_unlock(&s->lock);
	return p; /* fresh mmap memory is zero */
}

void wt_slab_free(struct wt_slab *s, void *p)
{
	wt_lock(&s->lock);
	*(void **)p = s->free;
	s->free = p;
	wt_unlock(&s->lock);
}

/* Fork child (fork.c): a slab whose lock another thread held at the fork
 * may be half-updated; start it afresh (its old objects leak, those in use
 * stay valid). */
void wt_slab_fork_reset(struct wt_slab *s)
{
	if (atomic_load_explicit(&s->lock.v, memory_order_relaxed)) {
		s->free = NULL;
		s->cur = s->end = NULL;
	}
	atomic_store_explicit(&s->lock.v, 0, memory_order_relaxed);
}
