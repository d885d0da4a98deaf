/*
 * ptrace.c — ptrace, made on the thread that traces the process asked
 * about (sched/process/tracer.c).
 *
 * glibc's ptrace is the system call with one twist kept here: the PEEK
 * requests (PTRACE_PEEKTEXT, PEEKDATA, PEEKUSER) return the word read, and
 * set errno to 0 on success, since any word may be a valid value.  A
 * request that the calling worker's thread answers with ESRCH is made
 * again on the worker that traces pid, if one does; PTRACE_ATTACH and
 * PTRACE_SEIZE make the calling worker pid's tracer, remembered.
 * PTRACE_TRACEME is the tracee's own request: the thread that forked it
 * becomes its tracer, found at the first request that needs it.
 */
#include <stdarg.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "shim.h"
#include "process/tracer.h"

WT_EXPORT long ptrace(enum __ptrace_request req, ...)
{
	va_list ap;
	va_start(ap, req);
	long pid = va_arg(ap, long), addr = va_arg(ap, long), data = va_arg(ap, long);
	va_end(ap);
	long word = 0;
	bool peek = req == PTRACE_PEEKTEXT || req == PTRACE_PEEKDATA || req == PTRACE_PEEKUSER;
	if (peek)
		data = (long)&word;
	long r = wt_syscall6(SYS_ptrace, req, pid, addr, data, 0, 0);
	if (wt_cur() && wt_runtime_on()) {
		if (r == -ESRCH && req != PTRACE_TRACEME && req != PTRACE_ATTACH &&
		    req != PTRACE_SEIZE)
			r = wt_ptrace_remote(req, pid, addr, data);
		else if (r == 0 && (req == PTRACE_ATTACH || req == PTRACE_SEIZE))
			wt_ptrace_attached(pid);
		else if (r != -ESRCH && req != PTRACE_TRACEME && req != PTRACE_ATTACH &&
			 req != PTRACE_SEIZE)
			wt_ptrace_answered(); /* this thread traces pid (a refused attach: not) */
	}
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	if (peek) {
		errno = 0;
		return word;
	}
	return r;
}
