#!/usr/bin/env python3
"""bench/run.py --demo | --full | --only=NAME,... [--strict]: runs the programs in build/bench/ natively
and under weft (LD_PRELOAD=build/libweft.so) and prints a side-by-side table.

The programs are plain pthread programs (bench/*.c, built by bench/bench.mk)
reproducing the C side of the seed articles' experiments.  Fast benchmarks
run several times and report the median.  The one-CPU experiments
(timeslice, tightloop, cpubound) run natively under taskset and under weft
with GOMAXPROCS set; the echo server is driven by bench/echo_load, a
one-thread epoll process that starts the server (under weft: through
`env LD_PRELOAD=...`) and is itself never preloaded.  Programs that can
stall under a scheduler without preemption or blocked-thread detection
carry a watchdog (bench.h) and report "stalled" instead of hanging.  The native waiters run is capped
so the machine keeps free pids (pid_max).  A run that hangs is killed after
its timeout; for a weft hang the stacks of all threads (gdb) are saved to
build/bench/hang-*.txt first.  Hangs and crashes are listed under the table;
they fail the run (exit 1) only with --strict.  --results=FILE also writes the
table as JSON (tools/benchdoc.py makes docs/benchmarks.md of it).  --only=spawn,burst runs
the named experiments of --full alone (the names are in main()).  GOMAXPROCS, WEFT_TLS and WEFTDEBUG are passed
through from the environment to the weft runs.
"""
import json, os, re, signal, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "bench")
LIB = os.environ.get("WEFT_LIB", os.path.join(ROOT, "build", "libweft.so"))
NATIVE_CAP = 20000          # most threads a native run may start

problems = []               # (text) hangs, crashes, stderr notes


def run(prog, args, weft, timeout, env_set=None, prefix=(), label=None):
    """Runs one program; returns (stdout, seconds) or (None, why).  env_set
    overrides environment variables (e.g. GOMAXPROCS), prefix goes before
    the command (e.g. taskset), label names the run in problem lines."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if weft:
        env["LD_PRELOAD"] = LIB
    env.update(env_set or {})
    cmd = list(prefix) + [os.path.join(BIN, prog)] + [str(a) for a in args]
    name = label or ("weft " if weft else "native ") + " ".join(
        ["%s=%s" % kv for kv in (env_set or {}).items()] + list(prefix) + [prog] + [str(a) for a in args])
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
                            % (env.get("GOMAXPROCS", ""), env.get("WEFT_TLS", ""),
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
    # The one line weft says when a program takes a real-time policy
    # (docs/limits.md) is expected, not a problem.
    notes = [l for l in err.splitlines()
             if l.strip() and not l.startswith("weft: real-time policies order")]
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


def median_runs(prog, args, weft, reps, timeout, metrics, env_set=None, prefix=()):
    """Runs reps times; returns {metric: median} ({} entries None on failure)."""
    vals = {k: [] for k in metrics}
    outs = []
    for _ in range(reps):
        out, _ = run(prog, args, weft, timeout, env_set, prefix)
        if out is None:
            return {k: None for k in metrics}, None
        outs.append(out)
        for k, pat in metrics.items():
            v = num(out, pat)
            if v is not None:
                vals[k].append(v)
    return {k: (statistics.median(v) if v else None) for k, v in vals.items()}, outs[-1]


def go_bin(prog):
    """Go's side of an experiment (bench/go/PROG.go), when it was built."""
    return "go_" + prog if os.access(os.path.join(BIN, "go_" + prog), os.X_OK) else None


# --- table -------------------------------------------------------------------
rows = []
results = []                # the same rows as JSON (--results FILE)


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


