#!/bin/sh
# run.sh LIB BINDIR: what WEFTDEBUG=schedtrace, SIGQUIT's task dump and
# tools/weft-gdb.py show, checked on their outcomes (never on timing).
# Prints one line per check and "observe: N passed, N failed".
lib=$1 bin=$2
here=$(dirname "$0")
tmp=${TMPDIR:-/tmp}/weft-observe.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0  # SIGQUIT's native meaning includes a core file: not here
pass=0 fail=0
ok() { pass=$((pass+1)); echo "PASS $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1: $2"; }

# start_parked N ENV...: runs the parked program under weft with stdin on a
# fifo (held open on fd 3), waits for its "ready" line; sets $pid.
start_parked() {
  n=$1; shift
  rm -f "$tmp/fifo" "$tmp/out" "$tmp/err"; mkfifo "$tmp/fifo"
  # A shell's background job comes with SIGQUIT ignored: reset it.
  env --default-signal=QUIT "$@" LD_PRELOAD="$lib" "$bin/parked" "$n" \
    < "$tmp/fifo" > "$tmp/out" 2> "$tmp/err" &
  pid=$!
  exec 3> "$tmp/fifo"
  i=0
  while ! grep -q '^ready' "$tmp/out" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
}
# wait_exit: waits for $pid (killed after 120 s); sets $rc.
wait_exit() {
  (trap 'kill $s 2>/dev/null; exit 0' TERM; sleep 120 & s=$!; wait $s
   kill -KILL "$pid" 2>/dev/null) & wd=$!
  wait "$pid"; rc=$?
  kill "$wd" 2>/dev/null; wait "$wd" 2>/dev/null
}

# Programs built here are built for the library's architecture ($CC, from
# make).  Under qemu-user (WEFT_EMULATED) every weft run says on stderr
# that its stack arena is capped (tests/tests.mk): noerr drops that line
# where a check wants stderr otherwise empty, and WEFT_TEST_THREADS caps
# the 10,000 parked tasks.
cc=${CC:-cc}
noerr() {
  [ -n "$WEFT_EMULATED" ] && sed -i '/^weft: the address space allows a stack arena/d' "$tmp/err"
  return 0
}
np=10000
[ -n "$WEFT_TEST_THREADS" ] && [ "$WEFT_TEST_THREADS" -lt $np ] && np=$WEFT_TEST_THREADS

# 1. SIGQUIT, default (dump-exit): 10,000 parked tasks, all printed with
#    the program's own (static) function names, then exit status 2.
start_parked $np
kill -QUIT "$pid"
wait_exit; exec 3>&-
tasks=$(grep -c '^task [0-9]* \[' "$tmp/err")
waits=$(grep -c '^task [0-9]* \[pthread_cond_wait on 0x[0-9a-f]*, [0-9]* ms\]:$' "$tmp/err")
fr1=$(grep -c ' park_here+0x[0-9a-f]* (.*parked)$' "$tmp/err")
fr2=$(grep -c ' parked_worker+0x[0-9a-f]* (.*parked)$' "$tmp/err")
starts=$(grep -c '^  start function parked_worker, created by task 1$' "$tmp/err")
mainbt=$(grep -A20 '^task 1 \[' "$tmp/err" | grep -c ' main+0x')
running=$(grep -c '^task [0-9]* \[running on worker [0-9]*\]:$' "$tmp/err")
named=$(grep -c '^  thread name parked-0$' "$tmp/err")
if [ "$rc" = 2 ] && [ "$tasks" = $((np + 2)) ] && [ "$waits" = $np ] && [ "$fr1" = $np ] &&
   [ "$fr2" = $np ] && [ "$starts" = $np ] && [ "$mainbt" = 1 ] && [ "$named" = 1 ]; then
  ok "sigquit-dump-exit: $np parked tasks, exit 2 ($(grep 'tasks dumped in' "$tmp/err"))"
else
  bad sigquit-dump-exit "exit $rc, $tasks tasks, $waits cond waits, frames $fr1/$fr2, starts $starts, main bt $mainbt, named $named"
  head -30 "$tmp/err"
fi
# The spinning task is running (or, if it was preempted just then, runnable).
if [ "$running" -ge 1 ] || grep -q '^task [0-9]* \[runnable\]:$' "$tmp/err"; then
  ok "sigquit-running-task"
else
  bad sigquit-running-task "no running or runnable task line"
fi

