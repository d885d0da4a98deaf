#!/bin/sh
# weft — the launcher: runs a program with libweft.so preloaded, compares
# a native run with a weft run (compare.py, weft-measure), prints the
# tasks of a running weft program (stack.py), shows them live with their
# CPU use (top.py), summarises a trace (trace.py) or takes and draws
# profiles (pprof.py).  Installed as PREFIX/bin/weft; build/weft in the build tree.
# `weft --help` lists the sub-commands (tests/tools/run.sh checks that it
# names every case below).
version='@VERSION@'
here=$(cd "$(dirname "$0")" && pwd)

usage() {
  cat <<USAGE
usage: weft run PROG [ARGS...]           run PROG with libweft.so preloaded
       weft compare [OPTIONS] PROG [ARGS...]
                                        run PROG natively and under weft and
                                        compare output, time, memory, threads
                                        (weft compare --help: the options)
       weft stack [--timeout SECONDS] PID
                                        print the tasks of running weft program
                                        PID and their backtraces; PID runs on
       weft top [-b] [-n N] [-d SECONDS] PID
                                        live view of the tasks of weft program
                                        PID and their CPU use, as top -H (q
                                        quits; -b: plain text; weft top --help)
       weft trace FILE                  summarise a WEFTDEBUG=trace=FILE trace
       weft profile [--mutex | --block] [--seconds N] [-o FILE] [--svg OUT.svg] PID
                                        a CPU profile (pprof format) of running
                                        weft program PID for N s (default 10);
                                        --mutex: its contended mutex waits,
                                        --block: where its tasks waited
       weft flame [-o OUT.svg] FILE     an SVG flame graph of a pprof profile
                                        (WEFTDEBUG=cpuprofile=FILE's and the rest)
       weft --version | -V              the version
       weft --help | -h | help          this text
Settings are environment variables (GOMAXPROCS, WEFT_*, WEFTDEBUG): man weft.
Exit status: weft run exits as PROG does (a signal that kills PROG kills
weft run the same way); weft compare exits 0 when outputs match, 1 when
they differ; weft stack exits 0 with the dump, 1 when PID is not a weft
program, not the caller's or did not answer (weft top: the same, 0 when
it ends); 2 for a usage error or when
libweft.so is missing.
USAGE
}
die() { echo "weft: $*" >&2; exit 2; }

# libweft.so: WEFT_LIB, else beside the launcher (the build tree), else
# PREFIX/lib (installed).
find_lib() {
  if [ -n "$WEFT_LIB" ]; then
    [ -f "$WEFT_LIB" ] || die "WEFT_LIB=$WEFT_LIB: no such file"
    lib=$WEFT_LIB
  elif [ -f "$here/libweft.so" ]; then lib=$here/libweft.so
  elif [ -f "$here/../lib/libweft.so" ]; then lib=$(cd "$here/../lib" && pwd)/libweft.so
  else die "cannot find libweft.so (looked in $here and $here/../lib; set WEFT_LIB)"
  fi
}
# A Python helper: tools/ in the build tree (build/ or build/ARCH/),
# PREFIX/share/weft installed.
find_tool() {
  for d in "$here/../tools" "$here/../../tools" "$here/../share/weft"; do
    [ -f "$d/$1" ] && { tool=$d/$1; return; }
  done
  die "cannot find $1 (looked in $here/../tools, $here/../../tools and $here/../share/weft)"
}
# weft compare's runner: beside the launcher (the build tree), else
# PREFIX/lib/weft (installed).
find_measure() {
  for m in "$here/weft-measure" "$here/../lib/weft/weft-measure"; do
    [ -x "$m" ] && { measure=$m; return; }
  done
  die "cannot find weft-measure (looked in $here and $here/../lib/weft)"
}
# PROG must be something exec can run: a path to an executable file, or a
# name found on PATH.
check_prog() {
  case $1 in
  */*) [ -f "$1" ] && [ -x "$1" ] || die "$1: no such executable" ;;
  *) command -v "$1" >/dev/null 2>&1 || die "$1: not found on PATH" ;;
  esac
}

[ $# -ge 1 ] || { usage >&2; exit 2; }
cmd=$1; shift
case $cmd in
--version|-V) echo "weft $version"; exit 0 ;;
--help|-h|help) usage; exit 0 ;;
run)
  [ $# -ge 1 ] || die "run: missing program (weft run PROG [ARGS...])"
  [ "$1" = "--" ] && shift
  [ $# -ge 1 ] || die "run: missing program (weft run PROG [ARGS...])"
  check_prog "$1"
  find_lib
  LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@" ;;
compare)
  find_lib
  find_measure
  find_tool compare.py
  exec python3 "$tool" --lib "$lib" --measure "$measure" "$@" ;;
stack)
  find_tool stack.py
  exec python3 "$tool" "$@" ;;
flame)
  find_tool pprof.py
  exec python3 "$tool" "$@" ;;
profile)
  find_tool pprof.py
  exec python3 "$tool" profile "$@" ;;
top)
  find_tool top.py
  exec python3 "$tool" "$@" ;;
trace)
  [ $# -eq 1 ] || die "trace: expected one file (weft trace FILE)"
  find_tool trace.py
  exec python3 "$tool" "$1" ;;
*) die "unknown sub-command '$cmd' (weft --help lists them)" ;;
esac
