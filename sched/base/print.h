/*
 * print.h — formatted output safe in signal handlers, on g0 and before
 * stdio exists (print.c): no allocation, no locks, errno untouched.
 */
#ifndef WEFT_PRINT_H
#define WEFT_PRINT_H

#include <stddef.h>

int wt_snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* To stderr, one write. */
void wt_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct wt_wbuf {                /* buffered output to fd; cap >= 1024 */
	char *buf;
	size_t n, cap;
	int fd;
	/* NULL: a raw write(2); else how (io/privfd.c: wt_privfd_write for a
	 * descriptor of weft's own table) */
	long (*write)(int fd, const void *buf, size_t n);
};
void wt_wprint(struct wt_wbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wt_wflush(struct wt_wbuf *b);

#endif
