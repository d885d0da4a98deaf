#!/bin/sh
# run.sh BUILD PROG: the launcher as a user meets it — --help/--version,
# usage errors, exit statuses passed through, `weft compare` (repetitions,
# a short diff, --json, --svg), make bench-real's harness (one short
# case), and `make install`/`make uninstall` into a temporary DESTDIR,
# running PROG (basic_join: it checks that weft is loaded, and exits 3)
# through the installed launcher, and reading the installed manual pages.
# Prints one line per check and "tools: N passed, N failed".
b=$(cd "$1" && pwd) prog=$2
weft=$b/weft
tmp=${TMPDIR:-/tmp}/weft-tools.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); echo "PASS $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1: $2"; }
# expect NAME STATUS CMD...: CMD exits with STATUS; stderr in $tmp/err.
expect() {
  name=$1 want=$2; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"; got=$?
  if [ "$got" = "$want" ]; then ok "$name"; else bad "$name" "exit $got, wanted $want: $(head -c 300 "$tmp/err")"; fi
}
# one_weft_line NAME: stderr is exactly one line starting "weft: ".
one_weft_line() {
  if [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q '^weft: ' "$tmp/err"; then ok "$1 message"
  else bad "$1 message" "$(head -c 300 "$tmp/err")"; fi
}

expect version 0 "$weft" --version
grep -q "^weft [0-9][0-9.]*$" "$tmp/out" && ok "version text" || bad "version text" "$(cat "$tmp/out")"
expect help 0 "$weft" --help
grep -q "weft run PROG" "$tmp/out" && grep -q "weft compare" "$tmp/out" && ok "help text" || bad "help text" "$(head -3 "$tmp/out")"
expect no-args 2 "$weft"
expect bad-subcommand 2 "$weft" frobnicate; one_weft_line bad-subcommand
expect run-no-program 2 "$weft" run; one_weft_line run-no-program
expect run-missing-path 2 "$weft" run ./no/such/program; one_weft_line run-missing-path
expect run-missing-name 2 "$weft" run no-such-program-anywhere; one_weft_line run-missing-name
expect missing-lib 2 env WEFT_LIB=/nonexistent/libweft.so "$weft" run true; one_weft_line missing-lib
expect run-exit-status 7 "$weft" run sh -c 'exit 7'
# Death by signal passes through as a death by signal, not an exit status.
python3 - "$weft" <<'PY' && ok "run-signal-death" || bad "run-signal-death" "not killed by SIGTERM"
import subprocess, sys
r = subprocess.run([sys.argv[1], "run", "sh", "-c", "kill -TERM $$"])
sys.exit(0 if r.returncode == -15 else 1)
PY

# compare: identical outputs, 3 runs each, figures in JSON and SVG.
expect compare-same 0 "$weft" compare -n 3 --json --svg "$tmp/c.svg" -e GOMAXPROCS=1 "$prog"
python3 - "$tmp/out" "$tmp/c.svg" <<'PY' && ok "compare-json-svg" || bad "compare-json-svg" "$(head -c 300 "$tmp/out")"
import json, sys, xml.dom.minidom
r = json.load(open(sys.argv[1]))
assert r["same"] and r["runs"] == 3 and r["warmup"] == 1 and r["weft_env"] == ["GOMAXPROCS=1"]
for side in ("native", "weft"):
    for k in ("wall", "cpu", "rss", "threads"):
        s = r[side][k]
        assert len(s["values"]) == 3 and s["min"] <= s["median"] <= s["max"], (side, k)
assert all(r["ratio"][k] > 0 for k in ("wall", "rss", "threads"))
svg = xml.dom.minidom.parse(sys.argv[2])
assert len(svg.getElementsByTagName("rect")) == 1 + 2 * 4  # background + 2 bars x 4 measures
PY
# compare: outputs that differ (LD_PRELOAD shows up in the weft run's
# output) after 50,000 equal lines: exit 1 and a short diff, not the
# output.
expect compare-differ 1 "$weft" compare -n 2 sh -c 'seq 50000; echo "preload=$LD_PRELOAD"'
lines=$(wc -l < "$tmp/out")
if grep -q '^outputs: DIFFER in 2 of 2' "$tmp/out" && grep -q '^  +preload=.*libweft.so' "$tmp/out" &&
   [ "$lines" -lt 40 ]; then ok "compare-short-diff ($lines lines)"
else bad "compare-short-diff" "$lines lines: $(head -c 400 "$tmp/out")"; fi
expect compare-bad-option 2 "$weft" compare -n 0 true
expect compare-bad-env 2 "$weft" compare -e NOEQUALS true

# make bench-real's harness (bench/real/run.py --test): one short case
# through weft compare, its table and its JSON.
root=$(cd "$(dirname "$0")/../.." && pwd)
expect bench-real-harness 0 python3 "$root/bench/real/run.py" --weft "$weft" --test
grep -q '^stress-switch-short .* yes$' "$tmp/out" && grep -q '^geometric mean' "$tmp/out" &&
  ok "bench-real-table" || bad "bench-real-table" "$(head -c 400 "$tmp/out")"

# make install into a DESTDIR, run through the installed launcher without
# WEFT_LIB, read the manual pages, then make uninstall.
d=$tmp/dest p=/usr/local
if make -s --no-print-directory install DESTDIR="$d" PREFIX=$p > "$tmp/inst" 2>&1; then ok install
else bad install "$(tail -5 "$tmp/inst")"; fi
for f in bin/weft lib/libweft.so share/weft/compare.py share/weft/weft-gdb.py \
         share/man/man1/weft.1 share/man/man7/weft.7; do
  [ -f "$d$p/$f" ] || bad "installed $f" missing
done
expect installed-run 3 env -u WEFT_LIB WEFT_EXPECT=1 "$d$p/bin/weft" run "$prog"
expect installed-compare 0 env -u WEFT_LIB "$d$p/bin/weft" compare "$prog"
for s in 1 7; do
  if MANWIDTH=80 man --warnings -M "$d$p/share/man" "$s" weft > "$tmp/man" 2> "$tmp/manerr" &&
     [ ! -s "$tmp/manerr" ] && grep -q 'GUARANTEES AND KNOWN LIMITS\|ENVIRONMENT' "$tmp/man"; then
    ok "man $s weft ($(wc -l < "$tmp/man") lines)"
  else bad "man $s weft" "$(head -c 300 "$tmp/manerr")"; fi
done
grep -q 'WEFT_MAXTHREADS' "$tmp/man" 2>/dev/null || MANWIDTH=80 man -M "$d$p/share/man" 1 weft | grep -q WEFT_MAXTHREADS &&
  ok "man 1 lists the settings" || bad "man 1 lists the settings" "no WEFT_MAXTHREADS"
make -s --no-print-directory uninstall DESTDIR="$d" PREFIX=$p > "$tmp/inst" 2>&1
left=$(find "$d" -type f | wc -l)
[ "$left" = 0 ] && ok "uninstall" || bad uninstall "$left files left: $(find "$d" -type f | head -3)"

echo "tools: $pass passed, $fail failed"
[ "$fail" = 0 ]
