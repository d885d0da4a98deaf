#!/usr/bin/env python3
"""bench/real/run.py [--only NAME,...] [-n N] [--out DIR] [--test]: real
programs from Debian packages, each run through `weft compare -n N --json`
(native and weft alternating, after a warm-up run of each), then one table
of the medians: wall time, CPU time, peak RSS and peak OS threads of both
sides, the ratio of the wall times (weft / native), whether the outputs
matched, and the geometric mean of the ratios.  Each case's JSON is kept
as OUT/NAME.json, the medians with the machine, date and commit as
OUT/results.json (tools/benchdoc.py makes docs/benchmarks.md of it).  Every case does a fixed amount of work and prints only
what does not depend on timing, so that the outputs can be compared.

The programs of bench/real/ are built into OUT/bin, the input data are
generated (seeded) into OUT/data, and MariaDB's data directory with
sysbench's table is made once into OUT/mariadb-template.

--table: the table of the JSON an earlier run kept, without running.

--test: one short case (stress-ng --switch, 2000 ops, -n 1) into a
temporary directory; exits 0 when the harness produced its table and JSON.
"""
import argparse, json, math, os, random, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA_FILES, DATA_FILE_MB = 40, 1
MARIADB_EVENTS = 4000
RG_PATTERNS = [r"\w+ing\s+\w+ed", "[a-z]{9,}", "ab[a-z]*ing", r"\b(the|and|qu)\w*\s\d", "x.*y.*z"]


def sh(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(out):
    """The C, C++ and Java programs, into out/bin (rebuilt when older than
    their source)."""
    b = os.path.join(out, "bin")
    os.makedirs(b, exist_ok=True)
    progs = [("gc_threads", "gc_threads.c", ["cc", "-O2", "-pthread", "-o", "{o}", "{s}", "-lgc"]),
             ("omp", "omp.c", ["cc", "-O2", "-fopenmp", "-o", "{o}", "{s}"]),
             ("thread_per_task", "thread_per_task.cpp",
              ["c++", "-O2", "-pthread", "-o", "{o}", "{s}"]),
             ("word_count", "word_count.cpp", ["c++", "-O2", "-o", "{o}", "{s}"]),
             ("cxx_waits", "cxx_waits.cpp",
              ["c++", "-O2", "-std=c++20", "-pthread", "-o", "{o}", "{s}"]),
             ("ThreadPool.class", "ThreadPool.java", ["javac", "-d", b, "{s}"]),
             ("pipeline", "../pipeline.c", ["cc", "-O2", "-pthread", "-o", "{o}", "{s}"])]
    if shutil.which("rustc"):
        progs.append(("rust_pipeline", "../rust/pipeline.rs", ["rustc", "-O", "-o", "{o}", "{s}"]))
    for name, src, cmd in progs:
        o, s = os.path.join(b, name), os.path.join(HERE, src)
        if os.path.exists(o) and os.path.getmtime(o) >= os.path.getmtime(s):
            continue
        sh([c.format(o=o, s=s) for c in cmd])


def gen_data(out):
    """DATA_FILES files of DATA_FILE_MB MB of seeded text in out/data/, and
    their concatenation out/data.txt."""
    d = os.path.join(out, "data")
    whole = os.path.join(out, "data.txt")
    if os.path.exists(whole):
        return
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(20261201)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rnd.choice(letters) for _ in range(rnd.randint(2, 10))) for _ in range(20000)]
    with open(whole + ".tmp", "w") as w:
        for i in range(DATA_FILES):
            lines, size = [], 0
            while size < DATA_FILE_MB << 20:
                words = rnd.choices(vocab, k=rnd.randint(4, 16))
                line = "%d %s\n" % (rnd.getrandbits(24), " ".join(words))
                lines.append(line)
                size += len(line)
            text = "".join(lines)
            with open(os.path.join(d, "f%02d.txt" % i), "w") as f:
                f.write(text)
            w.write(text)
    os.rename(whole + ".tmp", whole)


