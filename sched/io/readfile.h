/* readfile.h — a small file read whole by raw system calls (readfile.c). */
#ifndef WEFT_READFILE_H
#define WEFT_READFILE_H

#include <stddef.h>

/* Reads up to n-1 bytes of path into buf, NUL-terminated (no malloc, errno
 * untouched): the length or -errno. */
long wt_read_file(const char *path, char *buf, size_t n);

#endif
