#!/usr/bin/env python3
"""readme.py BUILD PROG TOOLS: the README and docs/ as a reader meets them.

- Every command of README.md's shell code blocks is either run here, as
  written, with `./prog args...` standing for PROG (basic_join), `PID` for
  a running weft program (TOOLS/stack_target park 3) and `build/` for
  BUILD, and its exit status checked, or listed in NOT_RUN with the reason
  it cannot run in CI.  A command in the README that is in neither list,
  and a listed command no longer in the README, fail the check, so the
  README and this list drift together or not at all.
- Every relative link of README.md, HACKING.md and docs/*.md resolves: the
  file exists and its #anchor is a heading (GitHub's slug) or an
  `<a id>` of that file.
- Every path under sched/, shim/, tools/, arch/, bench/ or tests/ those
  files name exists (a program's name: its source, NAME.c), and so does
  every bare source file name they quote (`proc.c`) somewhere in the tree.
- docs/benchmarks.md and its charts are what tools/benchdoc.py makes of
  docs/results/.

Prints one line per check ("PASS name" / "FAIL name: why") and exits 1 on
any failure.
"""
import glob, os, re, shlex, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = ["README.md", "HACKING.md"] + sorted(os.path.relpath(p, ROOT)
                                           for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))

# The README's commands that are run: command (as written, comment
# stripped) -> the exit status wanted ("native": PROG's own native status).
RUN = {
    "build/weft run ./prog args...": "native",
    "build/weft compare ./prog args...": 0,
    "build/weft compare -n 5 -e GOMAXPROCS=1 --svg cmp.svg ./prog args...": 0,
    "WEFTDEBUG=trace=t.json build/weft run ./prog": "native",
    "build/weft trace t.json": 0,
    "build/weft stack PID": 0,
    "build/weft top -b -n 3 PID": 0,
    "build/weft profile --seconds 5 -o cpu.pprof --svg cpu.svg PID": 0,
    "build/weft profile --mutex --seconds 5 -o mu.pprof PID": 0,
    "build/weft flame -o cpu.svg cpu.pprof": 0,
    "build/weft --help": 0,
    "build/weft --version": 0,
}
# The README's commands that are not run here, with the reason; a target
# is still checked to exist (make -n).
NOT_RUN = {
    "make demo": ("minutes of benchmarks on a quiet machine; .ci/run's machine is shared", "demo"),
    "make test": ("make test runs this check", "test"),
    "build/weft top PID": ("interactive: needs a terminal (run.sh drives it in tmux)", None),
}


