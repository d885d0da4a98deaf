#!/bin/sh
# run-preload.sh LIB BINDIR PROG...: runs each test program natively and
# under weft (LD_PRELOAD=LIB, WEFT_EXPECT=1), compares exit status and
# stdout, and prints one line per test (with the native and weft runs' wall
# times) and a closing "N passed, N failed".
#
# A program may print "SKIP-NATIVE" as its first line natively (e.g. it
# needs more threads than the kernel allows, or a stack natively too deep):
# there is no native reference, so its stdout under weft must equal the
# checked-in tests/preload/NAME.expected (beside this script), and both runs
# must exit 0.  A SKIP-NATIVE program without that file fails: an exit status
# alone cannot tell "6 of 6" from "3 of 6".  A NAME.expected file for a
# program that runs natively is compared too (with both runs' stdout).
lib=$1 bindir=$2; shift 2
src=$(dirname "$0")/preload
scale=${WEFT_TEST_TIMEOUT_SCALE:-1}
pass=0 fail=0 failed=""
# secs T0 T1: the time between two `date +%s%N` readings, in seconds to 0.1.
secs() { ms=$((($2 - $1) / 1000000)); echo "$((ms / 1000)).$((ms % 1000 / 100))"; }
for prog in "$@"; do
  name=$(basename "$prog")
  if [ ! -x "$prog" ]; then
    fail=$((fail+1)); failed="$failed $name"; echo "FAIL $name: no program $prog"
    continue
  fi
  exp="$src/$name.expected"
  t=$((120 * scale))
  t0=$(date +%s%N)
  timeout "$t" "$prog" > "$bindir/$name.native.out" 2> "$bindir/$name.native.err"
  nrc=$?
  t1=$(date +%s%N)
  WEFT_EXPECT=1 timeout "$t" env LD_PRELOAD="$lib" "$prog" > "$bindir/$name.weft.out" 2> "$bindir/$name.weft.err"
  wrc=$?
  t2=$(date +%s%N)
  took="native $(secs "$t0" "$t1") s, weft $(secs "$t1" "$t2") s"
  ok=1 why="" ref="$bindir/$name.native.out"
  if head -n1 "$bindir/$name.native.out" | grep -q '^SKIP-NATIVE'; then
    [ "$nrc" = 0 ] || { ok=0; why="native exit $nrc"; }
    [ "$wrc" = 0 ] || { ok=0; why="$why weft exit $wrc"; }
    if [ -f "$exp" ]; then
      ref=$exp
      cmp -s "$exp" "$bindir/$name.weft.out" || { ok=0; why="$why output differs from $name.expected"; }
    else
      ok=0; why="$why SKIP-NATIVE without $exp"
    fi
  else
    [ "$nrc" = "$wrc" ] || { ok=0; why=" exit native=$nrc weft=$wrc"; }
    cmp -s "$bindir/$name.native.out" "$bindir/$name.weft.out" || { ok=0; why="$why output differs"; }
    if [ -f "$exp" ] && ! cmp -s "$exp" "$bindir/$name.native.out"; then
      ok=0; why="$why native output differs from $name.expected"
    fi
  fi
  if [ $ok = 1 ]; then pass=$((pass+1)); echo "PASS $name ($took)"
  else fail=$((fail+1)); failed="$failed $name"; echo "FAIL $name:$why ($took)"
    diff "$ref" "$bindir/$name.weft.out" | head -20
    tail -5 "$bindir/$name.weft.err"
  fi
done
echo "preload: $pass passed, $fail failed"
[ $fail = 0 ]