def row(label, n, w, unit="", ratio=True, nnote="", higher_better=False):
    """ratio is native/weft for costs (times, threads, memory): above 1x
    weft is better; for higher_better figures (requests/s) it is weft/native
    so that above 1x still means weft is better."""
    r = ""
    if ratio and isinstance(n, (int, float)) and isinstance(w, (int, float)) and w and n:
        q = w / n if higher_better else n / w
        r = "%.1fx" % q if q >= 0.1 else "%.3fx" % q
    rows.append((label, fmt(n, unit) + nnote if n is not None or not nnote else nnote,
                 fmt(w, unit), r))
    num = lambda v: v if isinstance(v, (int, float)) else None
    results.append({"label": label, "native": num(n), "weft": num(w), "unit": unit,
                    "native_text": rows[-1][1], "weft_text": rows[-1][2], "ratio": r, "note": ""})


def section(title):
    rows.append((title, None, None, None))
    results.append({"section": title.strip()})


def write_results(path, mode):
    """The figures as JSON for tools/benchdoc.py (docs/benchmarks.md): the
    rows of the table with their numbers, the machine, date and commit."""
    def cmd(argv):
        try:
            return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  cwd=ROOT, timeout=30).stdout.decode().strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    doc = {"suite": "bench", "mode": mode, "date": time.strftime("%Y-%m-%d", time.gmtime()),
           "commit": cmd(["git", "describe", "--always", "--dirty"]) or "unknown",
           "machine": {"cpu": cpu, "cpus": len(os.sched_getaffinity(0)), "kernel": os.uname().release,
                       "tls": os.environ.get("WEFT_TLS") or "auto",
                       "gomaxprocs": os.environ.get("GOMAXPROCS") or "CPUs"},
           "rows": results}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


def print_table():
    w0 = max(len(r[0]) + 2 for r in rows if r[1] is not None) + 2  # titles may overhang
    w1 = max([len(r[1]) for r in rows if r[1] is not None] + [6]) + 2
    w2 = max([len(r[2]) for r in rows if r[2] is not None] + [4]) + 2
    head = "%-*s%*s%*s  %s" % (w0, "experiment", w1, "native", w2, "weft",
                                "native/weft (weft/native for /s)")
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
    if go_bin("switch"):
        g, _ = median_runs(go_bin("switch"), [rounds], False, reps, 120, m)
        row("one hand-off: Go (sync.Mutex + 2 sync.Cond) / weft", g["ns"], w["ns"], "ns")


def exp_pipe(rounds, reps):
    m = {"ns": r"one hand-off:\s+([\d.]+) ns"}
    n, _ = median_runs("pipe_switch", [rounds], False, reps, 120, m)
    w, _ = median_runs("pipe_switch", [rounds], True, reps, 120, m)
    section("pipe_switch: token over two pipes, %s hand-offs (median of %d)"
            % ("{:,}".format(2 * rounds), reps))
    row("one hand-off", n["ns"], w["ns"], "ns")


def alternate(specs, reps, timeout, metrics):
    """Runs each spec (key, prog, args, weft, env_set, prefix) once per
    round, reps rounds, so that native and weft runs alternate on a busy
    machine; returns {key: {metric: median}} (None for a spec that failed)."""
    vals = {k: {m: [] for m in metrics} for k, *_ in specs}
    failed = set()
    for _ in range(reps):
        for key, prog, args, weft, env_set, prefix in specs:
            if key in failed:
                continue
            out, _ = run(prog, args, weft, timeout, env_set, prefix)
            if out is None:
                failed.add(key)
                continue
            for m, pat in metrics.items():
                v = num(out, pat)
                if v is not None:
                    vals[key][m].append(v)
    return {k: {m: (None if k in failed or not v else statistics.median(v))
                for m, v in d.items()} for k, d in vals.items()}


