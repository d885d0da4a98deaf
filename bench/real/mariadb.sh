#!/bin/sh
# mariadb.sh TEMPLATE FIGURES EVENTS: one MariaDB server, started from a
# copy of the data directory TEMPLATE (bench/real/run.py makes it: the
# sbtest table of sysbench's oltp_read_write), under the LD_PRELOAD this
# script was given; sysbench then runs natively against it, over the
# server's Unix socket only (--skip-networking): oltp_read_write, 16
# threads, a connection and so a server thread each, EVENTS transactions.
# Prints what does not depend on timing; appends "SIDE TPS P95MS" to
# FIGURES, SIDE being weft or native.
tmpl=$1 figures=$2 events=$3
lib=$LD_PRELOAD
unset LD_PRELOAD
side=native; [ -n "$lib" ] && side=weft
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cp -a "$tmpl" "$d/data"
LD_PRELOAD=$lib mariadbd --no-defaults --user=root --datadir="$d/data" \
  --socket="$d/sock" --pid-file="$d/pid" --skip-networking --skip-log-bin \
  --innodb-buffer-pool-size=128M --innodb-log-file-size=16M \
  --innodb-flush-log-at-trx-commit=2 --max-connections=64 \
  --thread-handling=one-thread-per-connection --log-error="$d/err" &
srv=$!
i=0
until mariadb-admin --no-defaults --socket="$d/sock" -uroot ping >/dev/null 2>&1; do
  i=$((i+1))
  if [ $i -gt 300 ] || ! kill -0 $srv 2>/dev/null; then
    echo "server did not start"; tail -5 "$d/err" >&2; kill $srv 2>/dev/null; exit 1
  fi
  sleep 0.1
done
sysbench oltp_read_write --db-driver=mysql --mysql-socket="$d/sock" \
  --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=10000 \
  --threads=16 --events="$events" --time=0 --rand-seed=1 \
  --percentile=95 run > "$d/out" 2>&1
rc=$?
mariadb-admin --no-defaults --socket="$d/sock" -uroot shutdown >/dev/null 2>&1 || kill $srv
wait $srv; src=$?
tps=$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$d/out")
p95=$(sed -n 's/^ *95th percentile: *\([0-9.]*\).*/\1/p' "$d/out")
echo "$side ${tps:-?} ${p95:-?}" >> "$figures"
echo "sysbench exit $rc, transactions $(sed -n 's/.*transactions: *\([0-9]*\) .*/\1/p' "$d/out"), server exit $src"
[ $rc = 0 ] || tail -5 "$d/out" >&2
