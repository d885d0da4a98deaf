# A thread-per-request HTTP server (ThreadingHTTPServer) and 50 client
# threads making 20 requests each over fresh connections: socket numbers are
# closed and reused all the time while other threads wait on theirs.
import weft_check
weft_check.check_loaded()
import http.server
import threading
import urllib.request


class Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = self.path.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
threading.Thread(target=srv.serve_forever, daemon=True).start()
port = srv.server_address[1]
got, errors, lock = [], [], threading.Lock()


def client(i):
    for j in range(20):
        path = "/%d/%d" % (i, j)
        try:
            body = urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path)).read()
            ok = body == path.encode()
        except OSError as e:
            ok = False
            with lock:
                errors.append(str(e))
        with lock:
            got.append(ok)


threads = [threading.Thread(target=client, args=(i,)) for i in range(50)]
for t in threads:
    t.start()
for t in threads:
    t.join()
srv.shutdown()
if errors:
    import sys
    print("errors seen:", sorted(set(errors))[:5], file=sys.stderr)
print("requests", len(got), "answered right", sum(got), "errors", len(errors))
