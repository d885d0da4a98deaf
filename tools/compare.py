#!/usr/bin/env python3
"""compare.py LIB PROG ARGS...: runs PROG natively, then under weft
(LD_PRELOAD=LIB), and prints side by side: exit status, wall time, peak RSS,
peak OS threads (the Threads: line of /proc/PID/status, polled every 2 ms),
and whether stdout and exit status match.

Peak RSS is the VmHWM line polled with Threads: (the wait4 rusage
ru_maxrss if no poll saw it).  ru_maxrss is no use for small programs: at
exec the kernel folds the old address space's high-water mark (the forked
copy of this Python, ~10 MB) into it; VmHWM belongs to the exec'd image
only, and can miss growth in the last poll interval.  Exits 0 when
both match, 1 when they do not, 2 on a usage error.

stdin is /dev/null for both runs.  WEFT_COMPARE_TIMEOUT (seconds, default
600) kills a run that takes longer; that counts as a mismatch.
"""
import os, signal, sys, tempfile, time


def status_of(pid):
    """(Threads, VmHWM kB) of a running process, 0 for what is unknown."""
    th = hwm = 0
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("Threads:"):
                    th = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return th, hwm


def run(argv, env, timeout):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        try:
            pid = os.fork()
        except OSError as e:
            sys.exit("compare: fork: %s" % e)
        if pid == 0:
            try:
                os.setpgid(0, 0)
                fd = os.open(os.devnull, os.O_RDONLY)
                os.dup2(fd, 0)
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                os.execvpe(argv[0], argv, env)
            except OSError as e:
                os.write(2, ("compare: cannot run %s: %s\n" % (argv[0], e)).encode())
            os._exit(127)
        peak, hwm, timed_out = 0, 0, False
        while True:
            wpid, status, ru = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                break
            th, hw = status_of(pid)
            peak, hwm = max(peak, th), max(hwm, hw)
            if time.monotonic() - t0 > timeout and not timed_out:
                timed_out = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        return {"out": out.read(), "err": err.read(), "status": status, "wall": wall,
                "rss": hwm or ru.ru_maxrss, "ru_maxrss": ru.ru_maxrss, "threads": peak, "timeout": timed_out}


def describe(st):
    if os.WIFSIGNALED(st):
        s = os.WTERMSIG(st)
        try:
            return "signal %s" % signal.Signals(s).name
        except ValueError:
            return "signal %d" % s
    return "exit %d" % os.WEXITSTATUS(st)


def main():
    if len(sys.argv) < 3:
        print("usage: compare.py LIB PROG [ARGS...]", file=sys.stderr)
        sys.exit(2)
    lib, argv = os.path.abspath(sys.argv[1]), sys.argv[2:]
    if not os.path.exists(lib):
        print("compare: %s: no such file" % lib, file=sys.stderr)
        sys.exit(2)
    timeout = float(os.environ.get("WEFT_COMPARE_TIMEOUT", "600"))
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    native = run(argv, env, timeout)
    wenv = dict(env, LD_PRELOAD=lib)
    weft = run(argv, wenv, timeout)

    def st(r):
        return describe(r["status"]) + (" (killed: timeout %gs)" % timeout if r["timeout"] else "")
    lines = [("exit status", st(native), st(weft)),
             ("wall time", "%.3f s" % native["wall"], "%.3f s" % weft["wall"]),
             ("peak RSS", "{:,} KB".format(native["rss"]), "{:,} KB".format(weft["rss"])),
             ("peak OS threads", str(native["threads"]), str(weft["threads"])),
             ("stdout", "{:,} bytes".format(len(native["out"])), "{:,} bytes".format(len(weft["out"]))),
             ("stderr", "{:,} bytes".format(len(native["err"])), "{:,} bytes".format(len(weft["err"])))]
    print("$ " + " ".join(argv))
    print("GOMAXPROCS=%s WEFT_TLS=%s  weft: %s" % (os.environ.get("GOMAXPROCS", "(CPUs)"),
                                                 os.environ.get("WEFT_TLS", "auto"), lib))
    w0 = max(len(l[0]) for l in lines) + 2
    w1 = max(len(l[1]) for l in lines + [("", "native", "")]) + 2
    print("%-*s%-*s%s" % (w0, "", w1, "native", "weft"))
    for a, b, c in lines:
        print("%-*s%-*s%s" % (w0, a, w1, b, c))
    for name, r in (("native", native), ("weft", weft)):
        print("\n--- %s stdout ---" % name)
        sys.stdout.write(r["out"].decode(errors="replace")[-4000:])
        if r["err"]:
            print("--- %s stderr ---" % name)
            sys.stdout.write(r["err"].decode(errors="replace")[-2000:])
    same_out = native["out"] == weft["out"]
    same_st = native["status"] == weft["status"] and not native["timeout"] and not weft["timeout"]
    print()
    print("stdout:      " + ("same" if same_out else "DIFFERS"))
    if not same_out:
        import re
        digits = lambda b: re.sub(rb"[0-9][0-9.,]*", b"#", b)
        if digits(native["out"]) == digits(weft["out"]):
            print("             (only numbers differ)")
        else:
            nl, wl = native["out"].splitlines(), weft["out"].splitlines()
            for i in range(max(len(nl), len(wl))):
                a = nl[i] if i < len(nl) else b"<none>"
                b = wl[i] if i < len(wl) else b"<none>"
                if a != b:
                    print("             first difference, line %d:\n"
                          "               native: %s\n               weft:   %s"
                          % (i + 1, a.decode(errors="replace"), b.decode(errors="replace")))
                    break
    print("exit status: " + ("same" if same_st else "DIFFERS"))
    sys.exit(0 if same_out and same_st else 1)


if __name__ == "__main__":
    main()
