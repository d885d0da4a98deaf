/*
 * print.c — formatted output that is safe anywhere: in signal handlers, on
 * g0, before the program's stdio exists.  Supports %d %u %ld %lu %lld %llu
 * %zu %zd %x %lx %p %s %c %%, with an optional field width.
 * struct wt_wbuf batches many
 * lines (schedtrace's detail, the task dump) into few write calls from a
 * buffer the caller owns: no allocation.
 */
#include <stdarg.h>
#include <sys/syscall.h>
#include <signal.h>
#include <unistd.h>

#include "arch.h"
#include "base.h"
#include "print.h"
#include "hooks.h"

static void put(char **o, char *end, char c)
{
	if (*o < end)
		*(*o)++ = c;
}

static void putnum(char **o, char *end, unsigned long long v, int base, bool neg, int width,
		   bool left)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[n++] = '-';
	int pad = width - n;
	for (; !left && pad > 0; pad--)
		put(o, end, ' ');
	while (n)
		put(o, end, tmp[--n]);
	for (; pad > 0; pad--)
		put(o, end, ' ');
}

static int vfmt(char *buf, size_t size, const char *f, va_list ap)
{
	char *o = buf, *end = buf + size - 1;
	for (; *f; f++) {
		if (*f != '%') {
			put(&o, end, *f);
			continue;
		}
		f++;
		int width = 0, lng = 0;
		bool left = false;
		if (*f == '-') {
			left = true;
			f++;
		}
		while (*f >= '0' && *f <= '9')
			width = width * 10 + (*f++ - '0');
		while (*f == 'l' || *f == 'z') {
			lng++;
			f++;
		}
		switch (*f) {
		case 'd': {
			long long v = lng ? va_arg(ap, long long) : va_arg(ap, int);
			putnum(&o, end, v < 0 ? -(unsigned long long)v : (unsigned long long)v, 10,
			       v < 0, width, left);
			break;
		}
		case 'u':
			putnum(&o, end, lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned),
			       10, false, width, left);
			break;
		case 'x':
			putnum(&o, end, lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned),
			       16, false, width, left);
			break;
		case 'p':
			put(&o, end, '0');
			put(&o, end, 'x');
			putnum(&o, end, (uintptr_t)va_arg(ap, void *), 16, false, 0, false);
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			int n = 0;
			if (!s)
				s = "(null)";
			for (const char *q = s; *q; q++)
				n++;
			if (!left)
				for (; n < width; width--)
					put(&o, end, ' ');
			while (*s)
				put(&o, end, *s++);
			if (left)
				for (; n < width; width--)
					put(&o, end, ' ');
			break;
		}
		case 'c':
			put(&o, end, (char)va_arg(ap, int));
			break;
		default:
			put(&o, end, *f);
		}
	}
	*o = 0;
	return (int)(o - buf);
}

int wt_snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfmt(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

static void write_all(int fd, const char *buf, size_t n,
		      long (*wr)(int fd, const void *buf, size_t n))
{
	for (size_t off = 0; off < n;) {
		long w = wr ? wr(fd, buf + off, n - off)
			    : wt_syscall6(SYS_write, fd, (long)(buf + off), (long)(n - off), 0, 0, 0);
		if (w == -4)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

void wt_print(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vfmt(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (wt_privfd_self()) /* descriptor 2 here is not the program's */
		wt_privfd_say(buf, (size_t)n);
	else
		write_all(2, buf, (size_t)n, NULL);
}

void wt_wflush(struct wt_wbuf *b)
{
	write_all(b->fd, b->buf, b->n, b->write);
	b->n = 0;
}

/* One formatted piece of at most 1023 bytes (longer is cut, as wt_print). */
void wt_wprint(struct wt_wbuf *b, const char *fmt, ...)
{
	if (b->cap - b->n < 1024)
		wt_wflush(b);
	va_list ap;
	va_start(ap, fmt);
	b->n += (size_t)vfmt(b->buf + b->n, b->cap - b->n < 1024 ? b->cap - b->n : 1024, fmt, ap);
	va_end(ap);
}
