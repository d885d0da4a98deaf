# Eight threads each start five children with subprocess.run (CPython forks
# with vfork or fork from the calling thread, then execs), at once.
import weft_check
weft_check.check_loaded()
import subprocess
import threading

out = []
lock = threading.Lock()


def worker(i):
    for j in range(5):
        r = subprocess.run(["sh", "-c", "echo hi %d %d" % (i, j)], capture_output=True, text=True)
        with lock:
            out.append((r.returncode, r.stdout))


ts = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(len(out), "children")
print(sorted(set(rc for rc, _ in out)), "exit codes")
print(sorted(out) == sorted((0, "hi %d %d\n" % (i, j)) for i in range(8) for j in range(5)), "outputs")
