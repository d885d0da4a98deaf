#!/usr/bin/env python3
"""weft stack [--timeout SECONDS] PID: the task dump of running weft
program PID (every task: id, state, what it waits on, its backtrace), as
SIGQUIT prints it, on this command's stdout.  PID is not stopped, its
stderr gets nothing, and its own SIGQUIT behaviour is untouched.

How: an unlinked, empty temporary file is opened on a descriptor N here,
and PID gets SIGURG (weft's own signal; ignored by a program without weft)
queued with the value ("weft" << 32 | N).  weft's dumper thread in PID
opens /proc/THIS/fd/N (the kernel allows it for the same user), writes the
dump there and ends with "weft: K tasks dumped in M ms", which this waits
for: up to SECONDS (default 5) without the file growing.

Exit status: 0 with the dump; 1 when PID does not exist, is not running
weft, may not be signalled by the caller, exits or does not answer; 2 for a
usage error.  Run by root for another user's process, this command first
becomes that user (the program must be able to open its descriptor).
"""
import ctypes, errno, os, re, signal, sys, tempfile, time

MAGIC = 0x77656674  # sched/observe/dump.h: WT_STACK_MAGIC
END = re.compile(rb"\nweft: \d+ tasks dumped in \d+ ms\n\Z")


def fail(msg, code=1):
    sys.stderr.write("weft: stack: %s\n" % msg)
    sys.exit(code)


def usage(msg):
    fail("%s (weft stack [--timeout SECONDS] PID)" % msg, 2)


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return "?"


def alive(pid):
    """pid runs (exists and is not a zombie)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
    except OSError:
        return False
    return st[st.rfind(")") + 2:][:1] not in ("Z", "X")


def parse(argv):
    timeout = 5.0
    args = list(argv)
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0)
    if len(args) >= 2 and args[0] == "--timeout":
        try:
            timeout = float(args[1])
        except ValueError:
            usage("--timeout wants seconds, not %r" % args[1])
        if timeout <= 0:
            usage("--timeout wants a positive number of seconds")
        args = args[2:]
    return pid_of(args, usage), timeout


def pid_of(args, usage):
    """The one process id args hold; usage(message) otherwise."""
    if len(args) != 1:
        usage("expected one process id")
    if not re.fullmatch(r"[0-9]+", args[0]) or int(args[0]) <= 0:
        usage("%r is not a process id" % args[0])
    return int(args[0])


def check(pid):
    """The process exists, the caller may look at it, and weft runs in it."""
    if not os.path.exists("/proc/%d" % pid):
        fail("no process %d" % pid)
    name = comm(pid)
    try:
        with open("/proc/%d/maps" % pid) as f:
            maps = f.read()
    except PermissionError:
        fail("process %d (%s) is not yours: cannot read /proc/%d/maps (EPERM)" % (pid, name, pid))
    except OSError as e:
        fail("process %d: %s" % (pid, e.strerror))
    if "libweft" not in maps:
        if not maps:
            fail("process %d (%s) has no memory map: it is a zombie or a kernel thread, "
                 "not a weft program" % (pid, name))
        fail("process %d (%s) is not running weft (no libweft.so in /proc/%d/maps)"
             % (pid, name, pid))
    # weft's SIGURG handler is installed when the runtime starts, at the
    # program's second thread (or in its constructor with WEFT_START=eager).
    try:
        with open("/proc/%d/status" % pid) as f:
            cgt = [l.split()[1] for l in f if l.startswith("SigCgt:")]
        if cgt and not int(cgt[0], 16) & (1 << (signal.SIGURG - 1)):
            fail("process %d (%s) has one thread and has not started weft: it starts at "
                 "the second thread (WEFT_START=eager starts it before main)" % (pid, name))
    except OSError:
        pass
    return name


def become_owner(pid):
    """Root asking about another user's process: become that user, so
    that the process may open this one's descriptor."""
    if os.geteuid() != 0:
        return
    st = os.stat("/proc/%d" % pid)
    if st.st_uid == 0:
        return
    os.setgroups([])
    os.setgid(st.st_gid)
    os.setuid(st.st_uid)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: setuid cleared it


class Sigval(ctypes.Union):
    _fields_ = [("sival_int", ctypes.c_int), ("sival_ptr", ctypes.c_void_p)]


def request(pid, fd, name):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.sigqueue.argtypes = [ctypes.c_int, ctypes.c_int, Sigval]
    v = Sigval()
    v.sival_ptr = MAGIC << 32 | fd
    if libc.sigqueue(pid, signal.SIGURG, v) != 0:
        e = ctypes.get_errno()
        if e == errno.EPERM:
            fail("process %d (%s) is not yours to signal (EPERM)" % (pid, name))
        if e == errno.ESRCH:
            fail("no process %d (it exited)" % pid)
        fail("cannot signal process %d: %s" % (pid, os.strerror(e)))


def main():
    pid, timeout = parse(sys.argv[1:])
    name = check(pid)
    become_owner(pid)
    with tempfile.TemporaryFile() as f:
        request(pid, f.fileno(), name)
        got, last, t = b"", time.monotonic(), 0.002
        while not END.search(got[-200:]):
            time.sleep(t)
            t = min(t * 2, 0.05)
            f.seek(len(got))
            more = f.read()
            if more:
                got, last = got + more, time.monotonic()
                continue
            if not alive(pid):
                sys.stdout.buffer.write(got)
                fail("process %d exited %s" % (pid, "before its dump was complete" if got
                                               else "before it answered"))
            if time.monotonic() - last > timeout:
                sys.stdout.buffer.write(got)
                sys.stdout.flush()
                fail("process %d (%s) did not answer in %g s (%s)" %
                     (pid, name, timeout,
                      "its dump stopped part way" if got else
                      "stopped, its weft too old for weft stack, or unable to open "
                      "this command's file"))
    sys.stdout.buffer.write(got)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
