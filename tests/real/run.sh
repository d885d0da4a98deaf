#!/bin/sh
# run.sh LIB: real programs, natively and under weft; stdout and exit status
# must match.
#
# Each weft run also proves that weft ran inside the very program under test,
# not merely in some process of the pipeline (an earlier version grepped the
# maps of a separate `sh`, which proved nothing about sort or git):
#  - the weft run sets LD_DEBUG=files with LD_DEBUG_OUTPUT, so the dynamic
#    loader of every process of the run writes its own log, $tmp/ld/ld.PID
#    (one file per process; an exec appends to its process's file).  For the
#    program check() names (python3, perl, sort, zstd, xz, git), every
#    process image of that name (or NAME.version) must have had libweft.so's constructor
#    called ("calling init: .../libweft.so") before ld.so handed control to
#    the program ("transferring control: NAME"), and there must be at least
#    one such image.  This is the loader of the tool's own process speaking:
#    nothing racy (no reading /proc/PID of a running child), no ptrace, and
#    a tool run without the preload (e.g. `env -u LD_PRELOAD sort`) fails.
#  - the Python and Perl scripts check /proc/self/maps themselves under
#    WEFT_EXPECT=1 (tests/real/weft_check.py; as tests/preload/weft_check.h)
#    and exit 99 when libweft.so is not mapped.
# The remaining checks below (grow, dlopen-big-tls, settings, cpu.max) look
# for output only weft produces in the process under test.
lib=$1
pass=0 fail=0
tmp=$(mktemp -d) # private: other test runs may share /tmp
trap 'rm -rf "$tmp"' EXIT
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ beside the scripts
# weft_ran NAME DIR: in the loader logs in DIR, every image of program NAME
# ran with libweft.so initialised first, and there was one.  Prints the count.
weft_ran() {
  awk -v want="$1" '
    FNR == 1 { init = 0 }
    /calling init: .*\/libweft\.so$/ { init = 1 }
    /\ttransferring control: / {
      p = $NF; sub(".*/", "", p) # the path it was run by: python3 or python3.11
      if (p == want || substr(p, 1, length(want) + 1) == want ".") { n++; if (!init) bad++ }
      init = 0
    }
    END { printf "%d of %d", n - bad, n; exit !(n > 0 && bad == 0) }' "$2"/ld.*
}
# native_pre, weft_pre: what check() preloads natively (nothing) and under
# weft (libweft.so alone) unless a caller sets them.
native_pre="" weft_pre=$lib
check() { # name, program that must run under weft, command...
  name=$1 tool=$2; shift 2
  n=$(timeout 300 env ${native_pre:+LD_PRELOAD="$native_pre"} "$@" 2>/dev/null); nrc=$?
  rm -rf "$tmp/ld"; mkdir "$tmp/ld"
  w=$(WEFT_EXPECT=1 LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld/ld" timeout 300 \
      env LD_PRELOAD="$weft_pre" "$@" 2>"$tmp/real.err"); wrc=$?
  loaded=$(weft_ran "$tool" "$tmp/ld"); lrc=$?
  if [ $lrc = 0 ] && [ "$n" = "$w" ] && [ $nrc = $wrc ]; then
    pass=$((pass+1)); echo "PASS $name: $w [$tool with weft: $loaded]"
  else
    fail=$((fail+1)); echo "FAIL $name ($tool images with weft: $loaded, exit $nrc/$wrc)"
    echo " native: $n"; echo " weft:   $w"; tail -3 "$tmp/real.err"
  fi
}
here=$(dirname "$0")
check python-threads python3 python3 "$here/python_threads.py"
for g in 1 2; do
  check "python-threads-GOMAXPROCS=$g" python3 env GOMAXPROCS=$g python3 "$here/python_threads.py"
done
# One SQLite database in WAL mode (bench/real/py_sqlite_wal.py, a quarter
# of its work): writers through SQLite's busy handler, readers checking
# every snapshot, the final counts and the integrity check.
for g in 1 2; do
  check "python-sqlite-wal-GOMAXPROCS=$g" python3 env GOMAXPROCS=$g python3 \
    "$here/../../bench/real/py_sqlite_wal.py" "$tmp" 4
done
# Socket numbers closed and reused while other threads wait on theirs.
check python-http python3 python3 "$here/http_threads.py"
check python-signal python3 python3 "$here/python_signal.py"
# Threads starting children at once (subprocess.run from eight threads).
for g in 1 2; do
  check "python-subprocess-GOMAXPROCS=$g" python3 env GOMAXPROCS=$g python3 "$here/python_subprocess.py"
done
# multiprocessing: named semaphores (sem_open) shared across fork, a Value
# with its lock, an Event, a Pool whose workers run threads; each child
# checks its own maps for weft.
for g in 1 2; do
  check "python-multiprocessing-GOMAXPROCS=$g" python3 env GOMAXPROCS=$g python3 "$here/python_multiprocessing.py"
done
# Guile over Boehm GC: collections (signals that stop every thread) while
# forty threads are parked on a condition variable and others allocate.
for g in 1 2; do
  check "guile-threads-GOMAXPROCS=$g" guile-3.0 env GOMAXPROCS=$g guile-3.0 --no-auto-compile "$here/guile_threads.scm"
done
check sort-parallel sort sh -c 'seq 200000 | shuf --random-source=/dev/zero | sort -n --parallel=8 -S 1M | md5sum'
check perl-threads perl perl "$here/perl_threads.pl"
# Daemons started as root that switch to nobody, serve, and stop on SIGTERM.
check memcached-as-nobody memcached python3 "$here/daemon.py" memcached
check nginx-as-nobody nginx python3 "$here/daemon.py" nginx
# redis-server (linked with jemalloc) with four I/O threads under
# redis-benchmark: every INCR applied once, the I/O threads used, SIGTERM.
check redis-io-threads redis-server python3 "$here/redis_incr.py"
# Other mallocs preloaded before and after libweft.so (natively: preloaded
# alone), under a threaded program that allocates (tests/preload/
# alloc_threads.c); their first calls come before and while weft starts.
# liballoc_hook.so is a malloc that creates threads from its first call.
bin=$(dirname "$lib")/tests/preload
adir=/usr/lib/$(gcc -print-multiarch 2>/dev/null)
# mimalloc's soname is 2 in Debian 12, 3 in Debian 13.
mim=$adir/libmimalloc.so.2
[ -f "$mim" ] || [ ! -f "$adir/libmimalloc.so.3" ] || mim=$adir/libmimalloc.so.3
for a in "$adir/libjemalloc.so.2" "$adir/libtcmalloc_minimal.so.4" "$mim" \
         "$bin/liballoc_hook.so"; do
  an=$(basename "$a" | sed 's/^lib//; s/\.so.*//')
  if [ ! -f "$a" ]; then
    fail=$((fail+1)); echo "FAIL malloc-$an: no $a"; continue
  fi
  native_pre=$a
  for order in before after; do
    if [ $order = before ]; then weft_pre="$a $lib"; else weft_pre="$lib $a"; fi
    check "malloc-$an-$order-weft" alloc_threads "$bin/alloc_threads"
  done
done
native_pre="" weft_pre=$lib
# Compressors with worker threads (zstd sets its handlers with __sysv_signal).
check zstd-threads zstd sh -c 'seq 1 3000000 | zstd -T4 -q -c | md5sum'
check xz-threads xz sh -c 'seq 1 1000000 | xz -T4 -c | md5sum'
# stress-ng's pthread stressor: 2 processes creating threads that call
# set_tid_address (its result must equal gettid()), get/set_robust_list,
# tgkill/tkill and pthread_sigqueue; its exit status says whether it passed.
for g in 1 2; do
  check "stress-ng-pthread-GOMAXPROCS=$g" stress-ng env GOMAXPROCS=$g sh -c \
    'stress-ng --pthread 2 --pthread-ops 2000 --verify --metrics-brief >/dev/null 2>&1; echo "exit $?"'
done
# git: a threaded grep and a 4-thread repack (then fsck) in a private clone.
if git -C "$here/../.." rev-parse --git-dir >/dev/null 2>&1 &&
   git clone -q "$here/../.." "$tmp/repo" 2>/dev/null; then
  check git-grep-threads git sh -c "git -C '$tmp/repo' -c grep.threads=8 grep -c wt_ -- '*.c' | md5sum"
  check git-repack-threads git sh -c "cd '$tmp/repo' && git -c pack.threads=4 repack -adq &&
    git count-objects -v | grep -E '^(count|in-pack)' | tr '\n' ' ' && git fsck --no-dangling 2>&1 | md5sum"
fi
# A program built with AddressSanitizer overflowing its stack in a thread,
# a thread with a 1 MiB stack and main: ASan's own report and exit status 1
# (its handler predates weft's; weft's threads bypass ASan's pthread_create,
# whose lock the reporting task may hold).
if cc -g -O1 -fsanitize=address -pthread -o "$tmp/asan_overflow" "$here/asan_overflow.c" 2>"$tmp/cc.err"; then
  for mode in thread sized main; do
    check "asan-stack-overflow-$mode" asan_overflow env ASAN_OPTIONS=verify_asan_link_order=0 sh -c \
      '"$1" "$2" 2>"$3"; r=$?; echo "exit $r, reports: $(grep -c "SUMMARY: AddressSanitizer: stack-overflow" "$3")"' \
      sh "$tmp/asan_overflow" $mode "$tmp/asan.err"
  done
else
  fail=$((fail+1)); echo "FAIL asan-stack-overflow: cc failed"; tail -3 "$tmp/cc.err"
fi
# A JVM (OpenJDK 17 on Debian 12, 21 on Debian 13: the Makefile's DEBS):
# thousands of threads, a pool, wait/notify, and StackOverflowError caught
# in main and in threads, inside the guard zones the JVM makes in the
# stacks pthread_getattr_np reports (sched/stack/stack.c).
jdir="$tmp/java"
mkdir -p "$jdir"
if javac -d "$jdir" "$here/java_threads.java" 2>"$tmp/javac.err"; then
  for g in 1 2; do
    check "java-threads-GOMAXPROCS=$g" java env GOMAXPROCS=$g java -Xss1m -XX:ErrorFile="$tmp/hs_err_%p.log" -cp "$jdir" JavaThreads
  done
else
  fail=$((fail+1)); echo "FAIL java-threads: javac failed"; tail -3 "$tmp/javac.err"
fi
# Stacks (sched/stack/stack.c): the seeds' grow program, a million calls deep.
# Natively it dies by SIGSEGV; under weft it finishes, in a thread and in
# main (main's stack grows when weft starts before main: WEFT_START=eager,
# since a process that makes no thread never starts it, sched/core/start.c).
# A runaway recursion gets weft's report and dies by SIGSEGV.
grow=$(mktemp -d)/grow
cc -O2 -g -pthread -o "$grow" "$here/../../bench/grow.c" || { echo "FAIL: cannot build grow"; exit 1; }
for mode in thread main; do
  n=$(sh -c "\"$grow\" $mode" 2>/dev/null); nrc=$?
  w=$(timeout 120 env WEFT_START=eager LD_PRELOAD="$lib" "$grow" $mode 2>"$tmp/grow.err"); wrc=$?
  if [ $nrc = 139 ] && [ "$w" = "deep: 1000000" ] && [ $wrc = 0 ]; then
    pass=$((pass+1)); echo "PASS grow-$mode: native SIGSEGV, weft $w"
  else
    fail=$((fail+1)); echo "FAIL grow-$mode: native exit $nrc ($n), weft exit $wrc ($w)"; tail -3 "$tmp/grow.err"
  fi
done
timeout 120 env LD_PRELOAD="$lib" "$grow" runaway >/dev/null 2>"$tmp/grow.err"; wrc=$?
if [ $wrc = 139 ] && grep -q "^weft: task [0-9]* (forever) overflowed its stack: limit 1 GiB, depth 1024 MiB" "$tmp/grow.err" &&
   grep -Eq "^  # ?0 +0x[0-9a-f]+ runaway\+" "$tmp/grow.err" &&
   [ "$(grep -Ec "^  #[0-9 ]+0x[0-9a-f]+ runaway\+" "$tmp/grow.err")" -ge 16 ]; then
  pass=$((pass+1)); echo "PASS grow-runaway: report, backtrace through runaway(), SIGSEGV"
else
  fail=$((fail+1)); echo "FAIL grow-runaway: exit $wrc"; head -5 "$tmp/grow.err"
fi
rm -rf "$(dirname "$grow")"
# More dlopen'ed initial-exec TLS than a task keeps free (tests/preload/
# dlopen_tls.c): the compact layout stops with a "weft:" line; the full one
# runs it as natively.
dt=$(dirname "$lib")/tests/preload/dlopen_tls
n=$("$dt" big 2>&1); nrc=$?
w=$(WEFT_STATIC_TLS=full LD_PRELOAD="$lib" "$dt" big 2>&1); wrc=$?
LD_PRELOAD="$lib" "$dt" big >/dev/null 2>"$tmp/tls.err"; crc=$?
if [ $nrc = 0 ] && [ "$n" = "$w" ] && [ $wrc = 0 ] && [ $crc = 134 ] &&
   grep -q "^weft: a library loaded now puts static TLS .* run with WEFT_STATIC_TLS=full" "$tmp/tls.err"; then
  pass=$((pass+1)); echo "PASS dlopen-big-tls: compact stops with a message, full = native"
else
  fail=$((fail+1)); echo "FAIL dlopen-big-tls: native $nrc, full $wrc ($w), compact $crc"; cat "$tmp/tls.err"
fi
# Bad settings: one "weft: ..." line each, the default, and a normal run.
settings() { # name, expected stderr text, env assignment...
  name=$1 want=$2; shift 2
  out=$(env "$@" LD_PRELOAD="$lib" python3 -c 'import threading; t=threading.Thread(target=print, args=("ok",)); t.start(); t.join()' 2>"$tmp/set.err")
  if [ "$out" = ok ] && grep -q "^weft: $want" "$tmp/set.err"; then
    pass=$((pass+1)); echo "PASS setting $name"
  else
    fail=$((fail+1)); echo "FAIL setting $name: stdout '$out'"; cat "$tmp/set.err"
  fi
}
settings gomaxprocs-abc "GOMAXPROCS=abc is not a number" GOMAXPROCS=abc
settings gomaxprocs-0 "GOMAXPROCS=0 is not a number" GOMAXPROCS=0
settings gomaxprocs-neg "GOMAXPROCS=-3 is not a number" GOMAXPROCS=-3
settings gomaxprocs-huge "GOMAXPROCS=99999999 is not a number" GOMAXPROCS=99999999
settings weftdebug-unknown "WEFTDEBUG: unknown key 'nosuch'" WEFTDEBUG=nosuch=1
settings asyncpreemptoff-bad "WEFTDEBUG: asyncpreemptoff=2 is not 0 or 1" WEFTDEBUG=asyncpreemptoff=2
settings stack-size "WEFT_STACK_SIZE=12q is not a size" WEFT_STACK_SIZE=12q
settings tls-mode "WEFT_TLS=fast is not" WEFT_TLS=fast
settings static-tls "WEFT_STATIC_TLS=tiny is not compact or full" WEFT_STATIC_TLS=tiny
settings maxthreads-abc "WEFT_MAXTHREADS=abc is not a number" WEFT_MAXTHREADS=abc
settings maxthreads-1 "WEFT_MAXTHREADS=1 is not a number" WEFT_MAXTHREADS=1
settings maxthreads-policy "WEFT_MAXTHREADS_POLICY=crash is not wait or fail" WEFT_MAXTHREADS_POLICY=crash
settings ncpu "WEFT_NCPU=0 is not a number" WEFT_NCPU=0
settings cgroup-root "WEFT_CGROUP_ROOT=rel is not an absolute path" WEFT_CGROUP_ROOT=rel
# GOMAXPROCS from a fake cgroup tree's cpu.max (the kernel's "0::" path under
# WEFT_CGROUP_ROOT), read from schedtrace.  WEFT_NCPU=4 pretends 4 CPUs.
cgroot=$(mktemp -d)
cgdir="$cgroot$(sed -n 's/^0:://p' /proc/self/cgroup)"
mkdir -p "$cgdir"
ncpu=$(nproc)
two_tasks='import sys, threading, time
t = threading.Thread(target=time.sleep, args=(float(sys.argv[1]),)); t.start(); t.join()'
gomax() { # cpu.max content, expected gomaxprocs, expected stderr text or "", env...
  c=$1 want=$2 text=$3; shift 3; echo "$c" > "$cgdir/cpu.max"
  got=$(env "$@" WEFT_CGROUP_ROOT="$cgroot" WEFTDEBUG=schedtrace=50 LD_PRELOAD="$lib" \
        python3 -c "$two_tasks" 0.3 2>&1 | sed -n 's/^SCHED.*gomaxprocs=\([0-9]*\).*/\1/p' | tail -1)
  # sysmon reads cpu.max once the process has a second task (a process of
  # one task uses one proc whatever the count): a thread that sleeps
  if [ "$got" = "$want" ] && { [ -z "$text" ] || env "$@" WEFT_CGROUP_ROOT="$cgroot" \
        LD_PRELOAD="$lib" python3 -c "$two_tasks" 0.1 2>&1 | grep -q "^weft: .*$text"; }; then
    pass=$((pass+1)); echo "PASS cpu.max '$c' $* -> gomaxprocs=$got"
  else
    fail=$((fail+1)); echo "FAIL cpu.max '$c' $*: gomaxprocs=$got, want $want"
  fi
}
gomax "150000 100000" 2 "" WEFT_NCPU=4
gomax "250000 100000" 3 "" WEFT_NCPU=4
gomax "50000 100000" 2 "" WEFT_NCPU=4
gomax "50000 100000" 1 "" WEFT_NCPU=1
gomax "max 100000" 4 "" WEFT_NCPU=4
gomax "max 100000" "$ncpu" "" GOMAXPROCS=
gomax "nonsense" 4 "is not \"max PERIOD\"" WEFT_NCPU=4
gomax "150000 100000" 3 "" WEFT_NCPU=4 GOMAXPROCS=3
rm -rf "$cgroot"
settings stack-max "WEFT_STACK_MAX=12q is not a size" WEFT_STACK_MAX=12q
settings stack-max-small "WEFT_STACK_MAX=1k is not a size" WEFT_STACK_MAX=1k
echo "real: $pass passed, $fail failed"
[ $fail = 0 ]