def exp_pipeline(n, reps):
    """A producer thread, 8 stage threads and main summing, n messages:
    natively on 2 CPUs, under weft at GOMAXPROCS=2, and Go's goroutines
    and channels at GOMAXPROCS=2; runs alternate."""
    m = {"wall": r"wall time:\s+([\d.]+) s", "cpu": r"cpu time:\s+([\d.]+) s",
         "sum": r"^sum:\s+(\d+)"}
    two = ("taskset", "-c", "0,1") if len(os.sched_getaffinity(0)) > 2 else ()
    g2 = {"GOMAXPROCS": "2"}
    progs = [("pipeline", "C, mutex/condvar queues of 128 (bench/pipeline.c)")]
    if os.access(os.path.join(BIN, "rust_pipeline"), os.X_OK):
        progs.append(("rust_pipeline", "Rust, std::sync::mpsc channels (bench/rust/pipeline.rs)"))
    specs = []
    for prog, _ in progs:
        specs += [(prog + ":n", prog, [n], False, None, two), (prog + ":w", prog, [n], True, g2, ())]
    if go_bin("pipeline"):
        specs.append(("go", go_bin("pipeline"), [n], False, g2, ()))
    r = alternate(specs, reps, 120, m)
    section("pipeline: producer -> 8 stages (+1 each) -> main summing, %s messages; native on "
            "2 CPUs, weft and Go at GOMAXPROCS=2 (alternating runs, median of %d)"
            % ("{:,}".format(n), reps))
    for prog, what in progs:
        nat, w = r[prog + ":n"], r[prog + ":w"]
        if nat["sum"] is not None and w["sum"] is not None and nat["sum"] != w["sum"]:
            problems.append("pipeline %s: sums differ: native %d, weft %d" % (prog, nat["sum"], w["sum"]))
        row(what + ": wall", nat["wall"], w["wall"], "s")
        row("  CPU time", nat["cpu"], w["cpu"], "s")
    if go_bin("pipeline"):
        row("Go, channels of 128 (bench/go/pipeline.go) / weft's C: wall", r["go"]["wall"],
            r["pipeline:w"]["wall"], "s")
        row("  CPU time", r["go"]["cpu"], r["pipeline:w"]["cpu"], "s")


def exp_futex_pshared(rounds, reps):
    m = {"ns": r"one round trip:\s+([\d.]+) ns"}
    n, _ = median_runs("futex_pshared", [rounds], False, reps, 120, m)
    w, _ = median_runs("futex_pshared", [rounds], True, reps, 120, m)
    section("futex_pshared: parent and fork child, a shared futex word, %s round trips "
            "(median of %d)" % ("{:,}".format(rounds), reps))
    row("one round trip", n["ns"], w["ns"], "ns")


def exp_prio_protect(pairs, reps):
    m = {"ns": r"one lock\+unlock:\s+([\d.]+) ns", "cpu": r"CPU per pair:\s+([\d.]+) ns"}
    n, _ = median_runs("prio_protect", [pairs], False, reps, 120, m)
    w, _ = median_runs("prio_protect", [pairs], True, reps, 120, m)
    section("prio_protect: a PTHREAD_PRIO_PROTECT mutex at SCHED_FIFO, %s uncontended "
            "lock/unlock pairs (median of %d)" % ("{:,}".format(pairs), reps))
    row("one lock+unlock (raise to the ceiling and back)", n["ns"], w["ns"], "ns")
    row("its CPU time (weft's worker is SCHED_OTHER to the kernel)", n["cpu"], w["cpu"], "ns")


def exp_fork_waits(count, forks, idle, reps):
    m = {"t0": r"OS threads after the waits:\s+(\d+)",
         "m0": r"mappings after the waits:\s+(\d+)",
         "f0": r"fork\+exit\+wait at once:\s+([\d.]+) us",
         "c0": r"fork\(\) call at once:\s+([\d.]+) us",
         "t1": r"OS threads after \d+s idle:\s+(\d+)",
         "m1": r"mappings after idle:\s+(\d+)",
         "f1": r"fork\+exit\+wait after idle:\s+([\d.]+) us",
         "c1": r"fork\(\) call after idle:\s+([\d.]+) us"}
    n, _ = median_runs("fork_waits", [count, forks, idle], False, reps, 300, m)
    w, _ = median_runs("fork_waits", [count, forks, idle], True, reps, 300, m)
    section("fork_waits: %s threads wait at once on a process-shared condvar, are joined; "
            "then %d fork+exit+waitpid, at once and after %d s idle (median of %d)"
            % ("{:,}".format(count), forks, idle, reps))
    row("OS threads after the waits", n["t0"], w["t0"], ratio=False)
    row("mappings after the waits", n["m0"], w["m0"], ratio=False)
    row("fork+exit+wait at once", n["f0"], w["f0"], "us")
    row("  of which fork() in the parent", n["c0"], w["c0"], "us")
    row("OS threads after idle", n["t1"], w["t1"], ratio=False)
    row("mappings after idle", n["m1"], w["m1"], ratio=False)
    row("fork+exit+wait after idle", n["f1"], w["f1"], "us")
    row("  of which fork() in the parent", n["c1"], w["c1"], "us")


