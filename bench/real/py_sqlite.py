"""CPython threads with sqlite3: 8 threads, each with its own database in
the directory given, insert seeded rows and run aggregate queries (sqlite3
releases the GIL while a statement runs).  Prints each thread's results."""
import os, random, sqlite3, sys, threading

NTHREADS, ROWS, QUERIES = 8, 20000, 200


def work(i, d, out):
    path = os.path.join(d, "t%d.db" % i)
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=MEMORY")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER, v TEXT)")
    rnd = random.Random(i)
    with db:
        db.executemany("INSERT INTO t (k, v) VALUES (?, ?)",
                       ((rnd.randrange(1000), "%08x" % rnd.getrandbits(32)) for _ in range(ROWS)))
    db.execute("CREATE INDEX tk ON t (k)")
    acc = 0
    for q in range(QUERIES):
        lo = rnd.randrange(900)
        n, m = db.execute("SELECT count(*), coalesce(max(v), '') FROM t WHERE k BETWEEN ? AND ?",
                          (lo, lo + 100)).fetchone()
        acc = (acc * 31 + n + len(m)) % 1000000007
        if q % 20 == 0:
            with db:
                db.execute("UPDATE t SET k = (k + 1) % 1000 WHERE id % 50 = ?", (q % 50,))
    out[i] = (db.execute("SELECT count(*), sum(k) FROM t").fetchone(), acc)
    db.close()
    os.unlink(path)


def main():
    d = sys.argv[1]
    out = {}
    ts = [threading.Thread(target=work, args=(i, d, out)) for i in range(NTHREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i in range(NTHREADS):
        print(i, out[i])


main()
