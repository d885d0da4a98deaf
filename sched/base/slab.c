/*
 * slab.c — fixed-size objects from mmap'd chunks, for the runtime's own
 * structures (tasks, key blocks, destructor records).  Never the program's
 * malloc: a program may bring an allocator (jemalloc) whose locks are our
 * mutexes.  Chunks are never unmapped: task structs must stay readable
 * after release, because a stale pthread_t may still be looked up.
 *
 * A trimmed slab (the task slab) keeps its free objects in an array of
 * their addresses instead of a list threaded through them, so the pages
 * that only free objects cover can be returned (MADV_DONTNEED:
 * wt_slab_trim, from sysmon, once the free count stood still for a
 * second): they stay mapped and read as zeros, and an object taken again
 * is zeroed anyway.  100,000 joined threads leave about 42 MB of task
 * records otherwise.
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
	if (s->trimmed && s->nfree > 0) {
		p = s->freev[--s->nfree];
		wt_unlock(&s->lock);
		memset(p, 0, s->size);
		return p;
	}
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

/* Room for one more address in freev.  [slab.lock]; false: out of memory. */
static bool freev_room(struct wt_slab *s)
{
	if (s->nfree < s->cap)
		return true;
	size_t cap = s->cap ? s->cap * 2 : 4096;
	void **v = wt_mmap_anon(cap * sizeof(void *));
	if (!v)
		return false;
	if (s->freev) {
		memcpy(v, s->freev, s->nfree * sizeof(void *));
		wt_syscall6(SYS_munmap, (long)s->freev, (long)(s->cap * sizeof(void *)), 0, 0, 0, 0);
	}
	s->freev = v;
	s->cap = cap;
	return true;
}

void wt_slab_free(struct wt_slab *s, void *p)
{
	wt_lock(&s->lock);
	if (s->trimmed && freev_room(s)) {
		s->freev[s->nfree++] = p;
		wt_unlock(&s->lock);
		return;
	}
	*(void **)p = s->free;
	s->free = p;
	wt_unlock(&s->lock);
}

/* Fork child (process/fork.c): a slab whose lock another thread held at the fork
 * may be half-updated; start it afresh (its old objects leak, those in use
 * stay valid). */
void wt_slab_fork_reset(struct wt_slab *s)
{
	if (atomic_load_explicit(&s->lock.v, memory_order_relaxed)) {
		s->free = NULL;
		s->cur = s->end = NULL;
		s->nfree = 0;
	}
	atomic_store_explicit(&s->lock.v, 0, memory_order_relaxed);
}

static void sift(uintptr_t *v, size_t r, size_t end)
{
	for (size_t c; (c = 2 * r + 1) < end; r = c) {
		if (c + 1 < end && v[c + 1] > v[c])
			c++;
		if (v[r] >= v[c])
			return;
		uintptr_t x = v[r];
		v[r] = v[c];
		v[c] = x;
	}
}

/* Context: sysmon.  Holds the slab's lock throughout (the sort is about
 * 10 ms for 100,000 objects), which a quiet second makes harmless. */
void wt_slab_trim(struct wt_slab *s, int64_t now)
{
	if (!s->trimmed || atomic_load_explicit(&s->lock.v, memory_order_relaxed))
		return;
	wt_lock(&s->lock);
	size_t n = s->nfree;
	if (n != s->look_n) {
		s->look_n = n;
		s->look_ns = now;
	} else if (n >= 256 && n != s->done_n && now - s->look_ns >= 1000000000ll) {
		s->done_n = n;
		/* Sorted addresses; a run of adjacent free objects frees the
		 * whole pages inside it. */
		uintptr_t *v = (uintptr_t *)(void *)s->freev;
		for (size_t i = n / 2; i-- > 0;)
			sift(v, i, n);
		for (size_t end = n - 1; end > 0; end--) {
			uintptr_t x = v[0];
			v[0] = v[end];
			v[end] = x;
			sift(v, 0, end);
		}
		size_t stride = WT_ALIGN_UP(s->size, 16);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && v[j] == v[j - 1] + stride; j++)
				;
			uintptr_t lo = WT_ALIGN_UP(v[i], 4096), hi = WT_ALIGN_DOWN(v[j - 1] + stride, 4096);
			if (hi > lo)
				wt_syscall6(SYS_madvise, (long)lo, (long)(hi - lo), MADV_DONTNEED, 0, 0, 0);
		}
	}
	wt_unlock(&s->lock);
}
