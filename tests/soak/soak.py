#!/usr/bin/env python3
"""soak.py: rounds of weft's tests under load, for a set time (make soak).

    soak.py --lib LIB --bindir DIR --secs N [--out DIR] [--real] PROG...

Each round runs every preload test program PROG once under weft
(LD_PRELOAD=LIB, WEFT_EXPECT=1), at GOMAXPROCS 1, 2 or 4 in turn (program i
of round r at [1, 2, 4][(i + r) % 3]), with the thread pointer switched
as weft picks it (WEFT_TLS unset) in even rounds and by system call
(WEFT_TLS=syscall, the mode of a machine without FSGSBASE) in odd ones,
and with --real the real-program tests (tests/real/run.sh, which sets
GOMAXPROCS itself) once.  Meanwhile:
  - a CPU hog (one busy process) loads the machine for the whole run;
  - a signal sender sends SIGUSR2 to the programs written to take it: those
    named sigstorm_* (tests/preload/sigstorm_*.c install a SIGUSR2 handler
    and count nothing from it in their output).  It waits until the
    process has a SIGUSR2 handler (SigCgt in /proc/PID/status), then sends
    one every 0.2 to 3 ms until the program exits.
A program's stdout and exit status must equal its native run's (made once
at the start, without load) or its NAME.expected (SKIP-NATIVE programs).

Every failure is kept in the run's directory (--out, default
build/soak/YYYYmmdd-HHMMSS): its stdout, its stderr (weft's report of a
crash), and
  - a crash (killed by a signal, or weft's "weft: fatal" / fault report):
    the core, when kernel.core_pattern writes one into the working
    directory (each run has its own, under cores/; RLIMIT_CORE unlimited);
    the summary names the pattern otherwise;
  - a hang (no exit within --timeout, 120 s): SIGQUIT first, which makes
    weft print every task and its backtrace on stderr (WEFT_SIGQUIT=
    dump-exit), then SIGKILL to the process group 10 s later;
  - a wrong result (stdout or status unlike the reference).
The last line is the summary: rounds, runs, crashes, hangs, wrong results,
and the list.  Exit status 1 if there was a crash or a hang, else 3 if there
was a wrong result (0 with --wrong-ok), 2 for a usage error.
Programs in LOAD_BOUND print what the machine's other load decides (the CPU
hog is that load): a difference there is kept and listed as load-bound, and
does not count as wrong; a crash or hang there counts as anywhere.
"""
import argparse
import os
import random
import re
import resource
import signal
import subprocess
import sys
import threading
import time

GS = [1, 2, 4]


def now():
    return time.monotonic()


def core_pattern():
    try:
        with open("/proc/sys/kernel/core_pattern") as f:
            return f.read().strip()
    except OSError:
        return ""


def allow_cores():
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def has_handler(pid, sig):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return (int(line.split()[1], 16) >> (sig - 1)) & 1 == 1
    except (OSError, ValueError):
        pass
    return False



# Programs whose output the hog itself decides, with the reason.
LOAD_BOUND = {
    "prio_order": "a real-time task does not preempt another process's thread "
                  "(the kernel sees SCHED_OTHER workers: docs/limits.md)",
    "prio_wake": "a real-time waiter created on another worker blocks before main's "
                 "release only if the kernel runs that worker first, which a CPU hog "
                 "of SCHED_OTHER competes with (docs/limits.md)",
    "pipe_alone": "messages written 20 ms apart by a child process are read one "
                  "read each only while the reader is not starved by other load",
    "sleep_busy": "a task's 1 ms timer is fired by sysmon or an idle worker, OS threads "
                  "that wait for a CPU as long as the machine's other load makes them "
                  "(natively the kernel's own timer wakes the thread); with two hogs on "
                  "2 CPUs weft's spinners use 1.2-1.5 ms a wait, native 0.5-0.6, the "
                  "budget 3",
}

