#!/usr/bin/env python3
"""weft top [-b] [-n N] [-d SECONDS] [--timeout SECONDS] PID: the tasks of
running weft program PID, refreshed every SECONDS (default 1), as
`top -H` shows threads: task id, name (or start function), CPU % over the
last interval, CPU time counted so far, state (running on worker N, in a
system call, runnable, or the call it waits in and on what, for how long).
PID is not stopped and its output gets nothing.

Live view (a terminal): sorted by CPU; keys: s sorts by state, c by CPU,
i by task id; q quits.  -b (batch): plain text, one frame per interval on
stdout, every task, for scripts; -n N: N frames, then exit (batch mode's
default: until PID exits or the command is interrupted).

How: as weft stack (stack.py), with the other magic ("wtop"): weft's
dumper in PID writes one line per task (sched/observe/dump.c) to this command's
unlinked temporary file, without walking any stack.  CPU time is counted
from the first request on (a program that read a thread CPU clock itself
counts from then): the first frame comes one interval after it.

Exit status: 0 (after N frames, q, or when PID exits); 1 when PID does not
exist, is not running weft, may not be signalled by the caller or does not
answer; 2 for a usage error.
"""
import ctypes, errno, os, re, select, shutil, signal, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stack  # noqa: E402  (the checks weft stack makes)

MAGIC = 0x77746f70  # sched/observe/dump.h: WT_TOP_MAGIC
END = re.compile(rb"\nweft: \d+ tasks dumped in \d+ ms\n\Z")
HEAD = re.compile(r"weft top: pid (\d+), GOMAXPROCS=(\d+), (\d+) threads, now (\d+) ns")
# Sort by state: the order of this list, then by CPU.
STATES = ["running", "syscall", "runnable", "new", "waiting", "idle", "exited"]


def fail(msg, code=1):
    sys.stderr.write("weft: top: %s\n" % msg)
    sys.exit(code)


stack.fail = fail  # stack.check's messages, with this command's name


def usage(msg):
    fail("%s (weft top [-b] [-n N] [-d SECONDS] [--timeout SECONDS] PID)" % msg, 2)


def parse(argv):
    opts = {"batch": False, "frames": 0, "delay": 1.0, "timeout": 5.0}
    args = list(argv)
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0)
    while args and args[0].startswith("-"):
        a = args.pop(0)
        if a == "-b":
            opts["batch"] = True
            continue
        if a not in ("-n", "-d", "--timeout") or not args:
            usage("unknown option %r" % a if a not in ("-n", "-d", "--timeout")
                  else "%s wants a value" % a)
        v = args.pop(0)
        try:
            if a == "-n":
                opts["frames"] = int(v)
                if opts["frames"] <= 0:
                    raise ValueError
            else:
                f = float(v)
                if f <= 0:
                    raise ValueError
                opts["delay" if a == "-d" else "timeout"] = f
        except ValueError:
            usage("%s wants a positive number, not %r" % (a, v))
    return stack.pid_of(args, usage), opts


class Gone(Exception):
    pass


def request(pid, fd, name):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.sigqueue.argtypes = [ctypes.c_int, ctypes.c_int, stack.Sigval]
    v = stack.Sigval()
    v.sival_ptr = MAGIC << 32 | fd
    if libc.sigqueue(pid, signal.SIGURG, v) != 0:
        e = ctypes.get_errno()
        if e == errno.ESRCH:
            raise Gone()
        if e == errno.EPERM:
            fail("process %d (%s) is not yours to signal (EPERM)" % (pid, name))
        fail("cannot signal process %d: %s" % (pid, os.strerror(e)))


def sample(pid, name, timeout):
    """One list: (program's monotonic ns, GOMAXPROCS, threads, {id: task})."""
    with tempfile.TemporaryFile() as f:
        request(pid, f.fileno(), name)
        got, last, t = b"", time.monotonic(), 0.002
        sent = last
        while not END.search(got[-200:]):
            # One request at a time has a place in the program: a weft
            # stack or another weft top asking at the same moment takes
            # it.  Asked again while the file is empty (a late answer to
            # the first finds it written and writes nothing, observe/dump.c).
            if not got and time.monotonic() - sent > 1.0:
                request(pid, f.fileno(), name)
                sent = time.monotonic()
            time.sleep(t)
            t = min(t * 2, 0.05)
            f.seek(len(got))
            more = f.read()
            if more:
                got, last = got + more, time.monotonic()
                continue
            if not stack.alive(pid):
                raise Gone()
            if time.monotonic() - last > timeout:
                fail("process %d (%s) did not answer in %g s" % (pid, name, timeout))
    lines = got.decode("utf-8", "replace").split("\n")
    m = HEAD.match(lines[0])
    if not m:
        fail("process %d (%s) answered with no weft top header (an older weft?): %r"
             % (pid, name, lines[0][:80]))
    tasks = {}
    for l in lines[1:]:
        f = l.split("\t")
        if len(f) != 10 or f[0] != "T":
            continue
        tid = int(f[1])
        tasks[tid] = {"id": tid, "state": f[2], "worker": int(f[3]), "cpu": int(f[4]),
                      "waited": int(f[5]), "call": f[6], "on": f[7], "start": f[8],
                      "name": f[9] or f[8]}
    return int(m.group(4)), int(m.group(2)), int(m.group(3)), tasks


