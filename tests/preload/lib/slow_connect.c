/*
 * A library whose connect waits 50 ms, then calls the next connect
 * (dlsym(RTLD_NEXT)), as GLib's slow-connect-preload.so does.  Loaded
 * after libweft.so, it is what weft's connect finds as libc's: its usleep
 * comes back into weft inside weft's bracketed call (connect_nested).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/socket.h>
#include <unistd.h>

int connect(int fd, const struct sockaddr *a, socklen_t al)
{
	static int (*next)(int, const struct sockaddr *, socklen_t);
	if (!next)
		next = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
	usleep(50000);
	return next(fd, a, al);
}
