#!/usr/bin/env python3
"""bench/run.py --demo | --full [--strict]: runs the programs in build/bench/ natively
and under weft (LD_PRELOAD=build/libweft.so) and prints a side-by-side table.

The programs are plain pthread programs (bench/*.c, built by bench/bench.mk)
reproducing the C side of the seed articles' experiments.  Fast benchmarks
run several times and report the median.  The native waiters run is capped
so the machine keeps free pids (pid_max).  A run that hangs is killed after
its timeout; for a weft hang the stacks of all threads (gdb) are saved to
build/bench/hang-*.txt first.  Hangs and crashes are listed under the table;
they fail the run (exit 1) only with --strict.  GOMAXPROCS, WEFT_TLS and WEFTDEBUG are passed
through from the environment to the weft runs.
"""
import os, re, signal, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "bench")
LIB = os.environ.get("WEFT_LIB", os.path.join(ROOT, "build", "libweft.so"))
NATIVE_CAP = 20000          # most threads a native run may start

problems = []               # (text) hangs, crashes, stderr notes


def run(prog, args, weft, timeout):
    """Runs one program; returns (stdout, seconds) or (None, why)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if weft:
        env["LD_PRELOAD"] = LIB
    cmd = [os.path.join(BIN, prog)] + [str(a) for a in args]
    name = ("weft " if weft else "native ") + " ".join([prog] + [str(a) for a in args])
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        bt = ""
        if weft:
            tag = "-".join([prog] + [str(a) for a in args])
            path = os.path.join(BIN, "hang-%s.txt" % tag)
            try:
                g = subprocess.run(["gdb", "-p", str(p.pid), "-batch",
                                    "-ex", "thread apply all bt"],
                                   capture_output=True, text=True, timeout=120)
                with open(path, "w") as f:
                    f.write("$ GOMAXPROCS=%s WEFT_TLS=%s LD_PRELOAD=%s %s\n\n"
                            % (os.environ.get("GOMAXPROCS", ""), os.environ.get("WEFT_TLS", ""),
                               LIB, " ".join(cmd)))
                    f.write(g.stdout + g.stderr)
                bt = " (all-thread backtrace: %s)" % os.path.relpath(path, ROOT)
            except (OSError, subprocess.TimeoutExpired) as e:
                bt = " (gdb failed: %s)" % e
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        problems.append("HANG: %s: no exit after %ds%s; output so far: %r"
                        % (name, timeout, bt, (out or "")[-200:]))
        return None, "hang"
    dt = time.monotonic() - t0
    notes = [l for l in err.splitlines() if l.strip()]
    if p.returncode != 0:
        why = ("signal %s" % signal.Signals(-p.returncode).name if p.returncode < 0
               else "exit %d" % p.returncode)
        problems.append("CRASH: %s: %s; stderr: %s" % (name, why, " | ".join(notes[-5:])))
        return None, "crash"
    if notes:
        problems.append("stderr of %s: %s" % (name, " | ".join(notes[:5])))
    return out, dt


def num(out, pattern):
    if out is None:
        return None
    m = re.search(pattern, out, re.M)
    return float(m.group(1)) if m else None


def median_runs(prog, args, weft, reps, timeout, metrics):
    """Runs reps times; returns {metric: median} ({} entries None on failure)."""
    vals = {k: [] for k in metrics}
    outs = []
    for _ in range(reps):
        out, _ = run(prog, args, weft, timeout)
        if out is None:
            return {k: None for k in metrics}, None
        outs.append(out)
        for k, pat in metrics.items():
            v = num(out, pat)
            if v is not None:
                vals[k].append(v)
    return {k: (statistics.median(v) if v else None) for k, v in vals.items()}, outs[-1]


# --- table -------------------------------------------------------------------
rows = []


def fmt(v, unit):
    if v is None:
        return "FAILED"
    if isinstance(v, str):
        return v
    if abs(v) >= 100 or v == int(v):
        s = "{:,.0f}".format(v)
    elif abs(v) >= 10:
        s = "%.1f" % v
    else:
        s = "%.2f" % v
    return s + (" " + unit if unit else "")


def row(label, n, w, unit="", ratio=True, nnote=""):
    r = ""
    if ratio and isinstance(n, (int, float)) and isinstance(w, (int, float)) and w:
        r = "%.1fx" % (n / w) if n / w >= 0.1 else "%.3fx" % (n / w)
    rows.append((label, fmt(n, unit) + nnote if n is not None or not nnote else nnote,
                 fmt(w, unit), r))


def section(title):
    rows.append((title, None, None, None))


def print_table():
    w0 = max(len(r[0]) for r in rows) + 2
    w1 = max([len(r[1]) for r in rows if r[1] is not None] + [6]) + 2
    w2 = max([len(r[2]) for r in rows if r[2] is not None] + [4]) + 2
    head = "%-*s%*s%*s  %s" % (w0, "experiment", w1, "native", w2, "weft", "native/weft")
    print(head)
    print("-" * len(head))
    for r in rows:
        if r[1] is None:
            print(r[0])
        else:
            print("%-*s%*s%*s  %s" % (w0, "  " + r[0], w1, r[1], w2, r[2], r[3]))


# --- experiments -------------------------------------------------------------
def exp_switch(rounds, reps):
    m = {"ns": r"one hand-off:\s+([\d.]+) ns"}
    n, _ = median_runs("switch", [rounds], False, reps, 120, m)
    w, _ = median_runs("switch", [rounds], True, reps, 120, m)
    section("switch: token over mutex+2 condvars, %s hand-offs (median of %d)"
            % ("{:,}".format(2 * rounds), reps))
    row("one hand-off", n["ns"], w["ns"], "ns")


def exp_pipe(rounds, reps):
    m = {"ns": r"one hand-off:\s+([\d.]+) ns"}
    n, _ = median_runs("pipe_switch", [rounds], False, reps, 120, m)
    w, _ = median_runs("pipe_switch", [rounds], True, reps, 120, m)
    section("pipe_switch: token over two pipes, %s hand-offs (median of %d)"
            % ("{:,}".format(2 * rounds), reps))
    row("one hand-off", n["ns"], w["ns"], "ns")


def exp_spawn(count, reps):
    m = {"all": r"create\+join all:\s+([\d.]+)", "loop": r"create-join loop:\s+([\d.]+)",
         "create": r"create all:\s+([\d.]+)", "thr": r"OS threads after create:\s+(\d+)"}
    n, _ = median_runs("spawn", [count], False, reps, 180, m)
    w, _ = median_runs("spawn", [count], True, reps, 180, m)
    section("spawn: %s threads that return at once (median of %d)" % ("{:,}".format(count), reps))
    row("create all, per thread", n["create"], w["create"], "us")
    row("create all + join all, per thread", n["all"], w["all"], "us")
    row("create-join one at a time, per thread", n["loop"], w["loop"], "us")
    row("OS threads right after creating all", n["thr"], w["thr"], "", ratio=False)


WAIT_M = {"started": r"threads started:\s+(\d+)", "os": r"OS threads:\s+(\d+)",
          "time": r"time to start:\s+([\d.]+)", "mem": r"memory used:\s+(\d+)",
          "kstack": r"kernel stacks:\s+(\d+)", "per": r"per thread:\s+([\d.]+)"}


def exp_waiters(count, timeout):
    ncount = min(count, NATIVE_CAP)
    capped = ncount < count
    n, nout = median_runs("waiters", [ncount], False, 1, timeout, WAIT_M)
    w, wout = median_runs("waiters", [count], True, 1, timeout, WAIT_M)
    fail = [l for l in (nout or "").splitlines() if "failed" in l]
    title = "waiters %s: threads waiting on one condvar" % "{:,}".format(count)
    if capped:
        title += "  (* native capped at %s: pid_max %s)" % (
            "{:,}".format(ncount), open("/proc/sys/kernel/pid_max").read().strip())
    section(title)
    note = "*" if capped else ""
    for l in fail:
        rows.append(("native: " + l, "", "", ""))
    row("threads started", n["started"], w["started"], "", ratio=False, nnote=note)
    row("OS threads", n["os"], w["os"], "", nnote=note)
    row("time to start", n["time"], w["time"], "s", ratio=not capped, nnote=note)
    pt = lambda d: (d["time"] * 1e6 / d["started"]) if d["time"] is not None and d["started"] else None
    row("start time per thread", pt(n), pt(w), "us")
    row("memory used (RSS+page tables)", n["mem"], w["mem"], "MB", ratio=not capped, nnote=note)
    row("kernel stacks", n["kstack"], w["kstack"], "MB", ratio=False, nnote=note)
    row("memory per thread (incl. kernel stack)", n["per"], w["per"], "KB")


def exp_blocking(count, read):
    args = [count] + (["read"] if read else [])
    nout, _ = run("blocking", args, False, 30)
    wout, _ = run("blocking", args, True, 15 if read else 30)
    section("blocking: OS threads (kernel's count) as %d threads sleep%s" % (
        count, ", wait, block in read(2)" if read else " and wait"))
    pats = [("at start", r"at start: (\d+)"),
            ("+%d in usleep" % count, r"sleeping, OS threads: (\d+)"),
            ("+%d on a condvar" % count, r"condvar, OS threads: (\d+)")]
    if read:
        pats.append(("+%d stuck in read(2)" % count, r"read\(2\), OS threads: (\d+)"))
    pats.append(("all joined", r"all joined, OS threads: (\d+)"))
    for label, pat in pats:
        row(label, num(nout, pat), num(wout, pat), "", ratio=False)


# --- stacks: growable stacks and a million tasks (issue 4) ------------------
def run_raw(prog, args, weft, timeout):
    """Runs one program; returns (returncode or 'hang', stdout, stderr, seconds).
    For programs expected to die natively (no entry in problems)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if weft:
        env["LD_PRELOAD"] = LIB
    t0 = time.monotonic()
    try:
        p = subprocess.run([os.path.join(BIN, prog)] + [str(a) for a in args], env=env,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", "", "", timeout
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def outcome(rc, out, err, dt):
    if rc == "hang":
        return "HANG"
    if isinstance(rc, int) and rc < 0:
        return signal.Signals(-rc).name
    m = re.search(r"deep: (\d+)", out)
    return ("deep %s, %.1f s" % ("{:,}".format(int(m.group(1))), dt)) if m else "exit %d" % rc


def exp_grow():
    section("grow: recursion 1,000,000 calls deep, 80 bytes a frame, default attributes")
    for mode, label in (("thread", "in a pthread"), ("main", "in main")):
        n = run_raw("grow", [mode], False, 120)
        w = run_raw("grow", [mode], True, 120)
        if w[0] != 0:
            problems.append("CRASH: weft grow %s: %s; stderr: %s" % (mode, outcome(*w), w[2][-300:]))
        row(label, outcome(*n), outcome(*w), ratio=False)
    n = run_raw("grow", ["runaway"], False, 120)
    w = run_raw("grow", ["runaway"], True, 300)
    m = re.search(r"overflowed its stack: limit ([^,]+), depth ([^ ]+ [KMG]iB)", w[2])
    wtxt = "%s at %s (limit %s)" % (outcome(*w), m.group(2), m.group(1)) if m else outcome(*w)
    if w[0] != -signal.SIGSEGV or not m:
        problems.append("weft grow runaway: expected the overflow report and SIGSEGV; got %s; "
                        "stderr: %s" % (outcome(*w), w[2][:300]))
    import resource
    lim = resource.getrlimit(resource.RLIMIT_STACK)[0]
    ntxt = outcome(*n) + (" (stack %d MiB)" % (lim >> 20) if lim > 0 else "")
    row("runaway recursion", ntxt, wtxt, ratio=False)


def exp_million():
    # Native stops near pid_max: exp_waiters caps it (NATIVE_CAP).
    exp_waiters(1000000, 1800)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--demo"
    if mode not in ("--demo", "--full"):
        sys.exit("usage: bench/run.py --demo | --full")
    for p in ("switch", "pipe_switch", "spawn", "waiters", "blocking", "grow"):
        if not os.access(os.path.join(BIN, p), os.X_OK):
            sys.exit("bench: %s/%s missing: run `make bench-progs`" % (BIN, p))
    if not os.path.exists(LIB):
        sys.exit("bench: %s missing: run `make`" % LIB)
    ncpu = len(os.sched_getaffinity(0))
    gmp = os.environ.get("GOMAXPROCS")
    print("weft bench (%s)  %s, %d CPUs, kernel %s" % (mode[2:], LIB, ncpu, os.uname().release))
    print("GOMAXPROCS=%s  WEFT_TLS=%s" % (gmp + " (env)" if gmp else "%d (CPUs, env unset)" % ncpu,
                                          os.environ.get("WEFT_TLS") or "auto (env unset)"))
    print()
    t0 = time.monotonic()
    if mode == "--demo":
        exp_switch(20000, 3)
        exp_spawn(10000, 1)
        exp_waiters(10000, 120)
        exp_blocking(100, False)
        exp_grow()
    else:
        exp_switch(200000, 3)
        exp_pipe(50000, 3)
        exp_spawn(10000, 1)
        exp_waiters(10000, 120)
        exp_waiters(100000, 240)
        exp_blocking(100, False)
        exp_blocking(100, True)
        exp_grow()
        exp_million()
    print_table()
    print("\n(%.0f s)" % (time.monotonic() - t0))
    if problems:
        print("\nproblems:")
        for p in problems:
            print("  " + p)
    # Hangs and crashes are listed above; --strict makes them fail the run.
    strict = "--strict" in sys.argv[2:]
    sys.exit(1 if strict and any(p.startswith(("HANG", "CRASH")) for p in problems) else 0)


if __name__ == "__main__":
    main()