def exp_signal_rate(ms, reps):
    m = {"hz": r"handlers per second:\s+([\d.]+)", "lost": r"lost:\s+(\d+)"}
    section("signal_rate: kill(getpid()) then sem_wait for the handler's sem_post, "
            "%d ms (median of %d)" % (ms, reps))
    for mode, what in ((1, "handler wherever the kernel sends it"),
                       (2, "handler on a thread looping in lock/unlock")):
        n, _ = median_runs("signal_rate", [ms, mode], False, reps, 60, m)
        w, _ = median_runs("signal_rate", [ms, mode], True, reps, 60, m)
        row(what + ", per second", n["hz"], w["hz"], higher_better=True)
        row("  rounds without a handler after 1 s", n["lost"], w["lost"], ratio=False)


def exp_signal_storm(ms, rounds, reps):
    m = {"hz": r"handlers per second:\s+([\d.]+)", "lost": r"stranded:\s+(\d+)"}
    section("signal_storm: two senders kill(getpid()) for a thread parked in pthread_cond_wait, "
            "%d rounds of %d ms (median of %d)" % (rounds, ms, reps))
    n, _ = median_runs("signal_storm", [ms, rounds], False, reps, 60, m)
    w, _ = median_runs("signal_storm", [ms, rounds], True, reps, 60, m)
    row("handlers per second", n["hz"], w["hz"], higher_better=True)
    row("  signals no thread took (sender gave up after 2 s)", n["lost"], w["lost"], ratio=False)


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
    if go_bin("spawn"):
        g, _ = median_runs(go_bin("spawn"), [count], False, reps, 180, m)
        section("  the same with goroutines (Go in the native column; bench/go/spawn.go)")
        row("create all + join all, per goroutine / thread", g["all"], w["all"], "us")
        row("create-join one at a time, per goroutine / thread", g["loop"], w["loop"], "us")


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
    if go_bin("waiters"):
        g, _ = median_runs(go_bin("waiters"), [count], False, 1, timeout, WAIT_M)
        section("  the same with goroutines (Go in the native column; bench/go/waiters.go)")
        row("OS threads", g["os"], w["os"], "")
        row("start time per goroutine / thread", pt(g), pt(w), "us")
        row("memory per goroutine / thread", g["per"], w["per"], "KB")


def exp_waiters_small(count, size, timeout):
    """Parked threads with an explicit small stack: by attribute (native
    and weft) and by WEFT_STACK_SIZE (weft; native with RLIMIT_STACK's)."""
    ncount = min(count, NATIVE_CAP)
    n, _ = median_runs("waiters", [ncount, size], False, 1, timeout, WAIT_M)
    w, _ = median_runs("waiters", [count, size], True, 1, timeout, WAIT_M)
    e, _ = median_runs("waiters", [count], True, 1, timeout, WAIT_M,
                       env_set={"WEFT_STACK_SIZE": str(size)})
    section("waiters %s with a %d KiB stack (native: %s threads)"
            % ("{:,}".format(count), size >> 10, "{:,}".format(ncount)))
    pt = lambda d: (d["time"] * 1e6 / d["started"]) if d["time"] is not None and d["started"] else None
    row("pthread_attr_setstacksize: start time per thread", pt(n), pt(w), "us")
    row("pthread_attr_setstacksize: memory per thread", n["per"], w["per"], "KB")
    row("WEFT_STACK_SIZE=%d (weft): memory per thread" % size, "", e["per"], "KB", ratio=False)


