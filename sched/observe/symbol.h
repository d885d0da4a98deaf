/*
 * symbol.h — names for code addresses from the objects' ELF symbol tables
 * (symbol.c) and file:line from DWARF (symbolize.c).
 */
#ifndef WEFT_SYMBOL_H
#define WEFT_SYMBOL_H

#include "base/base.h"
#include "core/hooks.h"

/* struct wt_sym and wt_symbolize (the crash report's too): core/hooks.h. */
/* "  #i  0xpc name+0xoff (file)\n" into buf; returns its length. */
int wt_sym_line(char *buf, size_t n, int i, uintptr_t pc, const struct wt_sym *s,
		const char *src, int line); /* src: file of " at src:line", or NULL */
/* symbolize.c: the source file of pc and *line, or NULL (libdw, loaded on
 * first use). */
const char *wt_src_line(uintptr_t pc, int *line);

#endif
