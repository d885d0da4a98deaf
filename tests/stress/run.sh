#!/bin/sh
# run.sh LIB SECONDS PRELOADDIR CONTEND: the long stress runs (make stress;
# not part of make test).  At GOMAXPROCS=2 and 1, each for SECONDS:
#  - contend (tests/stress/contend.c) under weft, rounds checked inside;
#  - the contention-style preload tests run again and again under weft,
#    each run's stdout and status compared with one native run.
# A run that outlives its time by two minutes gets SIGQUIT (weft's task
# dump on stderr, kept in the output directory) and counts as a hang.
lib=$1 secs=$2 pdir=$3 contend=$4
progs="contention pingpong_fair signal_timedwait cond_timeout rwlock semaphore mutex_kinds signal_sem"
out=$(dirname "$contend")/stress-out
mkdir -p "$out"
fail=0
now() { date +%s; }
for p in $progs; do
  timeout 120 "$pdir/$p" > "$out/$p.native" 2>/dev/null; echo "exit $?" >> "$out/$p.native"
done
for g in 2 1; do
  start=$(now)
  GOMAXPROCS=$g timeout -s QUIT -k 10 $((secs + 120)) env LD_PRELOAD="$lib" "$contend" "$secs" \
    > "$out/contend.$g.out" 2> "$out/contend.$g.err"
  rc=$?
  if [ $rc = 0 ]; then echo "PASS contend GOMAXPROCS=$g ($(($(now) - start)) s): $(cat "$out/contend.$g.out")"
  else fail=$((fail+1)); echo "FAIL contend GOMAXPROCS=$g: exit $rc"; cat "$out/contend.$g.out"
    head -40 "$out/contend.$g.err"; fi
  start=$(now) runs=0 bad=0
  while [ $(($(now) - start)) -lt "$secs" ]; do
    for p in $progs; do
      GOMAXPROCS=$g WEFT_EXPECT=1 timeout -s QUIT -k 10 120 env LD_PRELOAD="$lib" "$pdir/$p" \
        > "$out/$p.weft" 2> "$out/$p.err"
      echo "exit $?" >> "$out/$p.weft"
      runs=$((runs+1))
      if ! cmp -s "$out/$p.native" "$out/$p.weft"; then
        bad=$((bad+1)); cp "$out/$p.weft" "$out/$p.$g.failed.out"; cp "$out/$p.err" "$out/$p.$g.failed.err"
        echo "FAIL $p GOMAXPROCS=$g (run $runs):"; diff "$out/$p.native" "$out/$p.weft" | head -10
        head -40 "$out/$p.err"
      fi
    done
  done
  if [ $bad = 0 ]; then echo "PASS preload loop GOMAXPROCS=$g: $runs runs in $(($(now) - start)) s"
  else fail=$((fail+1)); echo "FAIL preload loop GOMAXPROCS=$g: $bad of $runs runs differ"; fi
done
echo "stress: $fail failed"
[ $fail = 0 ]
