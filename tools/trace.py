#!/usr/bin/env python3
"""weft trace FILE: a summary of a WEFTDEBUG=trace=FILE timeline.

The views Go's `go tool trace` gives, as text: every start function's
tasks and their time running, runnable (readied or preempted, waiting for
a worker) and parked (with the wait reason weft records); the longest
parks; steals, preemptions, system-call and proc hand-offs; how busy each
worker was; and the events the recorder dropped.  A file whose end is
missing (the process was killed) is read up to its last whole event.

The file is the Trace Event Format sched/observe/timeline_write.c writes: per
worker track, "B"/"E" slices named "G<id> <function>", instants "park"
(args g, reason, fd), "yield", "preempted", "create", "exit", "steal",
"preempt request", "syscall hand-off", "proc hand-off", "proc lost in
system call", and wake flows ("s" with args g = the woken task, by = the
waker; "f" at the woken task's next slice).
"""
import json
import sys
from collections import defaultdict


def load(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise SystemExit("weft trace: %s" % e)
    try:
        return json.loads(text), True
    except ValueError:
        pass
    # Cut short: keep every whole event line, close the array ourselves.
    lines = text.split("\n")
    while lines:
        body = "\n".join(lines).rstrip().rstrip(",")
        try:
            return json.loads(body + "\n]}"), False
        except ValueError:
            lines.pop()
    raise SystemExit("weft trace: %s is not a weft trace" % path)


class Task:
    __slots__ = ("id", "fn", "running", "runnable", "parked", "slices",
                 "state", "since", "reason", "parks", "created")

    def __init__(self, tid):
        self.id = tid
        self.fn = "?"
        self.running = self.runnable = self.parked = 0.0
        self.slices = 0
        self.state = None      # "runnable", "parked", "running", "dead"
        self.since = 0.0
        self.reason = ""
        self.parks = 0
        self.created = False


def summarize(data, whole, out):
    evs = data.get("traceEvents", [])
    other = data.get("otherData", {})
    order = {"E": 0, "i": 1, "s": 2, "X": 2, "B": 3, "f": 4, "C": 5}
    names = {e.get("tid"): e["args"]["name"] for e in evs
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    evs = sorted((e for e in evs if "ts" in e and e.get("ph") != "M"),
                 key=lambda e: (e["ts"], order.get(e.get("ph"), 9)))
    tasks = {}

    def task(g):
        t = tasks.get(g)
        if t is None:
            t = tasks[g] = Task(g)
        return t

    def settle(t, ts):
        """Closes the interval t was in up to ts."""
        d = ts - t.since
        if t.state == "runnable":
            t.runnable += d
        elif t.state == "parked":
            t.parked += d
            longest.append((d, t.id, t.reason, t.since))
        t.since = ts

    longest = []
    open_slice = {}            # track -> task id
    busy = defaultdict(float)
    nslices = defaultdict(int)
    count = defaultdict(int)
    end = 0.0
    start = None
    for e in evs:
        ph, ts, tr = e.get("ph"), e["ts"], e.get("tid")
        if start is None:
            start = ts
        end = max(end, ts)
        a = e.get("args", {})
        if ph == "B":
            g = a.get("g")
            if g is None:
                continue
            t = task(g)
            t.fn = a.get("fn", t.fn)
            if t.state is not None:
                settle(t, ts)
            t.state, t.since = "running", ts
            t.slices += 1
            open_slice[tr] = (g, ts)
            nslices[tr] += 1
        elif ph == "E":
            o = open_slice.pop(tr, None)
            if o:
                t = task(o[0])
                t.running += ts - o[1]
                busy[tr] += ts - o[1]
                t.state, t.since = "stopped", ts
        elif ph == "i":
            name = e.get("name")
            count[name] += 1
            g = a.get("g")
            if g is None:
                continue
            t = task(g)
            if name == "park":
                t.state, t.since = "parked", ts
                t.reason = a.get("reason", "?")
                if "fd" in a:
                    t.reason += " fd %d" % a["fd"]
                t.parks += 1
            elif name in ("yield", "preempted"):
                t.state, t.since = "runnable", ts
            elif name == "create":
                t.fn = a.get("fn", t.fn)
                t.created = True
                t.state, t.since = "runnable", ts
            elif name == "exit":
                t.state = "dead"
        elif ph == "s" and e.get("cat") == "wake":
            count["wake"] += 1
            g = a.get("g")
            if g is None:
                continue
            t = task(g)
            if t.state in ("parked", "runnable"):
                settle(t, ts)
            t.state, t.since = "runnable", ts
    for t in tasks.values():
        if t.state in ("parked", "runnable"):
            settle(t, end)
    for tr, (g, ts) in open_slice.items():
        tasks[g].running += end - ts
        busy[tr] += end - ts

    ms = lambda us: us / 1000.0
    w = out.write
    w("weft trace: %.3f ms, %d workers (GOMAXPROCS %s), ended by %s%s\n" % (
        ms(end - (start or 0)), other.get("workers", len(nslices)),
        other.get("gomaxprocs", "?"), other.get("end", "?"),
        "" if whole else " (file cut short: read up to its last whole event)"))
    created = sum(1 for t in tasks.values() if t.created)
    w("tasks: %d (%d created during the trace)\n" % (len(tasks), created))
    w("dropped events: %d\n" % other.get("dropped", 0))
    w("\n%-28s %6s %12s %12s %12s %8s %7s\n" % (
        "start function", "tasks", "running ms", "runnable ms", "parked ms",
        "slices", "parks"))
    byfn = defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0, 0])
    for t in tasks.values():
        r = byfn[t.fn]
        r[0] += 1
        r[1] += t.running
        r[2] += t.runnable
        r[3] += t.parked
        r[4] += t.slices
        r[5] += t.parks
    for fn, r in sorted(byfn.items(), key=lambda kv: -kv[1][1]):
        w("%-28s %6d %12.3f %12.3f %12.3f %8d %7d\n" % (
            fn[:28], r[0], ms(r[1]), ms(r[2]), ms(r[3]), r[4], r[5]))
    w("\nlongest parks:\n")
    longest.sort(reverse=True)
    for d, g, reason, since in longest[:10]:
        w("  %10.3f ms  G%d %s: %s (from %.3f ms)\n" % (
            ms(d), g, tasks[g].fn, reason, ms(since - (start or 0))))
    if not longest:
        w("  none\n")
    reasons = defaultdict(lambda: [0, 0.0])
    for d, g, reason, since in longest:
        key = reason.split(" fd ")[0]
        reasons[key][0] += 1
        reasons[key][1] += d
    if reasons:
        w("\nparks by reason:\n")
        for k, (n, d) in sorted(reasons.items(), key=lambda kv: -kv[1][1]):
            w("  %-28s %8d parks %12.3f ms\n" % (k, n, ms(d)))
    w("\nscheduler: %d wakes, %d steals, %d preemption requests, %d preempted, "
      "%d yields, %d syscall hand-offs, %d proc hand-offs, "
      "%d procs lost in system calls\n" % (
          count["wake"], count["steal"], count["preempt request"],
          count["preempted"], count["yield"], count["syscall hand-off"],
          count["proc hand-off"], count["proc lost in system call"]))
    w("\nworkers:\n")
    span = max(end - (start or 0), 1e-9)
    for tr in sorted(nslices, key=lambda x: names.get(x, str(x))):
        w("  %-22s %8d slices, running tasks %.3f ms (%.0f%%)\n" % (
            names.get(tr, "tid %s" % tr), nslices[tr], ms(busy[tr]),
            100.0 * busy[tr] / span))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: weft trace FILE\n")
        return 2
    data, whole = load(argv[1])
    try:
        summarize(data, whole, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that stopped early (head, grep -q)
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
