#!/usr/bin/env python3
"""bench/real/profile_cost.py [--only NAME,...] [-n N] [--out DIR]: what
weft's profiles cost.  Each bench-real case (run.py's, same programs and
data) runs under weft N times in each of four settings, alternating
(plain, cpuprofile, mutexprofile, blockprofile, plain, ...), after a
warm-up run of each: WEFTDEBUG=cpuprofile=FILE, mutexprofile=FILE and
blockprofile=FILE, each FILE written at exit into a temporary directory.
Prints per case the median wall time of each setting and its ratio to
plain weft, then the geometric mean of each ratio; then the same for
CPU time (user + system of the run's whole process tree, from
RUSAGE_CHILDREN), which the machine's other load and its timer ticks
disturb less than wall time.  Timing only: the outputs are not compared
(bench-real does that).

Default cases: the threaded ones whose time is the program's own work
(stress-ng's mutex, futex, switch and pthread, c-pipeline, the
thread-per-task C++ program, OpenMP, Boehm GC, CPython's 200 threads,
sort and zstd); --only picks others by name.
"""
import argparse, math, os, resource, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as real  # noqa: E402  (bench/real/run.py: the cases)

DEFAULT = ["stress-mutex", "stress-futex", "stress-switch", "stress-pthread", "c-pipeline",
           "cxx-thread-per-task", "openmp", "boehm-gc", "python-200-threads", "sort", "zstd"]
KINDS = ["cpuprofile", "mutexprofile", "blockprofile"]


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def once(weft, argv, env, timeout):
    """(wall s, CPU s, exit status) of one run."""
    c0, t0 = cpu_children(), time.monotonic()
    p = subprocess.run([weft, "run", "--"] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=real.ROOT, env=env, timeout=timeout)
    return time.monotonic() - t0, cpu_children() - c0, p.returncode


def case_line(name, samples, ratios):
    """The table line of one case's medians (samples: setting -> values),
    each setting's ratio to plain weft appended to ratios."""
    base = statistics.median(samples["plain"])
    cells = []
    for k in KINDS:
        m = statistics.median(samples[k])
        ratios[k].append(m / base)
        cells.append("%7.3f s %5.3fx      " % (m, m / base))
    return "%-22s %9.3f %s" % (name, base, "  ".join(cells))


def main():
    ap = argparse.ArgumentParser(prog="profile_cost")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(real.ROOT, "build", "bench-real"))
    ap.add_argument("--weft", default=os.path.join(real.ROOT, "build", "weft"))
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    real.build(a.out)
    real.gen_data(a.out)
    want = a.only.split(",") if a.only else DEFAULT
    cases = [(n, argv) for n, argv, _ in real.cases(a.out) if n in want]
    tmp = tempfile.mkdtemp(prefix="weft-profcost-")
    ratios = {k: [] for k in KINDS}
    cratios = {k: [] for k in KINDS}
    crows = []
    print("wall time, median of %d" % a.n)
    print("%-22s %9s %s" % ("case", "weft (s)", "  ".join("%-22s" % k for k in KINDS)))
    try:
        for name, argv in cases:
            argv = argv() if callable(argv) else argv
            envs = {"plain": dict(os.environ)}
            for k in KINDS:
                e = dict(os.environ)
                e["WEFTDEBUG"] = "%s=%s/%s.%s.%%p" % (k, tmp, name, k)
                envs[k] = e
            times = {k: [] for k in envs}
            cpus = {k: [] for k in envs}
            failed = None
            for r in range(a.n + 1):
                for k, e in envs.items():
                    t, c, rc = once(a.weft, argv, e, a.timeout)
                    if rc != 0:
                        failed = "%s exit %d" % (k, rc)
                    if r:
                        times[k].append(t)
                        cpus[k].append(c)
                for f in os.listdir(tmp):
                    os.unlink(os.path.join(tmp, f))
            if failed:
                print("%-22s failed: %s" % (name, failed))
                continue
            print(case_line(name, times, ratios), flush=True)
            crows.append(case_line(name, cpus, cratios))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    geo = lambda rs: ["%-22s" % ("%.3fx" % math.exp(sum(map(math.log, v)) / len(v)) if v else "-")
                      for v in rs.values()]
    print("%-22s %9s %s" % ("geometric mean", "", "  ".join(geo(ratios))))
    print("\nCPU time, median of %d" % a.n)
    print("%-22s %9s %s" % ("case", "weft (s)", "  ".join("%-22s" % k for k in KINDS)))
    for row in crows:
        print(row)
    print("%-22s %9s %s" % ("geometric mean", "", "  ".join(geo(cratios))))


if __name__ == "__main__":
    main()