def commands():
    """The commands of README.md's ```sh blocks, comments stripped."""
    out, inblock = [], False
    for line in open(os.path.join(ROOT, "README.md"), encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("```"):
            inblock = line.strip() in ("```sh", "```bash", "```shell") if not inblock else False
            continue
        if inblock and line.strip():
            out.append(re.sub(r"\s+#.*$", "", line).strip())
    return out


def slug(heading):
    """GitHub's anchor for a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    a = {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}
    return a | set(re.findall(r'<a id="([^"]+)"', text))


class Checks:
    def __init__(self):
        self.failed = 0

    def ok(self, name):
        print("PASS " + name)

    def bad(self, name, why):
        self.failed += 1
        print("FAIL %s: %s" % (name, why))


def check_links(c):
    n = 0
    for doc in DOCS:
        path = os.path.join(ROOT, doc)
        text = re.sub(r"```.*?```", "", open(path, encoding="utf-8").read(), flags=re.S)
        for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            n += 1
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            line = text[:m.start()].count("\n") + 1
            if not os.path.exists(dest):
                c.bad("link %s:%d" % (doc, line), "%s: no such file" % target)
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                c.bad("link %s:%d" % (doc, line), "%s: %s has no heading or anchor #%s"
                      % (target, os.path.relpath(dest, ROOT), anchor))
    c.ok("links: %d relative links checked in %s" % (n, ", ".join(DOCS)))


def check_paths(c):
    tree = set()
    for d in ("sched", "shim", "arch", "tools", "tests", "bench"):
        for dp, _, fs in os.walk(os.path.join(ROOT, d)):
            tree.update(fs)
    n = 0
    for doc in DOCS:
        text = open(os.path.join(ROOT, doc), encoding="utf-8").read()
        for m in re.finditer(r"(?<![\w./-])((?:sched|shim|tools|arch|bench|tests)/[\w./+-]*)", text):
            p = m.group(1).rstrip(".")
            if re.search(r"[A-Z]{3,}", p) or p.endswith("/NAME"):  # placeholders (NAME, ARCH)
                continue
            n += 1
            if not any(os.path.exists(os.path.join(ROOT, p + x)) for x in ("", ".c", ".cpp")):
                line = text[:m.start()].count("\n") + 1
                c.bad("path %s:%d" % (doc, line), "%s does not exist" % p)
        for m in re.finditer(r"`([\w-]+\.(?:c|h|S|ld|map))`", text):
            n += 1
            if m.group(1) not in tree:
                line = text[:m.start()].count("\n") + 1
                c.bad("file %s:%d" % (doc, line), "%s is in no folder of the tree" % m.group(1))
    c.ok("paths: %d source paths and file names checked" % n)


def run_commands(c, build, prog, tools):
    cmds = commands()
    for cmd in cmds:
        if cmd not in RUN and cmd not in NOT_RUN:
            c.bad("readme command", "%r is neither run by tests/tools/readme.py nor listed "
                  "there as not runnable (RUN / NOT_RUN)" % cmd)
    for cmd in list(RUN) + list(NOT_RUN):
        if cmd not in cmds:
            c.bad("readme command", "%r is listed in tests/tools/readme.py but is no longer "
                  "in README.md" % cmd)
    for cmd, (why, target) in NOT_RUN.items():
        if cmd in cmds and target:
            r = subprocess.run(["make", "-n", "-C", ROOT, target], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            if r.returncode:
                c.bad("readme %r" % cmd, "make -n %s: %s" % (target, r.stderr.decode()[-200:]))
            else:
                c.ok("readme %r: the target exists (not run: %s)" % (cmd, why))
    native = subprocess.run([prog], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    tmp = tempfile.mkdtemp(prefix="weft-readme.")
    target = subprocess.Popen([build + "/weft", "run", tools + "/stack_target", "park", "3"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        if target.stdout.readline().strip() != b"ready":
            c.bad("readme commands", "stack_target did not start")
            return
        for cmd in [x for x in cmds if x in RUN]:
            words = []
            for w in shlex.split(cmd):
                if w == "args...":
                    continue
                if w in ("./prog",):
                    w = prog
                elif w == "PID":
                    w = str(target.pid)
                elif w.startswith("build/"):
                    w = os.path.join(build, w[len("build/"):])
                words.append(w)
            env = dict(os.environ)
            while words and re.match(r"^[A-Z_]+=", words[0]):
                k, _, v = words.pop(0).partition("=")
                env[k] = v
            want = native if RUN[cmd] == "native" else RUN[cmd]
            try:
                r = subprocess.run(words, cwd=tmp, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=120)
                got, err = r.returncode, r.stderr.decode(errors="replace")
            except subprocess.TimeoutExpired:
                got, err = "timeout", ""
            if got == want:
                c.ok("readme %r" % cmd)
            else:
                c.bad("readme %r" % cmd, "exit %s, wanted %s: %s" % (got, want, err[-300:]))
    finally:
        target.send_signal(signal.SIGUSR1)
        try:
            target.wait(timeout=20)
        except subprocess.TimeoutExpired:
            target.kill()
            target.wait()
        subprocess.run(["rm", "-rf", tmp])


def check_benchdoc(c):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "benchdoc.py"), "--check"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode:
        c.bad("benchmarks.md", r.stdout.decode().strip()[-300:])
    else:
        c.ok("benchmarks.md and its charts are tools/benchdoc.py's of docs/results/")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.splitlines()[0])
    build, prog, tools = (os.path.abspath(a) for a in sys.argv[1:])
    c = Checks()
    check_links(c)
    check_paths(c)
    check_benchdoc(c)
    run_commands(c, build, prog, tools)
    print("readme: %s" % ("all passed" if not c.failed else "%d failed" % c.failed))
    sys.exit(1 if c.failed else 0)


if __name__ == "__main__":
    main()