# 2. dump-continue: the program goes on and finishes normally.
start_parked 100 WEFT_SIGQUIT=dump-continue
kill -QUIT "$pid"
i=0; while ! grep -q 'tasks dumped in' "$tmp/err" && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
exec 3>&-
wait_exit
if [ "$rc" = 0 ] && grep -q '^done$' "$tmp/out" && [ "$(grep -c ' park_here+' "$tmp/err")" = 100 ]; then
  ok "sigquit-dump-continue"
else
  bad sigquit-dump-continue "exit $rc, out: $(cat "$tmp/out" | tr '\n' ' ')"
fi

# 3. off: SIGQUIT keeps its native meaning (death by SIGQUIT, 128+3).
start_parked 10 WEFT_SIGQUIT=off
kill -QUIT "$pid"
wait_exit; exec 3>&-
if [ "$rc" = 131 ] && ! grep -q '^task ' "$tmp/err"; then ok "sigquit-off"
else bad sigquit-off "exit $rc"; fi

# 4. A program that installs its own SIGQUIT handler gets it, not a dump,
#    and sees SIG_DFL, not weft's handler, before.
cat > "$tmp/own.c" <<'C'
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static volatile sig_atomic_t got;
static void h(int s) { (void)s; got = 1; }
int main(void)
{
	struct sigaction old;
	sigaction(SIGQUIT, NULL, &old);
	printf("default %d\n", old.sa_handler == SIG_DFL);
	signal(SIGQUIT, h);
	raise(SIGQUIT);
	printf("handled %d\n", got);
	return 0;
}
C
if $cc -o "$tmp/own" "$tmp/own.c" 2>/dev/null; then
  # SIGQUIT at its default, as a program started from a terminal has it:
  # a background job of a non-interactive shell inherits it ignored (the
  # program then sees SIG_IGN, natively and under weft alike).
  out=$(WEFT_SIGQUIT=dump-exit LD_PRELOAD="$lib" env --default-signal=QUIT "$tmp/own" 2>"$tmp/err" | tr '\n' ' ')
  if [ "$out" = "default 1 handled 1 " ] && ! grep -q '^task ' "$tmp/err"; then ok "sigquit-program-handler"
  else bad sigquit-program-handler "out '$out'"; fi
fi

# 5. A bad setting: one line, the default.
out=$(WEFT_SIGQUIT=maybe LD_PRELOAD="$lib" "$bin/parked" 1 < /dev/null 2>"$tmp/err")
if grep -q "^weft: WEFT_SIGQUIT=maybe is not dump-exit" "$tmp/err" && [ "$(echo "$out" | tail -1)" = done ]; then
  ok "sigquit-bad-setting"
else bad sigquit-bad-setting "$(cat "$tmp/err")"; fi

# 6. schedtrace on Go's run-queue experiment: 200 CPU-bound threads started
#    by main, GOMAXPROCS=2.  main queues every one on its own proc; with
#    preemption off nothing else queues anywhere (the global queue stays
#    empty, 200 < the ring's 256), so a proc main is not on that shows a
#    non-zero queue got it by stealing.  With scheddetail, the M line whose
#    curg is 1 names main's proc; once main is parked in join (no such
#    line), a sample with every proc's queue non-empty shows it as well.
GOMAXPROCS=2 WEFTDEBUG=schedtrace=1,scheddetail=1,asyncpreemptoff=1 LD_PRELOAD="$lib" \
  "$bin/runqueues" > "$tmp/out" 2> "$tmp/err"
