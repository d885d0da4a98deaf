# weft-gdb.py — gdb commands for programs running under weft, as Go's
# runtime-gdb.py gives `info goroutines` and `goroutine N bt`.
#
#   (gdb) source tools/weft-gdb.py      (or: gdb -x tools/weft-gdb.py ...)
#   (gdb) info tasks                    every task: id, state, wait, start, name
#   (gdb) task 7 bt                     backtrace of task 7
#   (gdb) task 7 frame 3 / task 7 info registers   any command, on task 7
#
# `info tasks` replaces gdb's Ada command of that name (also: `info
# weft-tasks`).  It reads weft's own structures through libweft.so's debug
# information: wt_sched.alltasks (sched/core/runtime.h, struct wt_task).
#
# `task N CMD` on a task that is switched out (waiting or runnable) loads the
# registers its last switch saved (arch/x86_64/switch.S: the frame at
# ctx.sp holds r15, r14, r13, r12, rbx, rbp and the return address at +56;
# the caller's rsp is ctx.sp + 64) into the selected thread, runs CMD and
# puts the thread's registers back, as runtime-gdb.py does for goroutines.
# On a live process that thread is stopped by gdb meanwhile.  A core file's
# registers cannot be written: there `task N bt` installs an unwinder that
# gives the selected thread's innermost frame the task's saved registers as
# its caller's, and prints the backtrace from that caller on, renumbered
# from #0 (other commands than bt need a live process).  A task running on
# a worker is shown on that worker's thread instead.  weft keeps the live
# stacks in a core and the rest of its reservations out (sched/stack/stack.c,
# "Core dumps").
#
# Attach with weft's thread pointer in system-call mode (WEFT_TLS=syscall):
# in trap mode every switch is a SIGSEGV that gdb stops on.

import re

import gdb
import gdb.unwinder

STATES = {0: "idle", 1: "runnable", 2: "running", 3: "waiting", 4: "dead"}
SAVED = [("r15", 8), ("r14", 16), ("r13", 24), ("r12", 32), ("rbx", 40), ("rbp", 48)]


def tasks():
    """Every task, oldest first (the list is kept newest first)."""
    sched = gdb.parse_and_eval("wt_sched")
    t = sched["alltasks"]
    out = []
    seen = 0
    while int(t) != 0 and seen < 10000000:
        out.append(t)
        t = t["alllink"]
        seen += 1
    out.reverse()
    return out


def symbol(addr):
    """'name+off' for a code address, or its hex form."""
    if addr == 0:
        return "0x0"
    blk = None
    try:
        blk = gdb.block_for_pc(addr)
    except RuntimeError:
        pass
    if blk is not None and blk.function is not None:
        return blk.function.name
    s = gdb.execute("info symbol 0x%x" % addr, to_string=True).strip()
    if s.startswith("No symbol"):
        return "0x%x" % addr
    return s.split(" in section")[0].replace(" + ", "+")


def cstring(v):
    if int(v) == 0:
        return ""
    try:
        return v.string()
    except gdb.error:
        return "?"


def describe(t):
    st = int(t["state"])
    name = STATES.get(st, str(st))
    wait = ""
    if st == 3:
        why = cstring(t["wait_reason"])
        if not why:
            why = "sleep" if int(t["wait_on"]) == int(t["timer"].address) else "wait"
        wait = "%s on 0x%x" % (why, int(t["wait_on"]))
    elif st == 2 and int(t["m"]) != 0:
        wait = "on worker %d" % int(t["m"]["id"])
    start = "main" if bool(t["main"]) else symbol(int(t["start"]))
    return int(t["id"]), name, wait, start


def task_name(t):
    """The name the program gave the task (pthread_setname_np), or ""."""
    raw = bytes(int(t["name"][i]) & 0xff for i in range(15))
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def find(n):
    for t in tasks():
        if int(t["id"]) == n:
            return t
    raise gdb.GdbError("no task %d" % n)


class InfoTasks(gdb.Command):
    """List weft's tasks: id, state, what a waiting one waits on, start function, name."""

    def __init__(self, name):
        super(InfoTasks, self).__init__(name, gdb.COMMAND_STACK, gdb.COMPLETE_NONE)

    def invoke(self, arg, from_tty):
        gdb.write("%8s  %-9s %-40s %-24s %s\n" % ("task", "state", "wait", "start", "name"))
        for t in tasks():
            tid, state, wait, start = describe(t)
            gdb.write("%8d  %-9s %-40s %-24s %s\n" % (tid, state, wait, start, task_name(t)))


