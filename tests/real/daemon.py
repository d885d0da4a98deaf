# daemon.py memcached|nginx: a daemon started as root that switches to
# nobody, as its users start it (memcached -u nobody; nginx's "user nobody"
# for its worker processes).  One request served, every thread (memcached)
# or worker process (nginx) checked to run as nobody in /proc, then SIGTERM
# and the daemon's exit status.  The same lines natively and under weft
# (LD_PRELOAD reaches the daemon through this script's environment; the run
# script checks the daemon's own loader log for weft).
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from weft_check import check_loaded

NOBODY = "Uid:\t65534\t65534\t65534\t65534\n"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, proc):
    for _ in range(400):
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def as_nobody(status_files):
    n = ok = 0
    for path in status_files:
        try:
            with open(path) as f:
                lines = f.readlines()
        except OSError:
            continue  # exited meanwhile
        n += 1
        ok += NOBODY in lines
    return "all as nobody" if n and ok == n else "%d of %d as nobody" % (ok, n)


def memcached(port, tmp):
    p = subprocess.Popen(["memcached", "-u", "nobody", "-l", "127.0.0.1", "-p", str(port),
                          "-t", "4", "-U", "0"], stderr=subprocess.DEVNULL)
    if not wait_port(port, p):
        print("memcached did not listen")
        p.kill()
        return p
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"set weft 0 0 5\r\nhello\r\nget weft\r\n")
    got = b""
    while not got.endswith(b"END\r\n"):
        got += s.recv(4096)
    s.close()
    print("memcached answered:", got.decode().replace("\r\n", " | "))
    task = "/proc/%d/task" % p.pid
    print("threads:", as_nobody(os.path.join(task, t, "status") for t in os.listdir(task)))
    return p


def nginx(port, tmp):
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""user nobody nogroup;
worker_processes 2;
daemon off;
pid %(t)s/nginx.pid;
error_log %(t)s/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path %(t)s/body;
  proxy_temp_path %(t)s/proxy;
  fastcgi_temp_path %(t)s/fastcgi;
  uwsgi_temp_path %(t)s/uwsgi;
  scgi_temp_path %(t)s/scgi;
  server { listen 127.0.0.1:%(p)d; location / { return 200 "hello from nginx\\n"; } }
}
""" % {"t": tmp, "p": port})
    p = subprocess.Popen(["nginx", "-c", conf, "-e", os.path.join(tmp, "error.log")],
                         stderr=subprocess.DEVNULL)
    if not wait_port(port, p):
        print("nginx did not listen")
        p.kill()
        return p
    body = urllib.request.urlopen("http://127.0.0.1:%d/" % port).read().decode().strip()
    print("nginx answered:", body)
    workers = []
    for _ in range(100):  # both workers up
        workers = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True,
                                 text=True).stdout.split()
        if len(workers) == 2:
            break
        time.sleep(0.05)
    print("worker processes: %d, %s" % (len(workers),
                                        as_nobody("/proc/%s/status" % w for w in workers)))
    return p


def main():
    check_loaded()
    if os.getuid() != 0:
        print("not root: nothing to check")
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        p = {"memcached": memcached, "nginx": nginx}[sys.argv[1]](free_port(), tmp)
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "none: still running 20 s after SIGTERM"
        print("after SIGTERM: exit status", rc)


if __name__ == "__main__":
    main()
