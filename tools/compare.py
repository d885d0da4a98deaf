#!/usr/bin/env python3
"""weft compare [OPTIONS] PROG [ARGS...]: runs PROG natively and under weft
(LD_PRELOAD=libweft.so) and answers "is it the same, and is it faster?".

With -n N each side runs N times, alternating (native, weft, native, ...),
after one discarded warm-up run of each.  For wall time, CPU time (user +
system, from wait4), peak RSS and peak OS threads it prints the median, min
and max of each side and the ratio of the medians (weft / native).  Every
run's stdout and exit status (and stderr with --stderr) are compared with
the native runs': a weft run matches when it equals one of them, so a
program whose native output varies run to run is judged fairly.  Only a
short diff is shown when they differ.

Peak RSS and CPU time are the kernel's accounting of the finished run:
compare.py starts a small static helper (weft-measure), which forks PROG,
is the subreaper of PROG's tree, and after reaping PROG reports
getrusage(RUSAGE_CHILDREN): CPU time is the user + system time of PROG and
of every descendant reaped by then; peak RSS is the largest ru_maxrss among
them (the biggest single process, not a sum over a pipeline).  A program
forked straight from Python would report at least Python's own 10 MB: at
exec the kernel folds the replaced image's high-water RSS into ru_maxrss.
Peak OS threads is sampled (the kernel keeps no peak of it): the Threads:
lines of the run's process group in /proc, summed, every 2 ms; members are
found every 20 ms.

Exit status: 0 when every run matched, 1 when one did not (or timed out),
2 for a usage error.  stdin is /dev/null for every run.
"""
import argparse, difflib, json, os, re, shlex, signal, statistics, sys, tempfile, time

MEASURES = [  # key, label, unit, format
    ("wall", "wall time", "s", "{:.3f}"),
    ("cpu", "CPU time", "s", "{:.3f}"),
    ("rss", "peak RSS", "MB", "{:.1f}"),
    ("threads", "peak OS threads", "", "{:.0f}"),
]


def group_of(pgid):
    """Pids of the processes in process group pgid."""
    res = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parens
        fields = st[st.rfind(")") + 2:].split()
        if len(fields) > 2 and fields[2] == str(pgid):
            res.add(int(d))
    return res


def status_threads(pid):
    """Threads: of a running process, 0 if unknown."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def run(argv, env, timeout, measure):
    """One run of argv under the helper measure: its outputs, status and
    measures."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        rfd, wfd = os.pipe()
        t0 = time.monotonic()
        try:
            pid = os.fork()
        except OSError as e:
            sys.exit("weft: compare: fork: %s" % e)
        if pid == 0:
            try:
                os.setpgid(0, 0)
                fd = os.open(os.devnull, os.O_RDONLY)
                os.dup2(fd, 0)
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                os.close(rfd)
                os.set_inheritable(wfd, True)
                os.execve(measure, [measure, str(wfd)] + argv, env)
            except OSError as e:
                os.write(2, ("weft: compare: cannot run %s: %s\n" % (argv[0], e)).encode())
            os._exit(127)
        os.close(wfd)
        peak, timed_out = 0, False
        members, polls = set(), 0
        while True:
            wpid, status, ru = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                break
            if polls % 10 == 0:
                members |= group_of(pid) - {pid}  # not the helper
            polls += 1
            th_sum = 0
            for m in list(members):
                th = status_threads(m)
                if th == 0:
                    members.discard(m)
                th_sum += th
            peak = max(peak, th_sum)
            if time.monotonic() - t0 > timeout and not timed_out:
                timed_out = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)
        wall = time.monotonic() - t0
        with os.fdopen(rfd, "rb") as f:
            report = f.read().split()
        out.seek(0)
        err.seek(0)
        r = {"out": out.read(), "err": err.read(), "status": status, "timeout": timed_out,
             "wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss / 1024.0,
             "threads": peak or 1}
        # status S maxrss KB utime US stime US: PROG's own, without the
        # helper's (killed by the timeout, it has none: the helper's).
        if len(report) == 8 and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            r["status"] = int(report[1])
            r["rss"] = int(report[3]) / 1024.0
            r["cpu"] = (int(report[5]) + int(report[7])) / 1e6
        return r


def describe(r, timeout):
    st = r["status"]
    if r["timeout"]:
        return "killed: timeout %gs" % timeout
    if os.WIFSIGNALED(st):
        s = os.WTERMSIG(st)
        try:
            return "signal %s" % signal.Signals(s).name
        except ValueError:
            return "signal %d" % s
    return "exit %d" % os.WEXITSTATUS(st)


