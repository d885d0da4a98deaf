#!/usr/bin/env python3
"""check_trace.py FILE END [FN N] [REASON]: checks a WEFTDEBUG=trace file
(sched/observe/timeline_write.c) on what it must say, never on timing:

  - it is valid JSON in the Trace Event Format, ended by END
    (otherData.end: exit, SIGQUIT, SIGSEGV);
  - one track named "worker N" per worker, and every task slice (B/E,
    balanced per track) on one of them;
  - every slice is named "G<id> <fn>" after its args, and a task's start
    function is the same in its create event and in each of its slices;
  - FN N: N tasks were created with start function FN;
  - REASON: a park event carries that wait reason;
  - a wake flow whose start ("s") lies in a task's slice and whose end
    ("f") starts the woken task's next slice, on a worker track;
  - counters: the global and per-proc run queues, the OS thread count.
Prints "ok ..." or the first failure, and exits 0 or 1.
"""
import json
import sys
from collections import defaultdict


def fail(msg):
    print("bad trace: " + msg)
    sys.exit(1)


def main(argv):
    path, end = argv[1], argv[2]
    fn_want = argv[3] if len(argv) > 4 else None
    n_want = int(argv[4]) if len(argv) > 4 else None
    reason_want = argv[5] if len(argv) > 5 else (argv[3] if len(argv) == 4 else None)
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        fail("not valid JSON: %s" % e)
    ev = d.get("traceEvents")
    od = d.get("otherData", {})
    if not isinstance(ev, list) or not ev:
        fail("no traceEvents")
    if od.get("end") != end:
        fail("ended by %r, not %r" % (od.get("end"), end))
    workers = {e["tid"]: e["args"]["name"] for e in ev
               if e.get("ph") == "M" and e.get("name") == "thread_name"
               and e["args"]["name"].startswith("worker ")}
    if len(workers) != od.get("workers") or not workers:
        fail("%d worker tracks, otherData says %s" % (len(workers), od.get("workers")))
    if sorted(workers.values()) != sorted("worker %d" % i for i in range(len(workers))):
        fail("worker tracks %s" % sorted(workers.values()))
    order = {"E": 0, "i": 1, "s": 2, "X": 2, "B": 3, "f": 4, "C": 5}
    timed = sorted((e for e in ev if e.get("ph") != "M"),
                   key=lambda e: (e["ts"], order.get(e["ph"], 9)))
    fn_of = {}
    created = defaultdict(int)
    for e in timed:
        if e["ph"] == "i" and e["name"] == "create":
            fn_of[e["args"]["g"]] = e["args"]["fn"]
            created[e["args"]["fn"]] += 1
    depth = defaultdict(int)
    slice_at = {}          # (tid, ts) -> task id of a slice starting there
    open_on = {}           # tid -> task id of the open slice
    flow_s, flow_f = {}, {}
    parks = defaultdict(int)
    slices = 0
    counters = set()
    for e in timed:
        ph, tid = e["ph"], e.get("tid")
        if ph == "B":
            if tid not in workers:
                fail("a slice on track %s, not a worker's" % tid)
            g, fn = e["args"]["g"], e["args"]["fn"]
            if e["name"] != "G%d %s" % (g, fn):
                fail("slice %r for task %d (%s)" % (e["name"], g, fn))
            if g in fn_of and fn_of[g] != fn:
                fail("task %d created with %s, runs as %s" % (g, fn_of[g], fn))
            depth[tid] += 1
            if depth[tid] != 1:
                fail("nested slices on %s" % workers[tid])
            slice_at[(tid, e["ts"])] = g
            open_on[tid] = g
            slices += 1
        elif ph == "E":
            depth[tid] -= 1
            if depth[tid] != 0:
                fail("an end without a slice on %s" % workers.get(tid, tid))
            open_on.pop(tid, None)
        elif ph == "i" and e["name"] == "park":
            parks[e["args"]["reason"]] += 1
        elif ph == "s":
            flow_s[e["id"]] = (e, open_on.get(tid))
        elif ph == "f":
            flow_f[e["id"]] = e
        elif ph == "C":
            counters.update("%s.%s" % (e["name"], k) for k in e["args"])
    if any(depth.values()):
        fail("slices left open at the end")
    if fn_want is not None and created.get(fn_want, 0) != n_want:
        fail("%d tasks created with %s, not %d" % (created.get(fn_want, 0), fn_want, n_want))
    if reason_want and not parks.get(reason_want):
        fail("no park with reason %s (reasons: %s)" % (reason_want, dict(parks)))
    good = 0
    for i, (s, waker) in flow_s.items():
        f = flow_f.get(i)
        if not f or waker is None:
            continue
        if slice_at.get((f["tid"], f["ts"])) == s["args"]["g"] and s["args"]["by"] == waker:
            good += 1
    if not good:
        fail("no wake flow from a task's slice to the woken task's next slice")
    need = {"runqueue.global", "runqueue.P0", "threads.threads"}
    if not need <= counters:
        fail("counters %s, missing %s" % (sorted(counters), sorted(need - counters)))
    print("ok: %d workers, %d slices, %d tasks created, parks %s, %d wake flows" % (
        len(workers), slices, sum(created.values()), dict(parks), good))


if __name__ == "__main__":
    main(sys.argv)