def state_text(t):
    s = t["state"]
    if s == "running":
        return "running on worker %d" % t["worker"]
    if s == "syscall":
        return "in a system call on worker %d" % t["worker"]
    if s == "runnable":
        return "runnable"
    if s == "new":
        return "runnable, not started"
    if s == "idle":
        return "not started"
    if s == "exited":
        return "exited, not joined"
    w = "%s on %s" % (t["call"], t["on"])
    if t["waited"] >= 0:
        ms = t["waited"]
        w += ", %d ms" % ms if ms < 10000 else ", %d s" % (ms // 1000)
    return "waiting: " + w


def cputime(ns):
    cs = ns // 10000000
    return "%d:%02d.%02d" % (cs // 6000, cs // 100 % 60, cs % 100)


class Frame:
    def __init__(self, prev, cur):
        now0, _, _, old = prev
        self.now, self.procs, self.threads, tasks = cur
        dt = max(self.now - now0, 1)
        self.rows = []
        for tid, t in tasks.items():
            before = old[tid]["cpu"] if tid in old else 0
            t["pct"] = max(t["cpu"] - before, 0) * 100.0 / dt
            self.rows.append(t)
        self.counts = {}
        for t in self.rows:
            self.counts[t["state"]] = self.counts.get(t["state"], 0) + 1

    def sorted(self, key):
        if key == "state":
            k = lambda t: (STATES.index(t["state"]) if t["state"] in STATES else 99,
                           -t["pct"], -t["cpu"], t["id"])
        elif key == "id":
            k = lambda t: t["id"]
        else:
            k = lambda t: (-t["pct"], -t["cpu"], t["id"])
        return sorted(self.rows, key=k)

    def header(self, pid, name, key):
        c = self.counts
        run = c.get("running", 0) + c.get("syscall", 0)
        ready = c.get("runnable", 0) + c.get("new", 0)
        total = sum(t["pct"] for t in self.rows)
        return ["weft top - pid %d (%s), GOMAXPROCS=%d, %d threads, CPU %.1f%%"
                % (pid, name, self.procs, self.threads, total),
                "Tasks: %d total, %d running, %d runnable, %d waiting; sorted by %s"
                % (len(self.rows), run, ready, c.get("waiting", 0), key),
                "",
                "%7s %-16s %6s %10s  %s" % ("ID", "NAME", "%CPU", "TIME", "STATE")]

    @staticmethod
    def row(t, width=None):
        s = "%7d %-16s %6.1f %10s  %s" % (t["id"], t["name"][:16], t["pct"], cputime(t["cpu"]),
                                          state_text(t))
        return s[:width] if width else s


def batch(pid, name, opts):
    prev = sample(pid, name, opts["timeout"])
    k = 0
    start = time.monotonic()
    while not opts["frames"] or k < opts["frames"]:
        k += 1
        time.sleep(max(start + k * opts["delay"] - time.monotonic(), 0))
        cur = sample(pid, name, opts["timeout"])
        fr = Frame(prev, cur)
        out = fr.header(pid, name, "CPU") + [Frame.row(t) for t in fr.sorted("cpu")]
        sys.stdout.write("\n".join(out) + "\n\n")
        sys.stdout.flush()
        prev = cur


def live(pid, name, opts):
    import termios, tty
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        fail("the live view needs a terminal (weft top -b for plain text)", 2)
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    out = sys.stdout
    tty.setcbreak(fd)
    out.write("\x1b[?1049h\x1b[?25l")  # the alternate screen, no cursor
    key, names = "cpu", {"c": "cpu", "s": "state", "i": "id"}
    try:
        prev = sample(pid, name, opts["timeout"])
        fr, shown, deadline = None, 0, time.monotonic() + opts["delay"]
        out.write("\x1b[H\x1b[2Jweft top - pid %d (%s): first figures in %g s\n"
                  % (pid, name, opts["delay"]))
        out.flush()
        while True:
            redraw = False
            r, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
            if r:
                ch = os.read(fd, 32).decode("latin-1")
                if "q" in ch or "Q" in ch:
                    return
                for c in ch:
                    if c in names:
                        key, redraw = names[c], True
            if time.monotonic() >= deadline:
                cur = sample(pid, name, opts["timeout"])
                fr, prev = Frame(prev, cur), cur
                deadline += opts["delay"]
                if deadline < time.monotonic():
                    deadline = time.monotonic() + opts["delay"]
                shown += 1
                redraw = True
            if redraw and fr:
                cols, lines = shutil.get_terminal_size()
                text = fr.header(pid, name, key)
                rows = fr.sorted(key)[:max(lines - len(text) - 1, 0)]
                text = [l[:cols] for l in text] + [Frame.row(t, cols) for t in rows]
                text.append("(q quits; s: sort by state, c: by CPU, i: by id)"[:cols])
                out.write("\x1b[H\x1b[2J" + "\n".join(text))
                out.flush()
            if opts["frames"] and shown >= opts["frames"]:
                return
    finally:
        out.write("\x1b[?25h\x1b[?1049l")
        out.flush()
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def main():
    pid, opts = parse(sys.argv[1:])
    name = stack.check(pid)
    stack.become_owner(pid)
    try:
        (batch if opts["batch"] else live)(pid, name, opts)
    except Gone:
        sys.stderr.write("weft: top: process %d exited\n" % pid)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(0)
