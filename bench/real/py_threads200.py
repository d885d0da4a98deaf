"""CPython with 200 threads: they pass work items through a shared
queue.Queue, hash them, and meet at a threading.Barrier each round."""
import hashlib, queue, threading

NTHREADS, ROUNDS, ITEMS = 200, 20, 4000

q = queue.Queue()
lock = threading.Lock()
done = [0] * NTHREADS
barrier = threading.Barrier(NTHREADS + 1)


def worker(i):
    for _ in range(ROUNDS):
        while True:
            item = q.get()
            if item is None:
                break
            h = hashlib.sha256(item).digest()
            with lock:
                done[i] += h[0]
        barrier.wait()


def main():
    ts = [threading.Thread(target=worker, args=(i,)) for i in range(NTHREADS)]
    for t in ts:
        t.start()
    for r in range(ROUNDS):
        for k in range(ITEMS):
            q.put(b"%d:%d" % (r, k))
        for _ in range(NTHREADS):
            q.put(None)
        barrier.wait()
    for t in ts:
        t.join()
    print("rounds %d, items %d, sum %d" % (ROUNDS, ITEMS, sum(done)))


main()