def run_on_saved(t, cmd):
    """Runs cmd with the selected thread's registers set to t's saved ones."""
    sp = int(t["ctx"]["sp"])
    u64 = gdb.lookup_type("unsigned long").pointer()
    word = lambda off: int(gdb.Value(sp + off).cast(u64).dereference())
    gdb.execute("frame 0", to_string=True)
    regs = ["rsp", "rip"] + [r for r, _ in SAVED]
    new = {r: word(off) for r, off in SAVED}
    new["rip"] = word(56)
    new["rsp"] = sp + 64
    saved = {r: int(gdb.parse_and_eval("$" + r)) for r in regs}
    try:
        gdb.execute("set $rsp = 0x%x" % new["rsp"], to_string=True)
    except gdb.error:
        return run_on_saved_core(new, cmd)  # a core: registers are read-only
    try:
        for r in regs:
            gdb.execute("set $%s = 0x%x" % (r, new[r]), to_string=True)
        gdb.execute(cmd)
    finally:
        gdb.execute("frame 0", to_string=True)
        for r in regs:
            gdb.execute("set $%s = 0x%x" % (r, saved[r]), to_string=True)


class _FrameId(object):
    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


class SavedTask(gdb.unwinder.Unwinder):
    """While regs is set: the innermost frame's caller has them (a core)."""

    def __init__(self):
        super(SavedTask, self).__init__("weft-task")
        self.regs = None

    def __call__(self, pf):
        if self.regs is None or pf.level() != 0:
            return None
        # The innermost frame's id lies below the task's frames (else gdb
        # stops at "previous frame inner to this frame").
        sp = pf.read_register("rsp")
        below = gdb.Value(self.regs["rsp"] - 64).cast(sp.type)
        info = pf.create_unwind_info(_FrameId(below, pf.read_register("rip")))
        for r, v in self.regs.items():
            info.add_saved_register(r, gdb.Value(v).cast(pf.read_register(r).type))
        return info


_unwinder = SavedTask()
gdb.unwinder.register_unwinder(None, _unwinder, replace=True)


def run_on_saved_core(regs, cmd):
    """bt on a core: the frames above the selected thread's innermost one."""
    if cmd.split()[0] not in ("bt", "backtrace", "where"):
        raise gdb.GdbError("on a core file, task N takes bt only")
    _unwinder.regs = regs
    gdb.invalidate_cached_frames()
    try:
        out = gdb.execute(cmd, to_string=True)
    finally:
        _unwinder.regs = None
        gdb.invalidate_cached_frames()
    keep = False
    for line in out.splitlines():
        m = re.match(r"#(\d+)(\s.*)", line)
        if m:
            keep = int(m.group(1)) >= 1
            if keep:
                line = "#%-2d %s" % (int(m.group(1)) - 1, m.group(2).lstrip())
        if keep:
            gdb.write(line + "\n")


def run_on_worker(t, cmd):
    """Runs cmd on the thread of the worker a running task is on."""
    ostid = int(t["m"]["ostid"])
    before = gdb.selected_thread()
    for th in gdb.selected_inferior().threads():
        if th.ptid[1] == ostid:
            th.switch()
            try:
                gdb.execute(cmd)
            finally:
                if before is not None:
                    before.switch()
            return
    raise gdb.GdbError("worker thread %d not found" % ostid)


class TaskCmd(gdb.Command):
    """task N CMD: run gdb command CMD (bt, frame K, info registers...) on task N."""

    def __init__(self):
        super(TaskCmd, self).__init__("task", gdb.COMMAND_STACK, gdb.COMPLETE_NONE)

    def invoke(self, arg, from_tty):
        parts = arg.split(None, 1)
        if len(parts) < 2 or not parts[0].isdigit():
            raise gdb.GdbError("usage: task N CMD   (e.g. task 7 bt)")
        t = find(int(parts[0]))
        st = int(t["state"])
        if st == 2:
            run_on_worker(t, parts[1])
        elif st in (1, 3) and (bool(t["main"]) or int(t["resumes"]) != 0):
            run_on_saved(t, parts[1])
        else:
            tid, state, _, start = describe(t)
            gdb.write("task %d is %s (start function %s): no stack yet\n" % (tid, state, start))


InfoTasks("info tasks")
InfoTasks("info weft-tasks")
TaskCmd()