def key_of(r, with_err):
    """What must match between runs."""
    return (r["out"], r["err"] if with_err else b"", r["status"], r["timeout"])


def short_diff(a, b, name, limit=20):
    """At most limit lines of a unified diff of a against b, or a note."""
    if a == b:
        return []
    digits = lambda s: re.sub(rb"[0-9][0-9.,]*", b"#", s)
    lines = list(difflib.unified_diff(a.decode(errors="replace").splitlines(),
                                      b.decode(errors="replace").splitlines(),
                                      "native " + name, "weft " + name, n=1, lineterm=""))
    note = ["(only numbers differ)"] if digits(a) == digits(b) else []
    if len(lines) > limit:
        lines = lines[:limit] + ["... (%d more diff lines)" % (len(lines) - limit)]
    return note + lines


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "values": values}


def ratio(w, n):
    return w / n if n else None


def fmt_ratio(r):
    return "-" if r is None else "{:.2f}x".format(r)


def print_table(args, lib, res):
    n = args.n
    print("$ " + shlex.join(args.prog))
    extra = " ".join(args.e) if args.e else ""
    print("weft: %s%s" % (lib, ("   weft side: " + extra) if extra else ""))
    print("runs: %d each side%s" % (n, ", alternating, after a warm-up run of each"
                                     if n > 1 and args.warmup else ""))
    rows = [("", "native", "", "", "weft", "", "", "weft/native"),
            ("", "median", "min", "max", "median", "min", "max", "(medians)")]
    for key, label, unit, f in MEASURES:
        ns, ws = res["native"][key], res["weft"][key]
        rows.append((label + (" (%s)" % unit if unit else ""),
                     f.format(ns["median"]), f.format(ns["min"]), f.format(ns["max"]),
                     f.format(ws["median"]), f.format(ws["min"]), f.format(ws["max"]),
                     fmt_ratio(res["ratio"][key])))
    widths = [max(len(r[i]) for r in rows) + 2 for i in range(len(rows[0]))]
    for r in rows:
        print("".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                      enumerate(zip(r, widths))).rstrip())
    print("exit status: native %s, weft %s" % (res["native_status"], res["weft_status"]))
    what = "stdout, stderr and exit status" if args.stderr else "stdout and exit status"
    if res["same"]:
        print("outputs: same in all %d runs (%s)" % (n, what))
    else:
        print("outputs: DIFFER in %d of %d weft runs (%s)" % (res["mismatches"], n, what))
        for line in res["diff"]:
            print("  " + line)
    if res["native_varies"]:
        print("note: the native runs' outputs differ among themselves")
    print("measured: CPU and peak RSS by the kernel at the run's end (getrusage RUSAGE_CHILDREN:"
          " CPU summed over its processes, RSS the largest one's); OS threads sampled every 2 ms")


