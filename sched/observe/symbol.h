/*
 * symbol.h — names for code addresses from the objects' ELF symbol tables
 * (symbol.c) and file:line from DWARF (symbolize.c).
 */
#ifndef WEFT_SYMBOL_H
#define WEFT_SYMBOL_H

#include "base/base.h"

struct wt_sym {
	const char *name;               /* NULL = unknown */
	uintptr_t off;                  /* pc - start of name */
	const char *file;               /* object's path, NULL = unknown */
	uintptr_t fbase;                /* object's load address */
};
/* Names pc (a return address when ret, looked up as pc - 1).  may_load:
 * read an object's symbol table now if it is not yet (libelf, which
 * allocates: never in a signal handler); else only tables read before and
 * dladdr.  Context: any thread. */
void wt_symbolize(uintptr_t pc, bool ret, struct wt_sym *s, bool may_load);
/* "  #i  0xpc name+0xoff (file)\n" into buf; returns its length. */
int wt_sym_line(char *buf, size_t n, int i, uintptr_t pc, const struct wt_sym *s,
		const char *src, int line); /* src: file of " at src:line", or NULL */
/* symbolize.c: the source file of pc and *line, or NULL (libdw, loaded on
 * first use). */
const char *wt_src_line(uintptr_t pc, int *line);

#endif
