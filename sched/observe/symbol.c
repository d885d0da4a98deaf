/*
 * symbol.c — names for code addresses, for the task dump (dump.c) and the
 * crash report (signal/crash.c).
 *
 * dladdr sees only dynamic symbols: in a program built without -rdynamic,
 * none of its own functions, and no static function anywhere.  So each
 * loaded object's full symbol table (.symtab, or .dynsym when stripped) is
 * read once from its file, mapped read-only and checked against its size,
 * its functions sorted by address, and kept for the life of the process; a
 * lookup is then a binary search.  dladdr still says which object holds an
 * address, and names what the tables miss.  (No ELF library: one would be
 * loaded into every process weft runs, for the rare dump.)
 *
 * Memory: tables and names live in mmap'd memory that is never freed (an
 * object unloaded by dlclose leaves its table behind; one loaded later at
 * the same link map is told apart by its name and load address).  Reading
 * a file takes time, so tables are read only when the caller says it may
 * load them: the dumper thread, and a dying process's crash report
 * (signal/crash.c); the dump's signal handler uses the tables read before and
 * dladdr.
 *
 * A cache of recent lookups (pc -> symbol) makes the 10,000th identical
 * backtrace cost a few hash probes per frame.
 *
 * Locking: sym_lock guards the object list, the tables being built and the
 * cache.  A signal handler only try-locks it (the thread it interrupted may
 * hold it) and falls back to dladdr.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"
#include "base/lock.h"
#include "base/print.h"
#include "io/privfd.h"
#include "base/slab.h"
#include "symbol.h"

struct fsym {
	uintptr_t addr;         /* run-time address */
	uint32_t size;          /* 0 = unknown */
	uint32_t name;          /* offset in the object's names */
};

struct symobj {
	const void *lmap;       /* struct link_map *, the key with base and path */
	uintptr_t base;         /* l_addr */
	uintptr_t fbase;        /* dladdr's dli_fbase, for offsets without a symbol */
	char path[256];
	struct fsym *syms;      /* sorted by addr; NULL = no table (or unreadable) */
	uint32_t n;
	char *names;
};

#define MAXOBJ 256
#define CACHE 8192

struct cache_ent {
	uintptr_t pc;           /* looked-up address; 0 = empty */
	int16_t obj;            /* index in objs, -1 = no table */
	int32_t sym;            /* index in its syms, -1 = no symbol */
};

static wt_lock_t sym_lock = WT_LOCK_INIT(WT_RANK_SYMBOL);
static struct symobj *objs;     /* [sym_lock] MAXOBJ entries, mmap'd */
static int nobj;                /* [sym_lock] */
static struct cache_ent *cache; /* [sym_lock] CACHE entries, mmap'd */
static char exe_path[256];      /* [sym_lock] the main program's path */

static void sift(struct fsym *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1].addr > a[c].addr)
			c++;
		if (a[i].addr >= a[c].addr)
			return;
		struct fsym t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

/* Heap sort: qsort may call malloc. */
static void sort_syms(struct fsym *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (size_t i = n; i-- > 1;) {
		struct fsym t = a[0];
		a[0] = a[i];
		a[i] = t;
		sift(a, 0, i);
	}
}

/* The file's symbol table section (.symtab, else .dynsym) and its string
 * table, checked to lie inside the file; false if it has none. */
static bool find_table(const char *f, size_t len, const ElfW(Shdr) **tab, const ElfW(Shdr) **str)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f;
	if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > len ||
	    eh->e_shnum > (len - eh->e_shoff) / sizeof(ElfW(Shdr)))
		return false;
	const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(f + eh->e_shoff), *dyn = NULL;
	*tab = NULL;
	for (unsigned i = 0; i < eh->e_shnum && !*tab; i++) {
		if (sh[i].sh_entsize != sizeof(ElfW(Sym)) || sh[i].sh_link >= eh->e_shnum)
			continue;
		if (sh[i].sh_type == SHT_SYMTAB)
			*tab = &sh[i];
		else if (sh[i].sh_type == SHT_DYNSYM && !dyn)
			dyn = &sh[i];
	}
	if (!*tab)
		*tab = dyn;
	if (!*tab)
		return false;
	*str = &sh[(*tab)->sh_link];
	return (*tab)->sh_offset <= len && (*tab)->sh_size <= len - (*tab)->sh_offset &&
	       (*str)->sh_type == SHT_STRTAB && (*str)->sh_offset <= len &&
	       (*str)->sh_size <= len - (*str)->sh_offset;
}

