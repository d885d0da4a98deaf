# CPython's multiprocessing under fork: its Lock, Semaphore and the lock of
# a Value are POSIX named semaphores (sem_open) shared by the parent and its
# children; a Pool of worker processes each running threads of their own.
# Every process checks that weft is mapped into itself (under the runner's
# weft pass) and reports it back, so a child that ran without weft shows.
import weft_check
weft_check.check_loaded()
import multiprocessing as mp
import os
import threading

mp.set_start_method("fork")


def loaded():
    if os.environ.get("WEFT_EXPECT") != "1":
        return True
    with open("/proc/self/maps") as f:
        return "libweft.so" in f.read()


def add(counter, lock, n, flags):
    flags.put(loaded())
    for _ in range(n):
        with lock:  # a separate lock: the Value's own is taken inside too
            counter.value += 1


def bounded(sem, inside, peak, n):
    for _ in range(n):
        with sem:
            with inside.get_lock():
                inside.value += 1
                peak.value = max(peak.value, inside.value)
            with inside.get_lock():
                inside.value -= 1


def threaded_square(x):
    # Four threads inside the pool worker meet on a Condition and sum.
    cond = threading.Condition()
    box = {"n": 0, "sum": 0}

    def part(i):
        with cond:
            box["n"] += 1
            cond.notify_all()
            while box["n"] < 4:
                cond.wait()
            box["sum"] += x * x if i == 0 else 0
    ts = [threading.Thread(target=part, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return box["sum"], loaded()


def main():
    counter = mp.Value("i", 0)
    lock = mp.Lock()
    flags = mp.Queue()
    ps = [mp.Process(target=add, args=(counter, lock, 2000, flags)) for _ in range(4)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    oks = [flags.get() for _ in ps]
    print("counter", counter.value, "exit codes", [p.exitcode for p in ps],
          "children with weft", sum(oks), "of", len(oks))

    sem = mp.BoundedSemaphore(2)
    inside = mp.Value("i", 0)
    peak = mp.Value("i", 0, lock=False)
    ps = [mp.Process(target=bounded, args=(sem, inside, peak, 300)) for _ in range(4)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    print("semaphore bound ok", 1 <= peak.value <= 2, "inside after", inside.value,
          "exit codes", [p.exitcode for p in ps])

    ev = mp.Event()
    waiters = [mp.Process(target=ev.wait) for _ in range(3)]
    for p in waiters:
        p.start()
    ev.set()
    for p in waiters:
        p.join(30)
    print("event woke", sum(p.exitcode == 0 for p in waiters), "of 3")

    with mp.Pool(3) as pool:
        got = pool.map(threaded_square, range(12))
    print("pool sum", sum(s for s, _ in got), "workers with weft", all(ok for _, ok in got))


if __name__ == "__main__":
    main()
