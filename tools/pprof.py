#!/usr/bin/env python3
"""weft profile [--mutex | --block] [--seconds N] [-o FILE] [--svg OUT.svg] PID:
a profile of running weft program PID for N seconds (default 10), written
to FILE (default PID.pprof) in the pprof format (`go tool pprof -top FILE`
reads it), and its flame graph to OUT.svg if asked.  PID runs on.  By
default a CPU profile: its tasks are sampled at about 100 Hz of each
worker's CPU time, labelled with task id and thread name.  --mutex: the
contended waits for mutexes meanwhile (count and delay, by the waiter's
call site and the unlocking holder's), as WEFTDEBUG=mutexprofile=FILE
records; --block: where tasks waited meanwhile (condition variables,
joins, sleeps, the poller, blocking calls; sampled, by stack), as
WEFTDEBUG=blockprofile=FILE.  As weft stack asks for its dump (stack.py):
an unlinked, empty temporary file on descriptor D here, and SIGURG queued
to PID with the value (MAGIC << 32 | N << 20 | D, MAGIC "wefp", "wefm" or
"wefb"); weft's profiler thread in PID writes the profile there, ending
with its period field, which this waits for.  Exit status: 0 with the profile; 1 when PID is not a weft program,
not the caller's, exits or does not answer; 2 for a usage error.

weft flame FILE [-o OUT.svg] [--value N]: an SVG flame graph of a pprof
profile (profile.proto, plain or gzip: weft's WEFTDEBUG=cpuprofile=FILE,
or any other pprof file), drawn with no tool outside the standard
library.  Each box is a function; its width is the share of the samples'
value (the last sample type unless --value picks another, 0-based) whose
stacks pass through it; roots at the bottom, as flamegraph.pl draws.
Hovering a box shows its name, value and share (an SVG <title>).

As a module: read(path) returns the decoded profile (sample types, and
each sample's function names from the leaf up, values and labels),
which the tests use.
"""
import gzip
import html
import sys


def _varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def _fields(b):
    """(field number, wire type, value) of one message: ints for varints,
    bytes for length-delimited fields."""
    i, n = 0, len(b)
    while i < n:
        key, i = _varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = _varint(b, i)
        elif w == 2:
            ln, i = _varint(b, i)
            v = b[i:i + ln]
            if len(v) != ln:
                raise ValueError("truncated field %d" % f)
            i += ln
        elif w == 1:
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif w == 5:
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def _ints(w, v):
    """A repeated integer field: packed (bytes) or one varint."""
    if w == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(x)
    return out


def _signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def decode(data):
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strs, types, raw, locs, funcs = [], [], [], {}, {}
    last = None
    for f, w, v in _fields(data):
        last = f
        if f == 6:
            strs.append(v.decode("utf-8", "replace"))
        elif f == 1:
            d = dict((ff, vv) for ff, _, vv in _fields(v))
            types.append((d.get(1, 0), d.get(2, 0)))
        elif f == 2:
            s = {"loc": [], "val": [], "lab": []}
            for ff, ww, vv in _fields(v):
                if ff == 1:
                    s["loc"] += _ints(ww, vv)
                elif ff == 2:
                    s["val"] += [_signed(x) for x in _ints(ww, vv)]
                elif ff == 3:
                    s["lab"].append(dict((a, b) for a, _, b in _fields(vv)))
            raw.append(s)
        elif f == 4:
            lid, lines = 0, []
            for ff, _, vv in _fields(v):
                if ff == 1:
                    lid = vv
                elif ff == 4:
                    lines.append(dict((a, b) for a, _, b in _fields(vv)).get(1, 0))
            locs[lid] = lines
        elif f == 5:
            d = dict((ff, vv) for ff, _, vv in _fields(v))
            funcs[d.get(1, 0)] = d.get(2, 0)
    s = lambda k: strs[k] if 0 <= k < len(strs) else "?"
    prof = {"types": [(s(a), s(b)) for a, b in types], "samples": [], "complete": last == 12}
    for r in raw:
        names = []
        for lid in r["loc"]:
            fl = locs.get(lid) or []
            if not fl:
                names.append("0x%x" % lid)
            # a location's lines: the innermost (inlined) first
            names += [s(funcs.get(fid, 0)) for fid in fl]
        labels = {}
        for lab in r["lab"]:
            labels[s(lab.get(1, 0))] = s(lab[2]) if 2 in lab else lab.get(3, 0)
        prof["samples"].append({"stack": names, "values": r["val"], "labels": labels})
    return prof


def read(path):
    with open(path, "rb") as f:
        return decode(f.read())