def svg_chart(args, res):
    """A bar chart: per measure, native and weft medians, min-max whiskers."""
    W, H, top, bottom, panel = 200, 260, 50, 50, 40
    width = panel + len(MEASURES) * W
    colours = {"native": "#7f8c8d", "weft": "#2e86c1"}
    esc = lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, H + 20),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14">%s</text>' % esc("weft compare: " + shlex.join(args.prog))[:200],
           '<text x="10" y="38" fill="#555">median of %d runs each; whiskers: min-max</text>'
           % args.n]
    for i, (key, label, unit, f) in enumerate(MEASURES):
        x0 = panel + i * W
        top_v = max(res[s][key]["max"] for s in ("native", "weft")) * 1.15 or 1
        scale = (H - top - bottom) / top_v
        base = H - bottom
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
                   % (x0 + 20, base, x0 + W - 20, base))
        for j, side in enumerate(("native", "weft")):
            s = res[side][key]
            bx = x0 + 40 + j * 70
            h = s["median"] * scale
            out.append('<rect x="%d" y="%.1f" width="50" height="%.1f" fill="%s"/>'
                       % (bx, base - h, h, colours[side]))
            cx = bx + 25
            y1, y2 = base - s["min"] * scale, base - s["max"] * scale
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>'
                       % (cx, y1, cx, y2))
            for y in (y1, y2):
                out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>'
                           % (cx - 6, y, cx + 6, y))
            out.append('<text x="%d" y="%.1f" text-anchor="middle">%s</text>'
                       % (cx, y2 - 5, f.format(s["median"])))
            out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
                       % (cx, base + 15, side))
        out.append('<text x="%d" y="%d" text-anchor="middle" font-weight="bold">%s</text>'
                   % (x0 + W // 2, base + 35, esc(label + (" (%s)" % unit if unit else ""))))
        out.append('<text x="%d" y="%d" text-anchor="middle" fill="#555">weft/native %s</text>'
                   % (x0 + W // 2, base + 50, fmt_ratio(res["ratio"][key])))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def parse(argv):
    p = argparse.ArgumentParser(
        prog="weft compare", usage="weft compare [OPTIONS] PROG [ARGS...]",
        description="Run PROG natively and under weft; compare outputs, time, memory, threads.")
    p.add_argument("--lib", help=argparse.SUPPRESS, required=True)
    p.add_argument("--measure", help=argparse.SUPPRESS, required=True)
    p.add_argument("-n", type=int, default=1, metavar="N",
                   help="runs of each side, alternating (default 1)")
    p.add_argument("--warmup", type=int, default=None, metavar="N",
                   help="discarded warm-up runs of each side first (default 1 when -n > 1)")
    p.add_argument("-e", action="append", default=[], metavar="VAR=VALUE",
                   help="set VAR for the weft runs only (e.g. -e GOMAXPROCS=1); repeatable")
    p.add_argument("--stderr", action="store_true", help="compare stderr too")
    p.add_argument("--svg", metavar="FILE", help="write a bar chart of the figures to FILE")
    p.add_argument("--json", action="store_true", help="print the figures as JSON instead")
    p.add_argument("--timeout", type=float,
                   default=float(os.environ.get("WEFT_COMPARE_TIMEOUT", "600")),
                   help="seconds before a run is killed (counts as a mismatch; default 600)")
    p.add_argument("prog", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.prog and args.prog[0] == "--":
        args.prog = args.prog[1:]
    if not args.prog:
        p.error("missing program")
    if args.n < 1:
        p.error("-n must be at least 1")
    for kv in args.e:
        if "=" not in kv or kv.startswith("="):
            p.error("-e wants VAR=VALUE, not %r" % kv)
    if args.warmup is None:
        args.warmup = 1 if args.n > 1 else 0
    return args


def main():
    args = parse(sys.argv[1:])
    lib = os.path.abspath(args.lib)
    measure = os.path.abspath(args.measure)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    wenv = dict(env, LD_PRELOAD=lib)
    for kv in args.e:
        k, v = kv.split("=", 1)
        wenv[k] = v
    tty = sys.stderr.isatty()
    total = 2 * (args.n + args.warmup)
    runs = {"native": [], "weft": []}
    done = 0
    for i in range(args.warmup + args.n):
        for side, e in (("native", env), ("weft", wenv)):
            done += 1
            if tty:
                sys.stderr.write("\r\033[Kweft compare: run %d/%d (%s%s)" %
                                 (done, total, side, ", warm-up" if i < args.warmup else ""))
                sys.stderr.flush()
            r = run(args.prog, e, args.timeout, measure)
            if i >= args.warmup:
                runs[side].append(r)
    if tty:
        sys.stderr.write("\r\033[K")
    native_keys = [key_of(r, args.stderr) for r in runs["native"]]
    bad = [r for r in runs["weft"] if key_of(r, args.stderr) not in native_keys]
    same = not bad and not any(r["timeout"] for r in runs["native"])
    diff = []
    if bad:
        a, b = runs["native"][0], bad[0]
        diff = short_diff(a["out"], b["out"], "stdout")
        if args.stderr:
            diff += short_diff(a["err"], b["err"], "stderr")
        if a["status"] != b["status"] or b["timeout"]:
            diff.append("exit status: native %s, weft %s" %
                        (describe(a, args.timeout), describe(b, args.timeout)))
    res = {"command": args.prog, "lib": lib,
           "measured": {"cpu": "user+system of the run's processes, getrusage(RUSAGE_CHILDREN)",
                        "rss": "largest ru_maxrss among the run's processes",
                        "threads": "sampled: Threads: of the process group, every 2 ms"}, "runs": args.n, "warmup": args.warmup,
           "weft_env": args.e, "same": same, "mismatches": len(bad), "diff": diff,
           "native_varies": len(set(native_keys)) > 1,
           "native_status": describe(runs["native"][0], args.timeout),
           "weft_status": describe(runs["weft"][0], args.timeout)}
    for side in ("native", "weft"):
        res[side] = {k: summary([r[k] for r in runs[side]]) for k, *_ in MEASURES}
    res["ratio"] = {k: ratio(res["weft"][k]["median"], res["native"][k]["median"])
                    for k, *_ in MEASURES}
    if args.svg:
        try:
            with open(args.svg, "w") as f:
                f.write(svg_chart(args, res))
        except OSError as e:
            print("weft: compare: cannot write %s: %s" % (args.svg, e), file=sys.stderr)
            sys.exit(2)
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        print()
    else:
        print_table(args, lib, res)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