static bool is_code(const ElfW(Sym) *s)
{
	int type = ELF64_ST_TYPE(s->st_info);
	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
	       s->st_value != 0;
}

/* sym's name in the string table str of f, or NULL (empty or not ended
 * inside the table). */
static const char *sym_name(const char *f, const ElfW(Shdr) *str, const ElfW(Sym) *sym)
{
	if (sym->st_name == 0 || sym->st_name >= str->sh_size)
		return NULL;
	const char *nm = f + str->sh_offset + sym->st_name;
	return memchr(nm, 0, str->sh_size - sym->st_name) ? nm : NULL;
}

struct mapped {
	const char *path;
	size_t len;
};

/* The file mapped read-only whole (its length into m->len), or -errno.
 * Context: a thread whose table is weft's own (io/privfd.c). */
static long map_file(void *arg)
{
	struct mapped *a = arg;
	long fd = wt_syscall6(SYS_openat, AT_FDCWD, (long)a->path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return fd;
	struct stat st;
	long r = wt_syscall6(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
	a->len = r == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
	long m = a->len ? wt_syscall6(SYS_mmap, 0, (long)a->len, PROT_READ, MAP_PRIVATE, fd, 0)
			: -ENOENT;
	wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	return m;
}

/* [sym_lock held] Reads o->path's function symbols, from the file mapped
 * read-only (opened in weft's own table, io/privfd.c); allocates only with
 * mmap. */
static void load_table(struct symobj *o)
{
	struct mapped mp = { o->path, 0 };
	long m = wt_privfd_run(map_file, &mp);
	if (m < 0 && m > -4096)
		return;
	size_t len = mp.len;
	const char *f = (const char *)m;
	const ElfW(Shdr) *tab, *str;
	if (!find_table(f, len, &tab, &str)) {
		wt_syscall6(SYS_munmap, m, (long)len, 0, 0, 0, 0);
		return;
	}
	const ElfW(Sym) *sym = (const ElfW(Sym) *)(f + tab->sh_offset);
	size_t cnt = tab->sh_size / sizeof *sym;
	size_t nf = 0, bytes = 0;
	for (size_t i = 0; i < cnt; i++) {
		const char *nm = is_code(&sym[i]) ? sym_name(f, str, &sym[i]) : NULL;
		if (nm) {
			nf++;
			bytes += strlen(nm) + 1;
		}
	}
	struct fsym *syms = nf ? wt_mmap_anon(nf * sizeof *syms) : NULL;
	char *names = nf ? wt_mmap_anon(bytes) : NULL;
	if (syms && names) {
		size_t k = 0, at = 0;
		for (size_t i = 0; i < cnt && k < nf; i++) {
			const char *nm = is_code(&sym[i]) ? sym_name(f, str, &sym[i]) : NULL;
			if (!nm)
				continue;
			size_t n = strlen(nm) + 1;
			memcpy(names + at, nm, n);
			syms[k].addr = sym[i].st_value + o->base;
			syms[k].size = sym[i].st_size > UINT32_MAX ? 0 : (uint32_t)sym[i].st_size;
			syms[k].name = (uint32_t)at;
			at += n;
			k++;
		}
		sort_syms(syms, k);
		o->syms = syms;
		o->names = names;
		o->n = (uint32_t)k;
	}
	wt_syscall6(SYS_munmap, m, (long)len, 0, 0, 0, 0);
}

/* [sym_lock held] The object for lm, created (and, if may_load, its table
 * read) on first sight.  NULL when there is no room or no table yet. */
static struct symobj *obj_of(const struct link_map *lm, bool may_load, int *idx)
{
	const char *path = lm->l_name && lm->l_name[0] ? lm->l_name : NULL;
	if (!path) {
		if (!exe_path[0]) {
			long n = wt_syscall6(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe",
					     (long)exe_path, sizeof exe_path - 1, 0, 0);
			exe_path[n > 0 ? n : 0] = 0;
		}
		path = exe_path;
	}
	for (int i = 0; i < nobj; i++) {
		struct symobj *o = &objs[i];
		if (o->lmap == lm && o->base == lm->l_addr && !strcmp(o->path, path)) {
			*idx = i;
			return o;
		}
	}
	if (!may_load || nobj >= MAXOBJ || !path[0] || strlen(path) >= sizeof objs[0].path)
		return NULL;
	struct symobj *o = &objs[nobj];
	o->lmap = lm;
	o->base = lm->l_addr;
	strcpy(o->path, path);
	load_table(o);
	*idx = nobj++;
	return o;
}

/* [sym_lock held] Index of the function holding a, or -1. */
static int32_t lookup(const struct symobj *o, uintptr_t a)
{
	if (!o->syms || !o->n || a < o->syms[0].addr)
		return -1;
	uint32_t lo = 0, hi = o->n; /* last with addr <= a is in [lo, hi) */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (o->syms[mid].addr <= a)
			lo = mid;
		else
			hi = mid;
	}
	const struct fsym *f = &o->syms[lo];
	if (f->size && a >= f->addr + f->size)
		return -1;
	return (int32_t)lo;
}

static bool ensure_mem(void)
{
	if (!objs)
		objs = wt_mmap_anon(MAXOBJ * sizeof *objs);
	if (!cache)
		cache = wt_mmap_anon(CACHE * sizeof *cache);
	return objs && cache;
}

/* [sym_lock held; cache mapped] */
static struct cache_ent *slot(uintptr_t a)
{
	return &cache[((a >> 2) * 0x9e3779b97f4a7c15ull) >> (64 - 13)];
}

/* [sym_lock held] Fills s from object oi's symbol si. */
static void from_table(struct wt_sym *s, int oi, int32_t si, uintptr_t pc)
{
	struct symobj *o = &objs[oi];
	if (!s->file) {
		s->file = o->path;
		s->fbase = o->fbase;
	}
	if (si >= 0) {
		s->name = o->names + o->syms[si].name;
		s->off = pc - o->syms[si].addr;
	}
}

void wt_symbolize(uintptr_t pc, bool ret, struct wt_sym *s, bool may_load)
{
	uintptr_t a = ret && pc ? pc - 1 : pc;
	memset(s, 0, sizeof *s);
	if (may_load)
		wt_lock(&sym_lock);
	else if (!wt_trylock(&sym_lock))
		goto dl;
	if (!ensure_mem()) {
		wt_unlock(&sym_lock);
		goto dl;
	}
	/* A cached address skips dladdr, which searches the symbols of the
	 * object linearly: the 10,000th identical backtrace costs a probe. */
	struct cache_ent *ce = slot(a);
	if (ce->pc == a && ce->obj >= 0) {
		from_table(s, ce->obj, ce->sym, pc);
		wt_unlock(&sym_lock);
		return;
	}
	wt_unlock(&sym_lock);
dl:;
	Dl_info di;
	struct link_map *lm = NULL;
	if (!dladdr1((void *)a, &di, (void **)&lm, RTLD_DL_LINKMAP))
		return;
	s->file = di.dli_fname && di.dli_fname[0] ? di.dli_fname : NULL;
	s->fbase = (uintptr_t)di.dli_fbase;
	if (di.dli_sname && di.dli_saddr) {
		s->name = di.dli_sname;
		s->off = pc - (uintptr_t)di.dli_saddr;
	}
	if (!lm)
		return;
	if (may_load)
		wt_lock(&sym_lock);
	else if (!wt_trylock(&sym_lock))
		return;
	int oi = -1;
	struct symobj *o = objs && cache ? obj_of(lm, may_load, &oi) : NULL;
	if (o) {
		struct cache_ent *ce = slot(a);
		if (!o->fbase)
			o->fbase = s->fbase;
		int32_t si = lookup(o, a);
		ce->pc = a;
		ce->obj = (int16_t)oi;
		ce->sym = si;
		if (si >= 0 || !s->name) {
			s->name = NULL;
			from_table(s, oi, si, pc);
		}
	}
	wt_unlock(&sym_lock);
}

int wt_sym_line(char *buf, size_t n, int i, uintptr_t pc, const struct wt_sym *s,
		const char *src, int line)
{
	char at[320] = "";
	if (src)
		wt_snprintf(at, sizeof at, " at %s:%d", src, line);
	if (s->name)
		return wt_snprintf(buf, n, "  #%-2d 0x%lx %s+0x%lx (%s)%s\n", i, (unsigned long)pc,
				   s->name, (unsigned long)s->off, s->file ? s->file : "?", at);
	if (s->file)
		return wt_snprintf(buf, n, "  #%-2d 0x%lx ?? (%s+0x%lx)%s\n", i, (unsigned long)pc,
				   s->file, (unsigned long)(pc - s->fbase), at);
	return wt_snprintf(buf, n, "  #%-2d 0x%lx ??%s\n", i, (unsigned long)pc, at);
}