rc=$?
steal=$(awk '
  /^SCHED / { split("", q); n = 0; inq = 0
              for (i = 1; i <= NF; i++) { if ($i == "[") { inq = 1; continue }
                if ($i == "]") { if (inq == 1) inq = 2; continue }
                if (inq == 1) q[n++] = $i } mainp = -1
              all = n > 1; for (i = 0; i < n; i++) if (q[i] == 0) all = 0
              if (all) s++
              next }
  /^  M[0-9]+: / { if ($3 == "curg=1" && !all) { split($2, a, "="); mainp = a[2]
                     for (i = 0; i < n; i++) if (i != mainp && q[i] > 0) s++ } }
  END { print s + 0 }' "$tmp/err")
lines=$(grep -c '^SCHED [0-9]*ms: gomaxprocs=2 idleprocs=[0-9]* threads=[0-9]* spinningthreads=[0-9]* idlethreads=[0-9]* runqueue=[0-9]* \[ [0-9]* [0-9]* \] schedticks=\[ [0-9]* [0-9]* \]$' "$tmp/err")
glines=$(grep -c '^  G[0-9]*: status=[0-9]([a-z_ ()]*) m=[0-9nil]* lockedm=nil$' "$tmp/err")
plines=$(grep -c '^  P[01]: status=[0-2] schedtick=[0-9]* syscalltick=[0-9]* m=[0-9nil]* runqsize=[0-9]* gfreecnt=[0-9]*$' "$tmp/err")
if [ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "200 threads done" ] && [ "$steal" -ge 1 ] &&
   [ "$lines" -ge 1 ] && [ "$glines" -ge 1 ] && [ "$plines" -ge 2 ]; then
  ok "schedtrace-stealing: $steal samples show the other proc's queue filled by stealing"
else
  bad schedtrace-stealing "exit $rc, steal samples $steal, SCHED lines $lines, P lines $plines, G lines $glines"
  grep -m5 '^SCHED' "$tmp/err"
fi
# Without detail, the seeds' plain format: the other procs' queues fill.
GOMAXPROCS=2 WEFTDEBUG=schedtrace=1 LD_PRELOAD="$lib" "$bin/runqueues" > "$tmp/out" 2> "$tmp/err"
both=$(grep -c '^SCHED .* \[ [1-9][0-9]* [1-9][0-9]* \] schedticks' "$tmp/err")
if [ "$both" -ge 1 ] && ! grep -q '^  [PMG]' "$tmp/err"; then ok "schedtrace-plain: $both samples with both queues non-empty"
else bad schedtrace-plain "$both samples with both queues non-empty"; grep -m5 '^SCHED' "$tmp/err"; fi

# 7. tools/weft-gdb.py: `info tasks` and `task N bt` on a live process.
#    Not under qemu-user (WEFT_EMULATED set): gdb -p would attach to the
#    emulator, not to the program it runs.
if [ -n "$WEFT_EMULATED" ]; then
  echo "SKIP gdb checks: the program runs under qemu-user, which gdb -p cannot see into"
elif command -v gdb >/dev/null 2>&1; then
  start_parked 20 WEFT_TLS=syscall WEFT_SIGQUIT=off
  gdb -nx -batch -p "$pid" -x "$here/../../tools/weft-gdb.py" -ex 'info tasks' -ex 'task 5 bt' \
    -ex 'info tasks' > "$tmp/gdb" 2>&1
  exec 3>&-
  wait_exit
  listed=$(grep -c '^ *[0-9]* *waiting *pthread_cond_wait' "$tmp/gdb")
  bt=$(grep -c 'park_here' "$tmp/gdb")
  named=$(grep -c '^ *[0-9]* *waiting .* parked-0$' "$tmp/gdb")
  if [ "$listed" -ge 40 ] && [ "$bt" -ge 1 ] && [ "$named" = 2 ] && [ "$rc" = 0 ] &&
     grep -q '^done$' "$tmp/out"; then
    ok "gdb-info-tasks-and-bt: $((listed / 2)) waiting tasks listed, task 5 walked, program finished"
  else
    bad gdb-info-tasks-and-bt "listed $listed, bt $bt, named $named, exit $rc"; tail -30 "$tmp/gdb"
  fi
else
  echo "SKIP gdb checks: gdb is not installed (apt-get install gdb)"
fi

# 8. WEFTDEBUG=trace=FILE (sched/observe/timeline*.c): Go's run-queue experiment
#    (main creates 200 CPU-bound tasks and joins them) leaves a valid
#    Perfetto trace: a track per worker, slices named after their task and
#    start function, main's joins as parks, wake flows, counters
#    (check_trace.py); `weft trace` counts the same 200 tasks.
chk="python3 $here/check_trace.py"
GOMAXPROCS=2 WEFTDEBUG=trace="$tmp/rq.json" LD_PRELOAD="$lib" "$bin/runqueues" > "$tmp/out" 2> "$tmp/err"
rc=$?
noerr
res=$($chk "$tmp/rq.json" exit burn 200 pthread_join 2>&1)
sum=$(python3 "$here/../../tools/trace.py" "$tmp/rq.json" 2>&1)
if [ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "200 threads done" ] && [ "${res#ok}" != "$res" ] &&
   echo "$sum" | grep -q '^tasks: 201 (200 created during the trace)$' &&
   echo "$sum" | grep -q '^burn  *200 ' && echo "$sum" | grep -q '^dropped events: [0-9]*$' &&
   echo "$sum" | grep -q '^ *[0-9.]* ms  G1 main: pthread_join' && [ ! -s "$tmp/err" ]; then
  ok "trace-runqueues: $res"
else
  bad trace-runqueues "exit $rc, $res, stderr $(head -3 "$tmp/err")"; echo "$sum" | head -12
fi
# The same run through the launcher's sub-command.
if [ -x "$(dirname "$lib")/weft" ] && "$(dirname "$lib")/weft" trace "$tmp/rq.json" | grep -q '^tasks: 201 '; then
  ok "trace-weft-subcommand"
else bad trace-weft-subcommand "weft trace FILE printed no task count"; fi
# Combined with another key; a bad value is one line and no trace.
GOMAXPROCS=1 WEFTDEBUG=schedtrace=10,trace="$tmp/one.json" LD_PRELOAD="$lib" "$bin/runqueues" > "$tmp/out" 2> "$tmp/err"
res=$($chk "$tmp/one.json" exit burn 200 pthread_join 2>&1)
if [ "${res#ok}" != "$res" ] && grep -q '^SCHED ' "$tmp/err"; then ok "trace-with-schedtrace: $res"
else bad trace-with-schedtrace "$res"; fi
WEFTDEBUG=trace= LD_PRELOAD="$lib" "$bin/runqueues" > "$tmp/out" 2> "$tmp/err"
noerr
if [ "$(grep -c '^weft: WEFTDEBUG: trace= names no file; ignored$' "$tmp/err")" = 1 ] &&
   [ "$(wc -l < "$tmp/err")" = 1 ]; then ok "trace-bad-setting"
else bad trace-bad-setting "$(cat "$tmp/err")"; fi
# %p in the name is the process id: a shell running two programs under
# weft with one setting leaves two traces.
WEFTDEBUG=trace="$tmp/pid-%p.json" LD_PRELOAD="$lib" sh -c "'$bin/runqueues' >/dev/null; '$bin/runqueues' >/dev/null"
n=0; for f in "$tmp"/pid-[0-9]*.json; do
  [ -f "$f" ] && $chk "$f" exit burn 200 pthread_join >/dev/null && n=$((n+1))
done
if [ "$n" = 2 ]; then ok "trace-per-process: 2 programs, 2 traces"
else bad trace-per-process "$n valid traces: $(ls "$tmp")"; fi

# 9. The SIGQUIT dump ends the trace before the process exits: every
#    parked task's cond wait is in it.
start_parked 50 WEFTDEBUG=trace="$tmp/q.json"
kill -QUIT "$pid"
wait_exit; exec 3>&-
res=$($chk "$tmp/q.json" SIGQUIT parked_worker 50 pthread_cond_wait 2>&1)
if [ "$rc" = 2 ] && [ "${res#ok}" != "$res" ] &&
   [ "$(python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("name") == "park" and e["args"]["reason"] == "pthread_cond_wait"))' "$tmp/q.json")" -ge 50 ]; then
  ok "trace-sigquit: $res"
else bad trace-sigquit "exit $rc, $res"; fi

# 10. A task that crashes: the crash report ends the trace (end SIGSEGV),
#     the crashing task's slice named after its start function.
cat > "$tmp/crash.c" <<'C'
#include <pthread.h>
#include <unistd.h>
static void *crasher(void *p)
{
	usleep(1000);
	*(volatile int *)p = 1;
	return NULL;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, crasher, NULL);
	pthread_join(t, NULL);
	return 0;
}
C
if $cc -O1 -g -pthread -o "$tmp/crash" "$tmp/crash.c" 2>/dev/null; then
  WEFTDEBUG=trace="$tmp/c.json" LD_PRELOAD="$lib" "$tmp/crash" > /dev/null 2> "$tmp/err"
  rc=$?
  res=$($chk "$tmp/c.json" SIGSEGV crasher 1 pthread_join 2>&1)
  if [ "$rc" = 139 ] && [ "${res#ok}" != "$res" ] && grep -q '"name":"G2 crasher"' "$tmp/c.json"; then
    ok "trace-crash: $res"
  else bad trace-crash "exit $rc, $res"; fi
fi

echo "observe: $pass passed, $fail failed"
[ $fail = 0 ]
