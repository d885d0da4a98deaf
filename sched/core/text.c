/*
 * text.c — where code lies: the executable ranges of libweft and of the
 * libraries a task must not be switched out of.
 *
 * Taken once at start with dl_iterate_phdr, read without a lock after
 * ([const after init]):
 *   - weft's own text (wt_pc_in_weft): the signal handlers tell weft's
 *     code, which checks its flags itself and may hold weft's locks, from
 *     the program's;
 *   - the no-switch text (wt_pc_no_switch): libweft's and that of libc,
 *     ld.so, the vDSO and the libraries weft uses (libunwind, liblzma,
 *     libgcc_s, and the libpthread and libdl stubs).  A task
 *     interrupted there may hold a glibc-internal lock (malloc's arena,
 *     stdio's), a weft lock or a cached proc, so asynchronous preemption
 *     (preempt.c) leaves it running.
 * Libraries loaded later are the program's: a task may be switched out of
 * them.
 */
#include <link.h>
#include <string.h>

#include "runtime.h"
#include "text.h"

struct range {
	uintptr_t lo, hi;
};
#define MAXR 64
#define MAXWEFT 8
static struct range no_switch[MAXR], weft[MAXWEFT]; /* [const after init] */
static int n_no_switch, n_weft;                     /* [const after init] */

static bool in(const struct range *r, int n, uintptr_t pc)
{
	for (int i = 0; i < n; i++)
		if (pc >= r[i].lo && pc < r[i].hi)
			return true;
	return false;
}

/* Context: any, signal handlers included. */
bool wt_pc_in_weft(uintptr_t pc)
{
	return in(weft, n_weft, pc);
}

/* Context: any, signal handlers included. */
bool wt_pc_no_switch(uintptr_t pc)
{
	return in(no_switch, n_no_switch, pc);
}

static bool runtime_lib(const char *name)
{
	static const char *const libs[] = { "libc.so", "ld-linux", "linux-vdso", "libunwind",
					    "liblzma", "libgcc_s",
					    "libpthread.so", "libdl.so" };
	const char *b = strrchr(name, '/');
	b = b ? b + 1 : name;
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++)
		if (!strncmp(b, libs[i], strlen(libs[i])))
			return true;
	return false;
}

static int add_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	uintptr_t me = (uintptr_t)&add_ranges;
	bool ours = false, lib = info->dlpi_name && runtime_lib(info->dlpi_name);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (ph->p_type == PT_LOAD && me >= lo && me < hi)
			ours = true;
	}
	if (!ours && !lib)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		struct range r = { info->dlpi_addr + ph->p_vaddr,
				   info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
		if (n_no_switch < MAXR)
			no_switch[n_no_switch++] = r;
		if (ours && n_weft < MAXWEFT)
			weft[n_weft++] = r;
	}
	return 0;
}

/* Context: the initial thread, at start (before the SIGURG handler is
 * installed); takes the loader's lock. */
void wt_text_init(void)
{
	dl_iterate_phdr(add_ranges, NULL);
}

bool wt_pc_in_sigok(uintptr_t pc)
{
	return pc >= (uintptr_t)wt_syscall6_sigok && pc < (uintptr_t)wt_syscall6_sigok_end;
}
