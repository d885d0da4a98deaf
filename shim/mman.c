/*
 * mman.c — the program's own changes to its address space: mmap with
 * MAP_FIXED, mprotect, munmap and mremap pass to libc, and a range that
 * lies in a task's stack marks that stack as changed (sched/stack/stack.c:
 * wt_stack_touched), so that weft maps it afresh before another task
 * gets it.  A JVM makes guard zones inside each thread's reported stack
 * this way and leaves them PROT_NONE when the thread ends, as glibc's
 * stack cache gives the same stack to a thread of the same size.
 *
 * Each of them, and shmat and shmdt, also tells sched/process/shmap.c which
 * addresses are now mapped shared (a futex word there may be another
 * process's: shim/syscall.c) and which no longer are.
 */
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "shim.h"
#include "process/shmap.h"
#include "stack/stack.h"

WT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	wt_real_init();
	void *p = real.mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED) {
		wt_shmap_mmap(p, len, flags);
		if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE))
			wt_stack_touched((uintptr_t)p, len);
	}
	return p;
}

WT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	wt_real_init();
	void *p = real.mmap64(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED) {
		wt_shmap_mmap(p, len, flags);
		if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE))
			wt_stack_touched((uintptr_t)p, len);
	}
	return p;
}

WT_EXPORT int mprotect(void *addr, size_t len, int prot)
{
	wt_real_init();
	int r = real.mprotect(addr, len, prot);
	if (r == 0)
		wt_stack_touched((uintptr_t)addr, len);
	return r;
}

WT_EXPORT int munmap(void *addr, size_t len)
{
	wt_real_init();
	int r = real.munmap(addr, len);
	if (r == 0) {
		wt_shmap_munmap(addr, len);
		wt_stack_touched((uintptr_t)addr, len);
	}
	return r;
}

WT_EXPORT void *mremap(void *old, size_t oldlen, size_t newlen, int flags, ...)
{
	void *want = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	wt_real_init();
	void *p = real.mremap(old, oldlen, newlen, flags, want);
	if (p != MAP_FAILED) {
		wt_shmap_mremap(old, oldlen, p, newlen, flags);
		wt_stack_touched((uintptr_t)old, oldlen);
		wt_stack_touched((uintptr_t)p, newlen);
	}
	return p;
}

WT_EXPORT void *shmat(int id, const void *addr, int flags)
{
	wt_real_init();
	void *p = real.shmat(id, addr, flags);
	if (p != (void *)-1)
		wt_shmap_shmat(p, id);
	return p;
}

WT_EXPORT int shmdt(const void *addr)
{
	wt_real_init();
	int r = real.shmdt(addr);
	if (r == 0)
		wt_shmap_shmdt(addr);
	return r;
}
