#!/usr/bin/env python3
"""benchdoc.py [--results DIR] [--template FILE] [--out FILE] [--img DIR] [--check]

Writes docs/benchmarks.md and its SVG charts (docs/img/) from the results
files the benchmark targets write (docs/results/*.json: `make bench` ->
bench.json, `make bench-real` -> bench-real.json; files of other names are
older tables kept beside them) and the prose in bench/benchmarks.md.in.
The output depends on nothing but those files, so the same input gives the
same bytes: --check compares instead of writing and exits 1 when the page
or a chart differs from what the input makes.

The template's placeholders: @BENCH_REAL@ (the bench-real table),
@BENCH@ (every make bench table, newest first), @CHART NAME@ (an image
link to docs/img/NAME.svg).  The charts: bench-real-wall (weft/native wall
time per program, the README's headline), bench-real-threads (peak OS
threads each side), bench (the make bench rows with a figure on both
sides, native and weft on a log scale).

A results file: {"suite": "bench" | "bench-real", "date", "commit",
"machine": {"description", "cpu", "cpus", "kernel", "tls"}, "source"?,
and "rows" (bench: {"section"} or {"label", "native", "weft", "unit",
"native_text", "weft_text", "ratio", "note"}) or "cases" (bench-real:
{"name", "native"/"weft": {"wall", "cpu", "rss", "threads"},
"ratio_wall", "same"}, with "runs" and "mariadb" beside them)}.
"""
import argparse, glob, json, math, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("`", "")


def machine_line(r):
    m = r.get("machine", {})
    parts = [m.get("description") or ""]
    for k, f in (("cpu", "%s"), ("cpus", "%s CPUs"), ("kernel", "kernel %s"), ("tls", "WEFT_TLS %s")):
        if m.get(k) and str(m[k]) not in parts[0]:
            parts.append(f % m[k])
    line = "Machine: %s.  Date: %s.  Commit: `%s`." % (
        ", ".join(p for p in parts if p), r.get("date", "?"), r.get("commit", "?"))
    if r.get("source"):
        line += "  Source: %s." % r["source"]
    return line


def real_table(r):
    out = [machine_line(r) + "  Medians of %s runs each side, native and weft alternating;"
           " wall and CPU in seconds, peak RSS in MB (the largest `ru_maxrss` of the case's"
           " processes), peak OS threads (sampled); all of a case's processes counted." % r.get("runs", "?"), "",
           "| program | wall native | wall weft | weft/native | CPU native / weft"
           " | RSS native / weft | OS threads native / weft | outputs equal |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    ratios = []
    for c in r["cases"]:
        n, w = c["native"], c["weft"]
        ratios.append(c["ratio_wall"])
        out.append("| `%s` | %.3f | %.3f | %.2fx | %.2f / %.2f | %.1f / %.1f | %s / %s | %s |" % (
            c["name"], n["wall"], w["wall"], c["ratio_wall"], n["cpu"], w["cpu"], n["rss"], w["rss"],
            "{:,.0f}".format(n["threads"]), "{:,.0f}".format(w["threads"]), "yes" if c["same"] else "NO"))
    g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    out += ["", "Geometric mean of weft/native wall time: %.2f (%d programs)." % (g, len(ratios))]
    md = r.get("mariadb")
    if md:
        out[-1] += "  MariaDB under sysbench: " + "; ".join(
            "%s %s transactions/s, p95 latency %.1f ms" % (s, "{:,.0f}".format(md[s]["tps"]), md[s]["p95_ms"])
            for s in ("native", "weft") if s in md) + "."
    return "\n".join(out)


def bench_table(r):
    out = [machine_line(r), "", "| experiment | native | weft | note |", "| --- | --- | --- | --- |"]
    for row in r["rows"]:
        if "section" in row:
            out.append("| **%s** | | | |" % row["section"])
        else:
            note = "; ".join(x for x in (row.get("ratio"), row.get("note")) if x)
            out.append("| %s | %s | %s | %s |" % (row["label"], row["native_text"], row["weft_text"],
                                                 note.replace("|", "\\|")))
    return "\n".join(out)


def svg_bars(title, labels, series, scale, fmt, axis_note, ref=None):
    """Horizontal bars: series is [(name, colour, [value or None])], one
    bar per series per label; scale 'log' or 'lin'; ref draws a vertical
    line at that value."""
    lw, bw, rh = 300, 420, 14 * len(series) + 8
    h = 60 + rh * len(labels) + 30
    vals = [v for _, _, vs in series for v in vs if v]
    lo, hi = min(vals + ([ref] if ref else [])), max(vals + ([ref] if ref else []))
    if scale == "log":
        lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
        hi = max(hi, lo * 10)
        x = lambda v: lw + bw * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        base = x(lo)
    else:
        lo, hi = 0, (hi * 1.1) or 1
        x = lambda v: lw + bw * v / hi
        base = lw
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
         % (lw + bw + 80, h),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="20" font-size="14" font-weight="bold">%s</text>' % esc(title),
         '<text x="10" y="38" fill="#555">%s</text>' % esc(axis_note)]
    for k, (name, col, _) in enumerate(series):
        o.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>'
                 % (lw + 160 * k, 44, col, lw + 160 * k + 14, 53, esc(name)))
    if scale == "log":
        d = lo
        while d <= hi * 1.0001:
            o.append('<line x1="%.1f" y1="58" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" '
                     'text-anchor="middle" fill="#555">%s</text>' % (x(d), x(d), h - 24, x(d), h - 10, fmt(d)))
            d *= 10
    if ref:
        o.append('<line x1="%.1f" y1="58" x2="%.1f" y2="%d" stroke="#333" stroke-dasharray="4,3"/>'
                 % (x(ref), x(ref), h - 24))
    for i, lab in enumerate(labels):
        y0 = 62 + rh * i
        o.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (lw - 8, y0 + rh / 2, esc(lab)))
        for k, (_, col, vs) in enumerate(series):
            v = vs[i]
            if not v:
                continue
            y = y0 + 14 * k
            x0, x1 = (base, x(v)) if ref is None or scale != "log" else (min(x(ref), x(v)), max(x(ref), x(v)))
            o.append('<rect x="%.1f" y="%d" width="%.1f" height="12" fill="%s"/>' % (x0, y, max(x1 - x0, 1), col))
            o.append('<text x="%.1f" y="%d">%s</text>' % (max(x1, x(ref) if ref else 0) + 4, y + 10, fmt(v)))
    o.append("</svg>")
    return "\n".join(o) + "\n"


