#!/bin/sh
# run-preload.sh LIB BINDIR PROG...: runs each test program natively and
# under weft (LD_PRELOAD=LIB, WEFT_EXPECT=1), compares exit status and
# stdout, and prints one line per test and a closing "N passed, N failed".
# A program may print "SKIP-NATIVE" as its first line natively (e.g. it
# needs more threads than the kernel allows): then only weft's run is
# checked, against the expected-output file BINDIR/NAME.expected if any.
lib=$1 bindir=$2; shift 2
scale=${WEFT_TEST_TIMEOUT_SCALE:-1}
pass=0 fail=0 failed=""
for prog in "$@"; do
  name=$(basename "$prog")
  t=$((120 * scale))
  timeout "$t" "$prog" > "$bindir/$name.native.out" 2> "$bindir/$name.native.err"
  nrc=$?
  WEFT_EXPECT=1 timeout "$t" env LD_PRELOAD="$lib" "$prog" > "$bindir/$name.weft.out" 2> "$bindir/$name.weft.err"
  wrc=$?
  ok=1 why=""
  if head -n1 "$bindir/$name.native.out" | grep -q '^SKIP-NATIVE'; then
    [ "$wrc" = 0 ] || { ok=0; why="weft exit $wrc"; }
  else
    [ "$nrc" = "$wrc" ] || { ok=0; why="exit native=$nrc weft=$wrc"; }
    cmp -s "$bindir/$name.native.out" "$bindir/$name.weft.out" || { ok=0; why="$why output differs"; }
  fi
  if [ $ok = 1 ]; then pass=$((pass+1)); echo "PASS $name"
  else fail=$((fail+1)); failed="$failed $name"; echo "FAIL $name: $why"
    diff "$bindir/$name.native.out" "$bindir/$name.weft.out" | head -20
    tail -5 "$bindir/$name.weft.err"
  fi
done
echo "preload: $pass passed, $fail failed"
[ $fail = 0 ]
