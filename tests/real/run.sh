#!/bin/sh
# run.sh LIB: real programs, natively and under weft; stdout and exit status
# must match.  Each weft run first checks that weft is really loaded.
lib=$1
pass=0 fail=0
check() { # name, command...
  name=$1; shift
  n=$(timeout 300 "$@" 2>/dev/null); nrc=$?
  loaded=$(LD_PRELOAD="$lib" sh -c 'grep -c libweft.so /proc/$$/maps')
  w=$(timeout 300 env LD_PRELOAD="$lib" "$@" 2>/tmp/weft-real.err); wrc=$?
  if [ "$loaded" -ge 1 ] && [ "$n" = "$w" ] && [ $nrc = $wrc ]; then
    pass=$((pass+1)); echo "PASS $name: $w"
  else
    fail=$((fail+1)); echo "FAIL $name (weft loaded: $loaded, exit $nrc/$wrc)"
    echo " native: $n"; echo " weft:   $w"; tail -3 /tmp/weft-real.err
  fi
}
here=$(dirname "$0")
check python-threads python3 "$here/python_threads.py"
for g in 1 2; do
  check "python-threads-GOMAXPROCS=$g" env GOMAXPROCS=$g python3 "$here/python_threads.py"
done
check sort-parallel sh -c 'seq 200000 | shuf --random-source=/dev/zero | sort -n --parallel=8 -S 1M | md5sum'
echo "real: $pass passed, $fail failed"
[ $fail = 0 ]
