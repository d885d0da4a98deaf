# redis_incr.py: redis-server (Debian's, linked with jemalloc) with four I/O
# threads that also read and jemalloc's background thread (its default),
# under its own benchmark tool: 32 clients send
# INCR on one key, a fixed number of requests in all.  Every INCR must be
# applied exactly once (GET returns the request count), the I/O threads
# must have read and written for clients (INFO's counters), and SIGTERM
# must end the server with status 0.  The same lines natively and under
# weft (LD_PRELOAD reaches the server, redis-benchmark and redis-cli
# through this script's environment; the run script checks the server's
# own loader log for weft).
import signal
import subprocess
import tempfile

from daemon import free_port, wait_port
from weft_check import check_loaded

REQUESTS = 3000
CLIENTS = 32


def cli(port, *args):
    return subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port)] + list(args),
                          capture_output=True, text=True, timeout=60).stdout


def main():
    check_loaded()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no", "--dir", tmp,
                              "--io-threads", "4", "--io-threads-do-reads", "yes"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_port(port, p):
            print("redis-server did not listen")
            p.kill()
        else:
            b = subprocess.run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port),
                                "-c", str(CLIENTS), "-n", str(REQUESTS), "-q",
                                "incr", "weft:counter"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               timeout=240)
            print("redis-benchmark: exit status", b.returncode)
            print("INCR applied: %s of %d" % (cli(port, "get", "weft:counter").strip(), REQUESTS))
            stats = dict(l.strip().split(":", 1) for l in cli(port, "info", "stats").splitlines()
                         if ":" in l)
            r = int(stats.get("io_threaded_reads_processed", 0))
            w = int(stats.get("io_threaded_writes_processed", 0))
            print("I/O threads read and wrote:", "yes" if r > 0 and w > 0 else
                  "no (%d reads, %d writes)" % (r, w))
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "none: still running 30 s after SIGTERM"
        print("after SIGTERM: exit status", rc)


main()
