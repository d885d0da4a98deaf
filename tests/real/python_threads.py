# 200 threading.Thread workers meeting on a Condition, then hammering one
# Lock, a Semaphore-bounded section and a Queue: CPython's threads are
# pthreads and its locks are pthread mutexes/condvars or semaphores.
import weft_check
weft_check.check_loaded()
import queue
import threading


N = 200
lock = threading.Lock()
cond = threading.Condition(lock)
sem = threading.BoundedSemaphore(8)
q = queue.Queue()
ready = 0
total = 0
inside = 0
max_inside = 0


def worker(i):
    global ready, total, inside, max_inside
    with cond:
        ready += 1
        cond.notify_all()
        while ready < N:
            cond.wait()
    for _ in range(200):
        with lock:
            total += i
    with sem:
        with lock:
            inside += 1
            max_inside = max(max_inside, inside)
        with lock:
            inside -= 1
    q.put(i)


threads = [threading.Thread(target=worker, args=(i,)) for i in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
got = sorted(q.get() for _ in range(N))
print("threads", N, "total", total, "queue ok", got == list(range(N)),
      "semaphore bound ok", max_inside <= 8, "alive", threading.active_count())