def charts(real, benches):
    out = {}
    if real:
        names = [c["name"] for c in real["cases"]]
        g = "%s, %s" % (real.get("date", "?"), real.get("commit", "?"))
        out["bench-real-wall"] = svg_bars(
            "Real programs: wall time under weft / native (below 1: weft is faster)", names,
            [("weft/native wall time", "#3b7dd8", [c["ratio_wall"] for c in real["cases"]])],
            "log", lambda v: ("%.2fx" % v) if v < 10 else "%.0fx" % v,
            "make bench-real, medians of %s runs; %s" % (real.get("runs", "?"), g), ref=1.0)
        out["bench-real-threads"] = svg_bars(
            "Real programs: peak OS threads", names,
            [("native", "#999999", [c["native"]["threads"] for c in real["cases"]]),
             ("weft", "#3b7dd8", [c["weft"]["threads"] for c in real["cases"]])],
            "log", lambda v: "{:,.0f}".format(v), "make bench-real, log scale; %s" % g)
    if benches:
        b = benches[0]
        rows = [r for r in b["rows"] if "label" in r and isinstance(r.get("native"), (int, float))
                and isinstance(r.get("weft"), (int, float)) and r["native"] > 0 and r["weft"] > 0]
        lab = lambda r: (r["label"][:37] + "…" if len(r["label"]) > 38 else r["label"]) + (
            " (%s)" % r["unit"] if r["unit"] else "")
        out["bench"] = svg_bars(
            "make bench: native and weft", [lab(r) for r in rows],
            [("native", "#999999", [r["native"] for r in rows]),
             ("weft", "#3b7dd8", [r["weft"] for r in rows])],
            "log", lambda v: ("{:,.0f}".format(v) if v >= 10 else "%g" % v),
            "log scale, each row in its own unit; %s, %s" % (b.get("date", "?"), b.get("commit", "?")))
    return out


def main():
    p = argparse.ArgumentParser(prog="benchdoc")
    p.add_argument("--results", default=os.path.join(ROOT, "docs", "results"))
    p.add_argument("--template", default=os.path.join(ROOT, "bench", "benchmarks.md.in"))
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    p.add_argument("--img", default=os.path.join(ROOT, "docs", "img"))
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    files = sorted(glob.glob(os.path.join(a.results, "*.json")))
    docs = [json.load(open(f, encoding="utf-8")) for f in files]
    reals = [d for d in docs if d.get("suite") == "bench-real"]
    benches = sorted([d for d in docs if d.get("suite") == "bench"],
                     key=lambda d: (d.get("date", ""), d.get("commit", "")), reverse=True)
    # The main make bench table (bench.json, the one the target writes) first.
    main_b = [d for f, d in zip(files, docs) if os.path.basename(f) == "bench.json"]
    benches = main_b + [d for d in benches if d not in main_b]
    real = reals[0] if reals else None
    page = open(a.template, encoding="utf-8").read()
    page = page.replace("@BENCH_REAL@", real_table(real) if real else "(no bench-real results)")
    page = page.replace("@BENCH@", "\n\n".join(bench_table(b) for b in benches) or "(no bench results)")
    imgs = charts(real, benches)
    for name in imgs:
        page = page.replace("@CHART %s@" % name, "![%s](img/%s.svg)" % (name, name))
    want = {a.out: page}
    want.update({os.path.join(a.img, n + ".svg"): s for n, s in imgs.items()})
    bad = []
    for path, text in sorted(want.items()):
        if a.check:
            try:
                same = open(path, encoding="utf-8").read() == text
            except OSError:
                same = False
            if not same:
                bad.append(os.path.relpath(path, ROOT))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if bad:
        sys.exit("benchdoc: %s not what tools/benchdoc.py makes of %s: run python3 tools/benchdoc.py"
                 % (", ".join(bad), os.path.relpath(a.results, ROOT)))


if __name__ == "__main__":
    main()