def flame(prof, vi=None, title="weft flame graph"):
    """The SVG text of prof's flame graph, by value index vi."""
    if vi is None:
        vi = len(prof["types"]) - 1
    root = {"n": "all", "v": 0, "c": {}}
    for smp in prof["samples"]:
        v = smp["values"][vi] if vi < len(smp["values"]) else 0
        if v <= 0:
            continue
        node = root
        node["v"] += v
        for name in reversed(smp["stack"]):
            node = node["c"].setdefault(name, {"n": name, "v": 0, "c": {}})
            node["v"] += v
    width, rowh, pad = 1200, 16, 10

    def depth(n):
        return 1 + max([depth(c) for c in n["c"].values()] or [0])

    rows = depth(root)
    height = rows * rowh + 3 * pad + 16
    unit = prof["types"][vi][1] if prof["types"] else ""
    out = ['<?xml version="1.0" standalone="no"?>',
           '<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d">' % (width, height, width, height),
           '<style>text{font-family:monospace;font-size:11px}</style>',
           '<rect x="0" y="0" width="100%" height="100%" fill="#f8f8f0"/>',
           '<text x="%d" y="%d">%s</text>' % (pad, pad + 10, html.escape(title))]
    total = root["v"] or 1
    scale = (width - 2 * pad) / total

    def draw(n, x, level):
        w = n["v"] * scale
        if w < 0.5:
            return
        y = height - pad - (level + 1) * rowh
        h = sum(map(ord, n["n"])) % 60
        colour = "rgb(%d,%d,%d)" % (225 + h % 30, 90 + h * 2, 40 + h % 50)
        tip = "%s (%d %s, %.1f%%)" % (n["n"], n["v"], unit, 100.0 * n["v"] / total)
        out.append('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" '
                   'fill="%s" stroke="white" stroke-width="0.5"/>' %
                   (html.escape(tip), x, y, w, rowh - 1, colour))
        chars = int(w / 7)
        if chars >= 3:
            label = n["n"] if len(n["n"]) <= chars else n["n"][:chars - 2] + ".."
            out.append('<text x="%.1f" y="%d">%s</text>' % (x + 3, y + rowh - 4, html.escape(label)))
        out.append('</g>')
        cx = x
        for c in sorted(n["c"].values(), key=lambda c: c["n"]):
            draw(c, cx, level + 1)
            cx += c["v"] * scale

    draw(root, pad, 0)
    out.append('</svg>')
    return "\n".join(out) + "\n"


MAGIC = 0x77656670  # sched/observe/pprof.h: WT_PROF_MAGIC
MAGICS = {"cpu": MAGIC, "mutex": 0x7765666d, "block": 0x77656662}  # and _MUTEX, _BLOCK


def profile_main(argv):
    import ctypes, errno, os, signal, tempfile, time
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import stack
    secs, out, svg, args, kind = 10, None, None, list(argv), "cpu"
    while args and (args[0] in ("--mutex", "--block") or
                    (len(args) >= 2 and args[0] in ("--seconds", "-o", "--svg"))):
        if args[0] in ("--mutex", "--block"):
            kind = args[0][2:]
            args = args[1:]
            continue
        if args[0] == "--seconds":
            try:
                secs = int(args[1])
            except ValueError:
                secs = -1
            if not 1 <= secs <= 4095:
                print("weft: profile: --seconds wants a whole number from 1 to 4095", file=sys.stderr)
                return 2
        elif args[0] == "-o":
            out = args[1]
        else:
            svg = args[1]
        args = args[2:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(args) != 1 or not args[0].isdigit() or int(args[0]) <= 0:
        print("weft: profile: expected one process id (weft profile [--mutex | --block] "
              "[--seconds N] [-o FILE] [--svg OUT.svg] PID)", file=sys.stderr)
        return 2
    pid = int(args[0])
    out = out or "%d.pprof" % pid
    name = stack.check(pid)
    stack.become_owner(pid)
    with tempfile.TemporaryFile() as f:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.sigqueue.argtypes = [ctypes.c_int, ctypes.c_int, stack.Sigval]
        v = stack.Sigval()
        v.sival_ptr = MAGICS[kind] << 32 | secs << 20 | f.fileno()
        if libc.sigqueue(pid, signal.SIGURG, v) != 0:
            e = ctypes.get_errno()
            stack.fail("cannot signal process %d (%s): %s" % (pid, name, os.strerror(e)))
        deadline = time.monotonic() + secs + 10
        while True:
            time.sleep(0.05)
            f.seek(0)
            data = f.read()
            if data:
                try:
                    prof = decode(data)
                    if prof["complete"]:
                        break
                except (ValueError, IndexError):
                    pass
            if not stack.alive(pid):
                print("weft: profile: process %d exited before its profile was complete" % pid,
                      file=sys.stderr)
                return 1
            if time.monotonic() > deadline:
                print("weft: profile: process %d (%s) did not answer in %d s (stopped, its weft "
                      "too old for weft profile, or a profile already under way)"
                      % (pid, name, secs + 10), file=sys.stderr)
                return 1
    with open(out, "wb") as g:
        g.write(data)
    n = sum(s["values"][0] for s in prof["samples"] if s["values"])
    what = {"cpu": "samples", "mutex": "contended mutex waits", "block": "waits"}[kind]
    print("weft profile: pid %d (%s): %d %s in %d s written to %s" % (pid, name, n, what, secs, out))
    if svg:
        with open(svg, "w") as g:
            g.write(flame(prof, None, "weft profile: pid %d (%s)" % (pid, name)))
    return 0


def main(argv):
    if argv and argv[0] == "profile":
        return profile_main(argv[1:])
    out = vi = None
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "--value") and i + 1 < len(argv):
            if a == "-o":
                out = argv[i + 1]
            else:
                vi = int(argv[i + 1])
            i += 2
            continue
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        args.append(a)
        i += 1
    if len(args) != 1:
        print("weft: flame: expected one profile (weft flame FILE [-o OUT.svg])", file=sys.stderr)
        return 2
    try:
        prof = read(args[0])
    except (OSError, ValueError, IndexError, EOFError) as e:
        print("weft: flame: cannot read %s: %s" % (args[0], e), file=sys.stderr)
        return 1
    if vi is not None and not 0 <= vi < len(prof["types"]):
        print("weft: flame: --value %d: the profile has %d sample types" % (vi, len(prof["types"])),
              file=sys.stderr)
        return 2
    svg = flame(prof, vi, "weft flame graph: " + args[0])
    if out:
        with open(out, "w") as f:
            f.write(svg)
    else:
        sys.stdout.write(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
