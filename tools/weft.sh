#!/bin/sh
# weft — run a program with weft.
#   weft run PROG ARGS...      run PROG with libweft.so preloaded
#   weft compare PROG ARGS...  run PROG natively, then under weft, and print
#                              both outputs' agreement, wall time, peak RSS
#                              and peak OS threads side by side
here=$(cd "$(dirname "$0")" && pwd)
lib=${WEFT_LIB:-$here/libweft.so}
[ -f "$lib" ] || { echo "weft: cannot find libweft.so (looked for $lib; set WEFT_LIB)" >&2; exit 2; }
usage() { echo "usage: weft run PROG [ARGS...] | weft compare PROG [ARGS...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1; shift
case $cmd in
run)
  LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@" ;;
compare)
  exec python3 "$here/../tools/compare.py" "$lib" "$@" 2>/dev/null || \
  exec python3 "$here/compare.py" "$lib" "$@" ;;
trace)
  t=$here/../tools/trace.py; [ -f "$t" ] || t=$here/trace.py
  exec python3 "$t" "$@" ;;
*) usage ;;
esac