def mariadb_template(out):
    """A MariaDB data directory holding sysbench's oltp table, made with
    the server run natively; kept for later runs."""
    t = os.path.join(out, "mariadb-template")
    if os.path.exists(os.path.join(t, "sbtest")):
        return t
    shutil.rmtree(t, ignore_errors=True)
    tmp = tempfile.mkdtemp()
    try:
        sh(["mariadb-install-db", "--no-defaults", "--user=root", "--datadir=" + t,
            "--auth-root-authentication-method=normal", "--skip-test-db",
            "--innodb-log-file-size=16M"], stdout=subprocess.DEVNULL)
        sock = os.path.join(tmp, "sock")
        srv = subprocess.Popen(["mariadbd", "--no-defaults", "--user=root", "--datadir=" + t,
                                "--socket=" + sock, "--pid-file=" + os.path.join(tmp, "pid"),
                                "--skip-networking", "--skip-log-bin",
                                "--innodb-log-file-size=16M",
                                "--log-error=" + os.path.join(tmp, "err")])
        admin = ["mariadb-admin", "--no-defaults", "--socket=" + sock, "-uroot"]
        for _ in range(300):
            if subprocess.run(admin + ["ping"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.1)
        sh(["mariadb", "--no-defaults", "--socket=" + sock, "-uroot", "-e",
            "CREATE DATABASE sbtest"])
        sh(["sysbench", "oltp_read_write", "--db-driver=mysql", "--mysql-socket=" + sock,
            "--mysql-user=root", "--mysql-db=sbtest", "--tables=1", "--table-size=10000",
            "prepare"], stdout=subprocess.DEVNULL)
        sh(admin + ["shutdown"])
        srv.wait()
    except Exception:
        shutil.rmtree(t, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return t


SMALL_C_FILES = 12


def small_c(out):
    """A small C project (SMALL_C_FILES sources, a header, a Makefile) in
    out/small-c, for make -j2: short single-threaded processes (make, sh,
    cc, cc1, as, ld) under weft, the whole tree preloaded."""
    d = os.path.join(out, "small-c")
    if os.path.exists(os.path.join(d, "Makefile")):
        return d
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f.h"), "w") as f:
        f.write("".join("unsigned long f%d(unsigned long);\n" % i for i in range(SMALL_C_FILES)))
    for i in range(SMALL_C_FILES):
        with open(os.path.join(d, "f%d.c" % i), "w") as f:
            f.write('#include "f.h"\n#include <string.h>\n'
                    "static const char s%d[] = \"%s\";\n"
                    "unsigned long f%d(unsigned long x)\n{\n"
                    "\tfor (unsigned long i = 0; i < strlen(s%d); i++)\n"
                    "\t\tx = x * 31 + (unsigned char)s%d[i] + %d;\n"
                    "\treturn x;\n}\n" % (i, "abcdefgh" * (i + 1), i, i, i, i))
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write('#include <stdio.h>\n#include "f.h"\nint main(void)\n{\n'
                "\tunsigned long x = 1;\n"
                + "".join("\tx = f%d(x);\n" % i for i in range(SMALL_C_FILES))
                + '\tprintf("%lu\\n", x);\n\treturn 0;\n}\n')
    objs = " ".join("f%d.o" % i for i in range(SMALL_C_FILES))
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write("OBJS = main.o %s\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n"
                "%%.o: %%.c f.h\n\t$(CC) -O1 -c -o $@ $<\n" % objs)
    return d


def cases(out):
    """(name, argv, what) of each case; argv runs from ROOT."""
    b = os.path.join(out, "bin")
    data, whole = os.path.join(out, "data"), os.path.join(out, "data.txt")
    sq = os.path.join(out, "sqlite")
    cc = os.path.join(out, "c-build")
    os.makedirs(sq, exist_ok=True)
    pipe = lambda s: ["sh", "-c", s]
    return [
        ("mariadb-sysbench", lambda: ["sh", os.path.join(HERE, "mariadb.sh"), mariadb_template(out),
                                      os.path.join(out, "mariadb-figures.txt"), str(MARIADB_EVENTS)],
         "MariaDB server, sysbench oltp_read_write 16 threads %d transactions" % MARIADB_EVENTS),
        ("stress-mutex", ["stress-ng", "-q", "--mutex", "2", "--mutex-ops", "200000"], ""),
        ("stress-futex", ["stress-ng", "-q", "--futex", "2", "--futex-ops", "100000"], ""),
        ("stress-switch", ["stress-ng", "-q", "--switch", "1", "--switch-ops", "100000"], ""),
        # stress-ng 0.15's --sem (POSIX semaphores) never stops on its
        # --sem-ops count (it waits for --timeout); --sem-sysv does stop.
        ("stress-sem-sysv", ["stress-ng", "-q", "--sem-sysv", "2", "--sem-sysv-ops", "50000"], ""),
        ("stress-pthread", ["stress-ng", "-q", "--pthread", "2", "--pthread-ops", "4000"], ""),
        ("boehm-gc", [os.path.join(b, "gc_threads")], ""),
        ("python-sqlite3", ["python3", os.path.join(HERE, "py_sqlite.py"), sq], ""),
        # One WAL database: 4 writers through SQLite's busy handler, 4 readers.
        ("python-sqlite3-wal", ["python3", os.path.join(HERE, "py_sqlite_wal.py"), sq], ""),
        ("python-200-threads", ["python3", os.path.join(HERE, "py_threads200.py")], ""),
        ("ripgrep", pipe("for p in %s; do rg -j2 -c \"$p\" %s; done | LC_ALL=C sort | cksum"
                         % (" ".join("'%s'" % p for p in RG_PATTERNS), data)), ""),
        ("zstd", pipe("zstd -T2 -3 -q -c %s | cksum" % whole), ""),
        ("xz", pipe("xz -T2 -0 -q -c %s | cksum" % whole), ""),
        ("sort", pipe("LC_ALL=C sort --parallel=2 -S 200M %s | cksum" % whole), ""),
        ("java-pool", ["java", "-Xss1m", "-cp", b, "ThreadPool"], ""),
        ("openmp", ["env", "OMP_NUM_THREADS=2", os.path.join(b, "omp")], ""),
        ("cxx-thread-per-task", [os.path.join(b, "thread_per_task")], ""),
        # 10,000 threads waiting at once on a std::latch, a std::barrier and
        # a std::atomic<int>::wait (flagless futexes on private memory).
        ("cxx-waits-10000", [os.path.join(b, "cxx_waits"), "10000"], ""),
        # A single-threaded C++ filter through iostreams (stdio underneath).
        ("cxx-iostream", pipe("cat %s/f0?.txt | %s | cksum" % (data, os.path.join(b, "word_count"))),
         ""),
        # A chain of wake-ups: producer, 8 stages, main summing 1 M
        # messages (bench/pipeline.c, bench/rust/pipeline.rs); the sum only.
        ("c-pipeline", pipe("%s 1000000 | grep '^sum'" % os.path.join(b, "pipeline")), ""),
    ] + ([("rust-pipeline", pipe("%s 1000000 | grep '^sum'" % os.path.join(b, "rust_pipeline")), "")]
         if shutil.which("rustc") else []) + [
        # Short-lived single-threaded processes: make, gcc, cc1, as, ld.
        ("c-build", pipe("make -s -B -j2 B=%s %s/libweft.so" % (cc, cc)), ""),
        # Process trees, weft preloaded into every process: a shell loop of
        # short processes, make -j2 of a small C project, and CPython
        # threads that each run a child process.
        ("shell-loop", pipe("i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done; echo $i"),
         ""),
        ("make-small-c", lambda: pipe("make -s -B -j2 -C %s prog && %s/prog"
                                      % (small_c(out), small_c(out))), ""),
        ("python-subprocess", ["python3", os.path.join(HERE, "py_subprocess.py")], ""),
    ]


def compare(weft, argv, n, timeout, jpath):
    """weft compare's JSON for argv, also written to jpath; None on failure."""
    p = subprocess.run([weft, "compare", "-n", str(n), "--json", "--timeout", str(timeout), "--"]
                       + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        res = json.loads(p.stdout)
    except ValueError:
        sys.stderr.write("weft: bench-real: no JSON from weft compare (exit %d): %s\n"
                         % (p.returncode, p.stderr.decode(errors="replace")[-300:]))
        return None
    with open(jpath, "w") as f:
        f.write(p.stdout.decode())
    return res


def mariadb_figures(path, n):
    """Median transactions/s and p95 latency (ms) of each side's last n runs."""
    res = {}
    try:
        lines = open(path).read().split("\n")
    except OSError:
        return res
    for side in ("native", "weft"):
        rows = [l.split()[1:] for l in lines if l.startswith(side + " ")][-n:]
        try:
            tps = sorted(float(r[0]) for r in rows)
            p95 = sorted(float(r[1]) for r in rows)
        except (ValueError, IndexError):
            continue
        if tps:
            med = lambda v: (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
            res[side] = (med(tps), med(p95))
    return res


def table(rows):
    hdr = [("program", "wall (s)", "", "weft/", "CPU (s)", "", "peak RSS (MB)", "", "OS threads", "", "outputs"),
           ("", "native", "weft", "native", "native", "weft", "native", "weft", "native", "weft", "equal")]
    body = []
    for name, r in rows:
        if r is None:
            body.append((name, "-", "-", "-", "-", "-", "-", "-", "-", "-", "no run"))
            continue
        m = lambda side, k, f: f.format(r[side][k]["median"])
        body.append((name, m("native", "wall", "{:.3f}"), m("weft", "wall", "{:.3f}"),
                     "{:.2f}".format(r["ratio"]["wall"]),
                     m("native", "cpu", "{:.2f}"), m("weft", "cpu", "{:.2f}"),
                     m("native", "rss", "{:.1f}"), m("weft", "rss", "{:.1f}"),
                     m("native", "threads", "{:.0f}"), m("weft", "threads", "{:.0f}"),
                     "yes" if r["same"] else "NO"))
    all_rows = hdr + body
    widths = [max(len(x[i]) for x in all_rows) + 2 for i in range(len(hdr[0]))]
    for x in all_rows:
        print("".join(c.ljust(w) if i == 0 else c.rjust(w)
                      for i, (c, w) in enumerate(zip(x, widths))).rstrip())


def write_results(path, rows, mf):
    """The medians as JSON for tools/benchdoc.py (docs/benchmarks.md), with
    the machine, date and commit."""
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
    med = lambda side, r: {k: r[side][k]["median"] for k in ("wall", "cpu", "rss", "threads")}
    cases = [{"name": name, "native": med("native", r), "weft": med("weft", r),
              "ratio_wall": r["ratio"]["wall"], "same": r["same"]} for name, r in rows if r is not None]
    doc = {"suite": "bench-real", "date": time.strftime("%Y-%m-%d", time.gmtime()),
           "commit": cmd(["git", "describe", "--always", "--dirty"]) or "unknown",
           "runs": max([r["runs"] for _, r in rows if r is not None] or [0]),
           "machine": {"cpu": cpu, "cpus": os.cpu_count(), "kernel": os.uname().release,
                       "tls": os.environ.get("WEFT_TLS") or "auto"},
           "cases": cases}
    if mf:
        doc["mariadb"] = {s: {"tps": mf[s][0], "p95_ms": mf[s][1]} for s in mf}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    p = argparse.ArgumentParser(prog="bench-real")
    p.add_argument("--only", help="comma-separated case names")
    p.add_argument("-n", type=int, default=5, help="runs of each side (default 5)")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "bench-real"))
    p.add_argument("--weft", default=os.path.join(ROOT, "build", "weft"))
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--test", action="store_true", help="one short case, to check the harness")
    p.add_argument("--table", action="store_true",
                   help="only print the table of the JSON kept in OUT by an earlier run")
    args = p.parse_args()
    weft = os.path.abspath(args.weft)
    if args.test:
        out = tempfile.mkdtemp(prefix="bench-real.")
        todo = [("stress-switch-short", ["stress-ng", "-q", "--switch", "1", "--switch-ops", "2000"], "")]
        args.n = 1
    else:
        out = os.path.abspath(args.out)
        os.makedirs(out, exist_ok=True)
        build(out)
        gen_data(out)
        todo = cases(out)
        if args.only:
            want = args.only.split(",")
            unknown = set(want) - {c[0] for c in todo}
            if unknown:
                sys.exit("weft: bench-real: no case %s (cases: %s)"
                         % (", ".join(sorted(unknown)), ", ".join(c[0] for c in todo)))
            todo = [c for c in todo if c[0] in want]
    figs = os.path.join(out, "mariadb-figures.txt")
    rows = []
    if args.table:
        for name, _, _ in todo:
            try:
                with open(os.path.join(out, name + ".json")) as f:
                    r = json.load(f)
            except (OSError, ValueError):
                continue
            args.n = r["runs"]
            rows.append((name, r))
        todo = []
    elif os.path.exists(figs):
        os.unlink(figs)
    for name, argv, _ in todo:
        if callable(argv):
            argv = argv()
        sys.stderr.write("bench-real: %s ...\n" % name)
        sys.stderr.flush()
        t0 = time.monotonic()
        r = compare(weft, argv, args.n, args.timeout, os.path.join(out, name + ".json"))
        sys.stderr.write("bench-real: %s %.0f s%s\n" % (name, time.monotonic() - t0,
                         "" if r is None or r["same"] else ": outputs differ: "
                         + " | ".join(r["diff"][:6])))
        rows.append((name, r))
    ns = sorted({r["runs"] for _, r in rows if r is not None}) or [args.n]
    print("weft compare -n %s, medians; %d CPUs%s" % ("/".join(map(str, ns)), os.cpu_count(),
          "" if not args.test else " (harness check)"))
    table(rows)
    ratios = [r["ratio"]["wall"] for _, r in rows if r is not None and r["ratio"]["wall"]]
    if ratios:
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print("geometric mean of weft/native wall: %.2f (%d programs)" % (g, len(ratios)))
    mf = mariadb_figures(figs, args.n)
    if mf:
        print("mariadb-sysbench: " + "; ".join(
            "%s %.0f transactions/s, p95 latency %.2f ms" % (s, *mf[s]) for s in ("native", "weft") if s in mf))
    if not args.test:
        write_results(os.path.join(out, "results.json"), rows, mf)
    if args.test:
        ok = rows[0][1] is not None and os.path.exists(os.path.join(out, rows[0][0] + ".json"))
        shutil.rmtree(out, ignore_errors=True)
        sys.exit(0 if ok else 1)
    sys.exit(0 if rows and all(r is not None and r["same"] for _, r in rows) else 1)


if __name__ == "__main__":
    main()
