/*
 * symbolize.c — file:line for crash reports, from DWARF line tables
 * (names come from symbol.c).
 *
 * elfutils' libdw (libdwfl) does the work.  It is loaded with dlopen the
 * first time a report asks, so that every program does not carry it (and
 * libdw-dev, which weft does not need to build, only declares what this file
 * declares itself: the libdwfl calls below are its stable public ABI).
 * libdw allocates with malloc: use it only on a dying process's report
 * path, where signal/crash.c has armed a watchdog against a malloc lock the
 * crashed code held.  Without libdw.so.1 or without debug info for an
 * address, reports carry symbol names only.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "arch.h"
#include "symbol.h"

typedef struct Dwfl Dwfl;
typedef struct Dwfl_Module Dwfl_Module;
typedef struct Dwfl_Line Dwfl_Line;
typedef struct {
	void *find_elf;
	void *find_debuginfo;
	void *section_address;
	char **debuginfo_path;
} Dwfl_Callbacks;

static struct {
	bool tried, ok;
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	char *path;
	Dwfl_Module *(*addrmodule)(Dwfl *, uintptr_t);
	Dwfl_Line *(*getsrc)(Dwfl_Module *, uintptr_t);
	const char *(*lineinfo)(Dwfl_Line *, uintptr_t *, int *, int *, uint64_t *, uint64_t *);
} D;

static bool load(void)
{
	void *h = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return false;
	Dwfl *(*begin)(const Dwfl_Callbacks *) = dlsym(h, "dwfl_begin");
	int (*proc_report)(Dwfl *, int) = dlsym(h, "dwfl_linux_proc_report");
	int (*report_end)(Dwfl *, void *, void *) = dlsym(h, "dwfl_report_end");
	D.cb.find_elf = dlsym(h, "dwfl_linux_proc_find_elf");
	D.cb.find_debuginfo = dlsym(h, "dwfl_standard_find_debuginfo");
	D.cb.debuginfo_path = &D.path;
	D.addrmodule = dlsym(h, "dwfl_addrmodule");
	D.getsrc = dlsym(h, "dwfl_module_getsrc");
	D.lineinfo = dlsym(h, "dwfl_lineinfo");
	if (!begin || !proc_report || !report_end || !D.cb.find_elf || !D.cb.find_debuginfo ||
	    !D.addrmodule || !D.getsrc || !D.lineinfo)
		return false;
	D.dwfl = begin(&D.cb);
	if (!D.dwfl)
		return false;
	if (proc_report(D.dwfl, (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0)) != 0)
		return false;
	return report_end(D.dwfl, NULL, NULL) == 0;
}

static bool ready(void)
{
	if (!D.tried) {
		D.tried = true;
		D.ok = load();
	}
	return D.ok;
}

/* The source file and line of pc (a call's return address minus one, or a
 * faulting pc), or NULL.  Context: a crash report. */
const char *wt_src_line(uintptr_t pc, int *line)
{
	if (!ready())
		return NULL;
	Dwfl_Module *m = D.addrmodule(D.dwfl, pc);
	Dwfl_Line *l = m ? D.getsrc(m, pc) : NULL;
	if (!l)
		return NULL;
	return D.lineinfo(l, NULL, line, NULL, NULL, NULL);
}
