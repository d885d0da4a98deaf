"""CPython threads contending for one SQLite database in WAL mode:
WRITERS threads, each through its own connection, commit TXNS small
transactions (BEGIN IMMEDIATE: a writer that finds the write lock taken
goes through SQLite's busy handler, which sleeps 1, 2, 5, 10, ... ms
between retries; each commit syncs the WAL holding the lock), while
READERS threads, each with its own connection, read snapshots with full
scans (sqlite3 releases the GIL while a statement runs, so the readers
keep the CPUs busy).  Every transaction
inserts ROWS rows and adds their count and sum to the writer's line of a
totals table, so a reader checks that each snapshot it reads is
consistent.  Prints only what does not depend on timing: each writer's
rows and sum, whether every snapshot of every reader was consistent, and
the final count, sum and integrity check.

usage: py_sqlite_wal.py DIR [SCALE]: the database lives in DIR (removed
after); SCALE (default 1) divides the transactions and reads."""
import os, sqlite3, sys, threading

WRITERS, READERS, TXNS, ROWS, READS, PRE = 4, 4, 400, 20, 100, 20000


def connect(path):
    # timeout: SQLite's busy_timeout, served by its default busy handler
    # (sleeps between retries); isolation_level None: BEGIN is written out.
    # synchronous stays at its default, FULL: each commit syncs the WAL
    # (fdatasync) while its writer holds the write lock.
    return sqlite3.connect(path, timeout=60, isolation_level=None)


def writer(i, path, txns, out):
    db = connect(path)
    x = i + 1
    for t in range(txns):
        vals = []
        for _ in range(ROWS):
            x = (x * 1103515245 + 12345) % 2147483648
            vals.append((i, x % 1000, "%08x" % x))
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO t (w, k, v) VALUES (?, ?, ?)", vals)
        db.execute("UPDATE totals SET n = n + ?, s = s + ? WHERE w = ?",
                   (ROWS, sum(v[1] for v in vals), i))
        db.execute("COMMIT")
    out[i] = db.execute("SELECT count(*), sum(k) FROM t WHERE w = ?", (i,)).fetchone()
    db.close()


def reader(i, path, reads, out):
    db = connect(path)
    ok = True
    for r in range(reads):
        db.execute("BEGIN")
        n, s = db.execute("SELECT count(*), sum(k) FROM t WHERE v >= ''").fetchone()
        tn, ts = db.execute("SELECT sum(n), sum(s) FROM totals").fetchone()
        top, = db.execute("SELECT max(id) FROM t").fetchone()
        # The newest transaction's rows: all of one writer, all there.
        nw, nr = db.execute("SELECT count(DISTINCT w), count(*) FROM t WHERE id > ?",
                            (top - ROWS,)).fetchone()
        db.execute("COMMIT")
        ok = ok and (n, s) == (tn, ts) and top == n and (nw, nr) == (1, ROWS)
    out[i] = ok
    db.close()


def main():
    path = os.path.join(sys.argv[1], "wal.db")
    scale = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    db = connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, w INTEGER, k INTEGER, v TEXT)")
    db.execute("CREATE INDEX tw ON t (w)")
    db.execute("CREATE TABLE totals (w INTEGER PRIMARY KEY, n INTEGER, s INTEGER)")
    db.execute("BEGIN")
    db.executemany("INSERT INTO t (w, k, v) VALUES (-1, ?, ?)",
                   ((j % 1000, "%08x" % (j * 2654435761 % 2**32)) for j in range(PRE)))
    db.execute("INSERT INTO totals VALUES (-1, ?, ?)", (PRE, sum(j % 1000 for j in range(PRE))))
    db.executemany("INSERT INTO totals VALUES (?, 0, 0)", ((i,) for i in range(WRITERS)))
    db.execute("COMMIT")
    wout, rout = {}, {}
    ts = [threading.Thread(target=writer, args=(i, path, TXNS // scale, wout))
          for i in range(WRITERS)]
    ts += [threading.Thread(target=reader, args=(i, path, READS // scale, rout))
           for i in range(READERS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i in range(WRITERS):
        print("writer", i, wout[i])
    for i in range(READERS):
        print("reader", i, "consistent" if rout[i] else "INCONSISTENT")
    print("total", db.execute("SELECT count(*), sum(k) FROM t").fetchone(),
          db.execute("PRAGMA integrity_check").fetchone()[0])
    db.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)


main()