class Sender(threading.Thread):
    """Sends SIGUSR2 to pid once it has a handler, until stop is set."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.stop, self.sent = pid, threading.Event(), 0

    def run(self):
        while not self.stop.is_set() and not has_handler(self.pid, signal.SIGUSR2):
            time.sleep(0.001)
        while not self.stop.is_set():
            try:
                os.kill(self.pid, signal.SIGUSR2)
                self.sent += 1
            except ProcessLookupError:
                return
            time.sleep(random.uniform(0.0002, 0.003))


class Soak:
    def __init__(self, a):
        self.a = a
        self.rounds = self.runs = self.sent = 0
        self.crashes, self.hangs, self.wrong, self.varied = [], [], [], []
        self.refs = {}
        self.pattern = core_pattern()
        self.cores_here = self.pattern != "" and not self.pattern.startswith("|") and "/" not in self.pattern

    def log(self, msg):
        print(msg, flush=True)
        with open(os.path.join(self.a.out, "soak.log"), "a") as f:
            f.write(msg + "\n")

    def reference(self, prog):
        """The native run's (stdout, status), or NAME.expected's with status 0."""
        name = os.path.basename(prog)
        try:
            r = subprocess.run([prog], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               timeout=self.a.timeout, cwd=self.a.scratch)
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired:
            out, rc = b"(native run timed out)\n", "timeout"
        if out.startswith(b"SKIP-NATIVE"):
            exp = os.path.join(self.a.src, name + ".expected")
            if os.path.exists(exp):
                with open(exp, "rb") as f:
                    out, rc = f.read(), 0
        return out, rc

    def keep(self, kind, tag, out, err, note=""):
        base = os.path.join(self.a.out, tag)
        with open(base + ".out", "wb") as f:
            f.write(out)
        with open(base + ".err", "wb") as f:
            f.write(err)
        lines = err.decode("utf-8", "replace").splitlines()
        report = [l for l in lines if l.startswith("weft:") or l.startswith("  #") or "task " in l]
        self.log("%s %s%s: stdout %s.out, stderr %s.err" % (kind.upper(), tag, note, base, base))
        for l in (report or lines)[:40]:
            self.log("    " + l)

    def run_one(self, prog, g, tag, tls):
        """One run under weft at GOMAXPROCS g, WEFT_TLS tls (None: unset);
        records a failure."""
        name = os.path.basename(prog)
        cwd = os.path.join(self.a.out, "cores", tag)
        os.makedirs(cwd, exist_ok=True)
        env = dict(os.environ, LD_PRELOAD=self.a.lib, WEFT_EXPECT="1", GOMAXPROCS=str(g),
                   WEFT_SIGQUIT="dump-exit")
        env.pop("WEFT_TLS", None)
        if tls:
            env["WEFT_TLS"] = tls
        p = subprocess.Popen([prog], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             cwd=cwd, start_new_session=True, preexec_fn=allow_cores)
        sender = None
        if name.startswith("sigstorm_"):
            sender = Sender(p.pid)
            sender.start()
        hung = False
        try:
            out, err = p.communicate(timeout=self.a.timeout)
        except subprocess.TimeoutExpired:
            hung = True
            if sender:
                sender.stop.set()
            os.kill(p.pid, signal.SIGQUIT)  # weft's task dump on stderr
            try:
                out, err = p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
        if sender:
            sender.stop.set()
            sender.join()
            self.sent += sender.sent
        self.runs += 1
        rc = p.returncode
        ref_out, ref_rc = self.refs[prog]
        errs = err.decode("utf-8", "replace")
        cores = os.listdir(cwd)
        where = ""
        if cores:
            where = ", core %s" % os.path.join(cwd, cores[0])
        elif rc is not None and rc < 0 and not self.cores_here:
            where = ", core per core_pattern '%s'" % self.pattern
        if hung:
            self.hangs.append(tag)
            self.keep("hang", tag, out, err, " (no exit in %d s; SIGQUIT's dump in the .err)%s" %
                      (self.a.timeout, where))
        elif (rc < 0 and rc != ref_rc) or re.search(r"^weft: fatal", errs, re.M) or \
                (ref_rc == 0 and re.search(r"^weft: .*\b(SIGSEGV|SIGBUS|SIGILL|SIGFPE)\b at ", errs, re.M)):
            self.crashes.append(tag)
            self.keep("crash", tag, out, err, " (status %d)%s" % (rc, where))
        elif (out != ref_out or rc != ref_rc) and os.path.basename(prog) in LOAD_BOUND:
            self.varied.append(tag)
            self.keep("load-bound", tag, out, err, " (status %s, reference %s; %s)" %
                      (rc, ref_rc, LOAD_BOUND[os.path.basename(prog)]))
        elif out != ref_out or rc != ref_rc:
            self.wrong.append(tag)
            self.keep("wrong", tag, out, err, " (status %s, reference %s; stdout %s)" %
                      (rc, ref_rc, "differs" if out != ref_out else "same"))
        if not cores:
            os.rmdir(cwd)

    def run_real(self, tag):
        """tests/real/run.sh once (it sets GOMAXPROCS itself where it matters,
        and checks the default's derivation): each FAIL line is a wrong result."""
        env = {k: v for k, v in os.environ.items() if k != "GOMAXPROCS"}
        try:
            r = subprocess.run(["sh", self.a.real_sh, self.a.lib], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, env=env, timeout=self.a.real_timeout)
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as e:
            out, rc = e.stdout or b"", "timeout"
        self.runs += 1
        if rc == "timeout":
            self.hangs.append(tag)
            self.keep("hang", tag, out, b"", " (tests/real/run.sh outlived %d s)" % self.a.real_timeout)
        elif rc != 0:
            fails = [l for l in out.decode("utf-8", "replace").splitlines() if l.startswith("FAIL")]
            self.wrong.append(tag)
            self.keep("wrong", tag, out, b"", " (%s)" % "; ".join(fails)[:300])

    def main(self):
        a = self.a
        for prog in a.progs:
            self.refs[prog] = self.reference(prog)
        hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            self.log("soak: %d programs, %d s, run directory %s, cores: %s" %
                     (len(a.progs), a.secs, a.out,
                      "in each run's directory under cores/" if self.cores_here else
                      "per kernel.core_pattern '%s'" % self.pattern))
            end = now() + a.secs
            r = 0
            while now() < end:
                progs = list(a.progs)
                random.shuffle(progs)
                for i, prog in enumerate(progs):
                    if now() >= end:
                        break
                    g = GS[(i + r) % 3]
                    tls = "syscall" if r % 2 else None
                    self.run_one(prog, g, "%s.g%d.r%d%s" % (os.path.basename(prog), g, r,
                                                            ".syscall" if tls else ""), tls)
                else:
                    if a.real and now() < end:
                        self.run_real("real.r%d" % r)
                    r += 1
                    self.rounds = r
                    self.log("round %d done: %d runs, %d crashes, %d hangs, %d wrong" %
                             (r, self.runs, len(self.crashes), len(self.hangs), len(self.wrong)))
        finally:
            hog.kill()
            hog.wait()
        bad = self.crashes + self.hangs + self.wrong
        self.log("soak: %d rounds, %d runs (%d SIGUSR2 sent), %d crashes, %d hangs, %d wrong%s"
                 "; %d load-bound differences%s" %
                 (self.rounds, self.runs, self.sent, len(self.crashes), len(self.hangs), len(self.wrong),
                  (": " + " ".join(bad)) if bad else "", len(self.varied),
                  (": " + " ".join(self.varied)) if self.varied else ""))
        if self.crashes or self.hangs:
            return 1
        return 3 if self.wrong and not self.a.wrong_ok else 0


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--secs", type=int, default=1800)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--real-timeout", type=int, default=1800)
    ap.add_argument("--out")
    ap.add_argument("--wrong-ok", action="store_true",
                    help="exit 0 when the only failures are wrong results (listed all the same)")
    ap.add_argument("progs", nargs="+")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    a.src = os.path.join(here, "..", "preload")
    a.real_sh = os.path.join(here, "..", "real", "run.sh")
    a.lib = os.path.abspath(a.lib)
    a.progs = [os.path.abspath(p) for p in a.progs]
    if not a.out:
        a.out = os.path.join(os.path.abspath(a.bindir), "..", "..", "soak",
                             time.strftime("%Y%m%d-%H%M%S"))
    a.out = os.path.normpath(a.out)
    a.scratch = os.path.join(a.out, "native")
    os.makedirs(a.scratch, exist_ok=True)
    return a


if __name__ == "__main__":
    sys.exit(Soak(parse()).main())
