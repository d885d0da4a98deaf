"""20 threads, each running subprocess.run(["true"]) 5 times: fork (or
vfork/posix_spawn) and exec from a threaded process, then the child's
start, under weft in every process of the tree."""
import subprocess, threading


def work(n):
    for _ in range(n):
        subprocess.run(["true"], check=True)


ts = [threading.Thread(target=work, args=(5,)) for _ in range(20)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("ran", 20 * 5)