BURST_M = {"start": r"^start:\s+(\d+) KB"}


def burst_figures(out, rounds, idle):
    """{start, rounds: [KB after join], parked: [KB], idle: {s: KB}, us: [..]} or None."""
    if out is None:
        return None
    f = {"start": num(out, r"^start:\s+(\d+) KB"), "rounds": [], "parked": [], "us": [], "idle": {}}
    for m in re.finditer(r"^round \d+:\s+(\d+) threads, ([\d.]+) us/thread, (\d+) KB with all "
                         r"parked, (\d+) KB after join", out, re.M):
        f["us"].append(float(m.group(2)))
        f["parked"].append(int(m.group(3)))
        f["rounds"].append(int(m.group(4)))
    for m in re.finditer(r"^idle (\d+) s:\s+(\d+) KB", out, re.M):
        f["idle"][int(m.group(1))] = int(m.group(2))
    f["threads"] = num(out, r"^round 1:\s+(\d+) threads")
    return f


def exp_burst(count, rounds, idle, title):
    """Rounds of count threads parked, woken, joined; memory (RSS + page
    tables, above the start) after each round and while idle.  Native is
    capped below the kernel's thread limit."""
    ncount = min(count, NATIVE_CAP)
    args = lambda c: [c, rounds, idle]
    nout, _ = run("burst", args(ncount), False, 300 + idle)
    wout, _ = run("burst", args(count), True, 300 + idle)
    gout = run(go_bin("burst"), args(count), False, 300 + idle)[0] if go_bin("burst") else None
    n, w, g = (burst_figures(o, rounds, idle) for o in (nout, wout, gout))
    section("%s: %s threads (native %s), %d round%s, then %d s idle; memory = RSS + page "
            "tables above the start%s" % (title, "{:,}".format(count), "{:,}".format(ncount), rounds,
                                         "s" if rounds > 1 else "", idle,
                                         "; Go: %s" % ("{:,}".format(count)) if g else ""))
    mb = lambda f, v: (v - f["start"]) / 1024.0 if f and v is not None and f["start"] is not None else None
    rnd = lambda f, i, k: mb(f, f[k][i]) if f and len(f[k]) > i else None
    for i in range(rounds):
        if rounds > 1 or i == 0:
            row("round %d: with all parked" % (i + 1), rnd(n, i, "parked"), rnd(w, i, "parked"), "MB")
            row("round %d: right after join" % (i + 1), rnd(n, i, "rounds"), rnd(w, i, "rounds"), "MB")
    for s_ in sorted(set([idle // 2, idle])):
        iv = lambda f: mb(f, f["idle"].get(s_)) if f else None
        row("%d s idle after the last join" % s_, iv(n), iv(w), "MB", ratio=False)
        if g:
            row("%d s idle: Go / weft" % s_, iv(g), iv(w), "MB", ratio=False)
    us = lambda f: statistics.median(f["us"]) if f and f["us"] else None
    row("create, park, wake, join: per thread (median round)", us(n), us(w), "us")
    if g:
        row("the same: Go / weft", us(g), us(w), "us")


BLOCK_KINDS = [("sleep", "usleep"), ("cond", "pthread_cond_wait"),
               ("socket", "read(2) on a socketpair"), ("pipe", "read(2) on a pipe"),
               ("spin", "CPU loop"), ("rawread", "syscall(SYS_read) on a pipe"),
               ("flock", "flock(2) on a locked file"),
               ("stdio", "fputs on a FILE held by flockfile")]


def blocking_cell(out):
    """'before -> during -> after' from a blocking run, or None."""
    b, a = num(out, r"before: (\d+)"), num(out, r"after: (\d+)")
    if out is None or b is None or a is None:
        return None, None
    d = num(out, r"during: (\d+)")
    if d is not None:
        mid = "{:,}".format(int(d))
        if "only" in out:
            mid += " (partial)"
    else:
        d = num(out, r"OS threads then: (\d+)")
        mid = "stalled (%s)" % ("{:,}".format(int(d)) if d is not None else "?")
    return "%d -> %s -> %s" % (b, mid, "{:,}".format(int(a))), d


def exp_blocking(count, spin, stall_ms):
    section("blocking: OS threads before -> while N threads are stuck -> after release "
            "and join (N=%s, spin N=%d; \"stalled\": main got no CPU for %d ms)"
            % ("{:,}".format(count), spin, stall_ms))
    for kind, what in BLOCK_KINDS:
        n_ = spin if kind == "spin" else count
        nout, _ = run("blocking", [kind, n_, stall_ms], False, 60)
        wout, _ = run("blocking", [kind, n_, stall_ms], True, 60)
        ncell, nd = blocking_cell(nout)
        wcell, wd = blocking_cell(wout)
        r = ""
        if nd and wd and "stalled" not in (wcell or ""):
            r = "%.1fx" % (nd / wd)
        rows.append(("%-8s %s" % (kind, what), ncell or "FAILED", wcell or "FAILED", r))


def exp_connect(count):
    section("connect: %s threads in a blocking connect(2) to a full accept queue"
            % "{:,}".format(count))
    m = {"th": r"connects wait: (\d+)", "ok": r"connected: (\d+)",
         "t": r"all connected after: ([\d.]+) s"}
    n, _ = median_runs("connect", [count], False, 1, 120, m)
    w, _ = median_runs("connect", [count], True, 1, 120, m)
    row("OS threads while they wait", n["th"], w["th"])
    row("connected", n["ok"], w["ok"], ratio=False)
    row("backlog grown -> all connected", n["t"], w["t"], "s")


def exp_timeslice(ms):
    m = {"gaps": r"descheduled gaps: (\d+)", "med": r"median ([\d.]+)", "p90": r"p90 ([\d.]+)",
         "late": r"later thread first ran at: ([\d.]+) s"}
    n, _ = median_runs("timeslice", [ms], False, 1, 60, m, prefix=("taskset", "-c", "0"))
    w, _ = median_runs("timeslice", [ms], True, 1, 60, m, env_set={"GOMAXPROCS": "1"})
    section("timeslice: 2 threads spin %g s on one CPU (native taskset -c 0, weft "
            "GOMAXPROCS=1; Go: median gap 20 ms)" % (ms / 1e3))
    row("descheduled gaps > 1 ms", n["gaps"], w["gaps"], ratio=False)
    none = lambda d, k: d[k] if d[k] is not None or d["gaps"] is None else "none"
    row("median gap", none(n, "med"), none(w, "med"), "ms", ratio=False)
    row("p90 gap", none(n, "p90"), none(w, "p90"), "ms", ratio=False)
    ms = lambda v: v * 1e3 if v is not None else None
    row("the later thread's first run, after start", ms(n["late"]), ms(w["late"]), "ms", ratio=False)


def tight_cell(out):
    v = num(out, r"resumed after: ([\d.]+) ms")
    if out is None:
        return None
    if "stalled" in out:
        return ("stalled (%s ms)" % "{:,.0f}".format(v)) if v is not None else "stalled"
    return v


def exp_tightloop(stall_ms):
    nout, _ = run("tightloop", [stall_ms], False, 60, prefix=("taskset", "-c", "0"))
    wout, _ = run("tightloop", [stall_ms], True, 60, env_set={"GOMAXPROCS": "1"})
    section("tightloop: a thread in while(!stop) n++; main in usleep(100 ms), one CPU "
            "(Go: 116 ms; stalled: the loop was stopped after %d ms)" % stall_ms)
    row("main resumed after", tight_cell(nout), tight_cell(wout), "ms", ratio=False)


def exp_cpubound(miter, reps):
    m = {"t": r"wall time: ([\d.]+) s"}
    res = {}
    for cpus in (1, 2):
        res[("n", cpus)], _ = median_runs("cpubound", [8, miter], False, reps, 120, m,
                                          prefix=("taskset", "-c", "0" if cpus == 1 else "0,1"))
        res[("w", cpus)], _ = median_runs("cpubound", [8, miter], True, reps, 120, m,
                                          env_set={"GOMAXPROCS": str(cpus)})
    section("cpubound: 8 threads x %dM xorshift steps (native taskset -c 0 / 0,1, weft "
            "GOMAXPROCS=1 / 2; median of %d)" % (miter, reps))
    for cpus in (1, 2):
        row("wall time, %d CPU%s" % (cpus, "s" if cpus > 1 else ""),
            res[("n", cpus)]["t"], res[("w", cpus)]["t"], "s")
    sp = lambda k: (res[(k, 1)]["t"] / res[(k, 2)]["t"]
                    if res[(k, 1)]["t"] and res[(k, 2)]["t"] else None)
    x = lambda v: "%.2fx" % v if v is not None else None
    row("speedup 2 CPUs / 1 CPU", x(sp("n")), x(sp("w")), ratio=False)


ECHO_M = {"open": r"connections: (\d+) of", "secs": r"open in ([\d.]+) s",
          "rps": r"requests/s: (\d+)", "thr": r"server OS threads: (\d+)",
          "rss": r"server peak RSS: ([\d.]+) MB", "lost": r"connections lost: (\d+)"}


def exp_echo(conns, secs, window):
    srv = os.path.join(BIN, "echo_server")
    args = [conns, secs, window]
    nout, _ = run("echo_load", args + [srv], False, 120 + secs,
                  label="native echo_load %d %d %d echo_server" % tuple(args))
    wout, _ = run("echo_load", args + ["env", "LD_PRELOAD=" + LIB, srv], False, 120 + secs,
                  label="weft echo_load %d %d %d (weft) echo_server" % tuple(args))
    n = {k: num(nout, p) for k, p in ECHO_M.items()}
    w = {k: num(wout, p) for k, p in ECHO_M.items()}
    section("echo: thread-per-connection server, %s loopback connections, %d requests "
            "of 16 B in flight round robin for %d s (load: one epoll process)"
            % ("{:,}".format(conns), window, secs))
    for out, who in ((nout, "native"), (wout, "weft")):
        for l in (out or "").splitlines():
            if l.startswith(("server:", "RLIMIT", "gave up", "connect ", "connect failed",
                             "socket ")):
                rows.append(("%s: %s" % (who, l), "", "", ""))
    row("connections open", n["open"], w["open"], ratio=False)
    row("time to open them all", n["secs"], w["secs"], "s", ratio=False)
    row("requests/s", n["rps"], w["rps"], "", higher_better=True)
    row("server OS threads (most seen)", n["thr"], w["thr"], "")
    row("server peak RSS", n["rss"], w["rss"], "MB")
    row("connections lost", n["lost"], w["lost"], "", ratio=False)


# --- stacks: growable stacks and a million tasks ----------------------------
def run_raw(prog, args, weft, timeout, env_set=None):
    """Runs one program; returns (returncode or 'hang', stdout, stderr, seconds).
    For programs expected to die natively (no entry in problems)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if weft:
        env["LD_PRELOAD"] = LIB
        env.update(env_set or {})
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
    # main moves to a growable stack only when weft starts before it
    # (WEFT_START=eager); the default dormant start leaves main on its
    # native stack, so it overflows there as natively (docs/limits.md).
    for mode, label, env_set in (("thread", "in a pthread", None),
                                 ("main", "in main, weft with WEFT_START=eager",
                                  {"WEFT_START": "eager"})):
        n = run_raw("grow", [mode], False, 120)
        w = run_raw("grow", [mode], True, 120, env_set)
        if w[0] != 0:
            problems.append("CRASH: weft grow %s: %s; stderr: %s" % (mode, outcome(*w), w[2][-300:]))
        row(label, outcome(*n), outcome(*w), ratio=False)
    n = run_raw("grow", ["main"], False, 120)
    w = run_raw("grow", ["main"], True, 120)
    if w[0] != n[0]:
        problems.append("weft grow main (dormant start): %s, natively %s" % (outcome(*w), outcome(*n)))
    row("in main, default (dormant) start: main's native stack", outcome(*n), outcome(*w),
        ratio=False)
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
    only = None
    if mode.startswith("--only="):
        only, mode = mode[len("--only="):].split(","), "--full"
    if mode not in ("--demo", "--full", "--signal"):
        sys.exit("usage: bench/run.py --demo | --full | --signal (the signal rows alone) "
                 "| --only=NAME,... [--strict] [--results=FILE]")
    for p in ("switch", "pipe_switch", "pipeline", "futex_pshared", "prio_protect", "fork_waits", "spawn", "waiters", "burst", "blocking",
              "timeslice", "tightloop", "cpubound", "echo_server", "echo_load", "grow",
              "connect", "signal_rate", "signal_storm"):
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
    if mode == "--signal":
        exp_signal_rate(1000, 3)
        exp_signal_storm(300, 3, 5)
    elif mode == "--demo":
        exp_switch(20000, 3)
        exp_spawn(10000, 1)
        exp_waiters(10000, 120)
        exp_blocking(100, 8, 750)
        exp_connect(1000)
        exp_timeslice(500)
        exp_tightloop(750)
        exp_cpubound(25, 1)
        exp_echo(1000, 1, 64)
        exp_grow()
    else:
        full = [("switch", lambda: exp_switch(200000, 3)),
                ("pipe", lambda: exp_pipe(50000, 3)),
                ("pipeline", lambda: exp_pipeline(1000000, 5)),
                ("futex_pshared", lambda: exp_futex_pshared(20000, 3)),
                ("prio_protect", lambda: exp_prio_protect(200000, 3)),
                ("fork_waits", lambda: exp_fork_waits(1000, 200, 3, 3)),
                ("signal_rate", lambda: exp_signal_rate(1000, 3)),
                ("signal_storm", lambda: exp_signal_storm(300, 3, 5)),
                ("spawn", lambda: exp_spawn(10000, 3)),
                ("waiters", lambda: (exp_waiters(10000, 120), exp_waiters(100000, 240))),
                ("waiters_small", lambda: exp_waiters_small(100000, 64 << 10, 240)),
                ("idle", lambda: exp_burst(100000, 1, 12, "idle: memory given back")),
                ("burst", lambda: exp_burst(100000, 5, 10, "burst")),
                ("blocking", lambda: exp_blocking(1000, 8, 2000)),
                ("connect", lambda: exp_connect(8000)),
                ("timeslice", lambda: exp_timeslice(2000)),
                ("tightloop", lambda: exp_tightloop(3000)),
                ("cpubound", lambda: exp_cpubound(50, 3)),
                ("echo", lambda: exp_echo(10000, 5, 64)),
                ("grow", exp_grow)]
        if only:
            unknown = set(only) - set(k for k, _ in full)
            if unknown:
                sys.exit("bench: no experiment %s (have: %s)"
                         % (", ".join(sorted(unknown)), " ".join(k for k, _ in full)))
        for name, fn in full:
            if not only or name in only:
                fn()
        if os.environ.get("BENCH_MILLION") == "1" and not only:
            exp_million()  # about 5-7 minutes on this project's VM
    print_table()
    print("\n(%.0f s)" % (time.monotonic() - t0))
    for a in sys.argv[2:]:
        if a.startswith("--results="):
            write_results(a[len("--results="):], mode[2:])
    if problems:
        print("\nproblems:")
        for p in problems:
            print("  " + p)
    # Hangs and crashes are listed above; --strict makes them fail the run.
    strict = "--strict" in sys.argv[2:]
    sys.exit(1 if strict and any(p.startswith(("HANG", "CRASH")) for p in problems) else 0)


if __name__ == "__main__":
    main()
