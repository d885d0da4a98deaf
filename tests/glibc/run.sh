#!/bin/sh
# run.sh DIR RELEASE...: builds weft and runs the preload tests (at the
# default GOMAXPROCS and at 1, as make test-preload) inside a chroot of
# each Debian RELEASE (trixie, sid, ...), so each release's own glibc and
# gcc build and run it.  Needs root: debootstrap, mount, chroot.
#
# The chroot is DIR/RELEASE, made once by debootstrap (minbase and what
# the build and the preload tests need) from the Debian archive this
# machine's apt sources name (GLIBC_MIRROR overrides), and kept: a rerun
# copies the sources in and rebuilds only what changed (rm -rf DIR/RELEASE
# takes a newer snapshot of the release).  /proc, /sys and /dev are
# bind-mounted into it for the run and unmounted after it, also when it
# fails or is interrupted.
#
# Prints per release the glibc and gcc versions, the compiler's warnings,
# each failing test and the two "preload: N passed, N failed" lines; the whole output is
# DIR/RELEASE.log.  Exits 1 if any release failed to set up, build or pass.
dir=$1; shift
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
[ "$(id -u)" = 0 ] || { echo "weft: make test-glibc needs root (debootstrap, mount, chroot)"; exit 1; }
# What building libweft.so and the preload tests need (tests/tests.mk:
# C and C++ programs, OpenMP's libgomp comes with gcc, gc_* link libgc).
pkgs="gcc g++ make libc6-dev libunwind-dev libgc-dev liburing-dev"
build_debs="libunwind-dev libgc-dev liburing-dev"

# The Debian archive of this machine's apt sources: the first URI given for
# its own release (one-line .list files and deb822 .sources files).
host_mirror() {
  code=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && awk -v c="$code" '$1 == "deb" {
        i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++
        if ($i ~ /^\[/ || $i ~ /\]$/) i++
        if ($(i + 1) == c) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && awk -v c="$code" 'BEGIN { RS = "" }
      { uri = ""; ok = 0; off = 0
        n = split($0, l, "\n")
        for (j = 1; j <= n; j++) {
          if (l[j] ~ /^URIs:/) { split(l[j], w, /[ \t]+/); uri = w[2] }
          if (l[j] ~ /^Suites:/) { m = split(l[j], w, /[ \t]+/); for (k = 2; k <= m; k++) if (w[k] == c) ok = 1 }
          if (l[j] ~ /^Enabled:[ \t]*no/) off = 1
        }
        if (ok && !off && uri != "") { print uri; exit } }' "$f"
  done
}
mirror=${GLIBC_MIRROR:-$(host_mirror | head -n1)}
mirror=${mirror:-http://deb.debian.org/debian}

mounted=""
unmount() {
  for m in $mounted; do
    umount -R "$m" 2>/dev/null || umount -R -l "$m" ||
      echo "weft: could not unmount $m"
  done
  mounted=""
}
trap unmount EXIT
trap 'exit 130' INT TERM HUP # the EXIT trap unmounts

# in_root CMD: CMD in /weft of the chroot $root, with a plain environment.
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    ${GOMAXPROCS:+GOMAXPROCS=$GOMAXPROCS} sh -c "cd /weft && $1"
}

rc=0
for rel; do
  root=$dir/$rel log=$dir/$rel.log
  start=$(date +%s)
  : > "$log"
  # Left mounted by a run that was killed outright: unmounted first, so
  # neither rm below nor make clean can reach the machine's own /dev.
  for d in proc sys dev; do
    mountpoint -q "$root/$d" 2>/dev/null && umount -R -l "$root/$d"
  done
  if [ "$(cat "$root/.weft-chroot" 2>/dev/null)" != "$pkgs" ]; then
    echo "$rel: debootstrap from $mirror"
    rm -rf --one-file-system "$root" "$root.tmp"
    if ! debootstrap --variant=minbase --include="$(echo $pkgs | tr ' ' ,)" \
         "$rel" "$root.tmp" "$mirror" >> "$log" 2>&1; then
      echo "weft: debootstrap of $rel from $mirror failed:"; tail -3 "$log"
      rc=1; continue
    fi
    echo "$pkgs" > "$root.tmp/.weft-chroot"
    mv "$root.tmp" "$root"
  fi
  # The sources, as they are in this tree; the chroot's build/ stays, and
  # the files keep their times, so only what changed is rebuilt.
  mkdir -p "$root/weft"
  find "$root/weft" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
  (cd "$src" && tar --exclude=./build --exclude=./.git -cf - .) | tar -C "$root/weft" -xf -
  for d in proc sys dev; do
    mount --rbind "/$d" "$root/$d" || { echo "weft: cannot bind /$d into $root"; rc=1; unmount; continue 2; }
    mounted="$root/$d $mounted"
    mount --make-rslave "$root/$d"
  done
  glibc=$(in_root 'getconf GNU_LIBC_VERSION') gcc=$(in_root 'gcc -dumpfullversion')
  echo "$rel: $glibc, gcc $gcc" | tee -a "$log"
  t0=$(date +%s)
  lib=/weft/build/libweft.so bins=/weft/build/tests/preload
  progs=$(for f in "$src"/tests/preload/*.c "$src"/tests/preload/*.cc; do
            n=${f##*/}; printf ' %s/%s' $bins "${n%.*}"; done)
  if ! in_root "nice make -j2 --no-print-directory DEBS='$build_debs' preload-build" >> "$log" 2>&1; then
    echo "weft: building weft on $rel failed:"; grep -m3 -i 'error\|weft:' "$log"
    rc=1; unmount; continue
  fi
  grep ': warning:' "$log" | sed "s/^/$rel: /"
  t1=$(date +%s)
  for g in "" 1; do
    GOMAXPROCS=$g in_root "sh tests/run-preload.sh $lib $bins$progs" > "$dir/$rel.out" 2>&1 ||
      rc=1
    cat "$dir/$rel.out" >> "$log"
    grep '^FAIL\|^preload:' "$dir/$rel.out" | sed "s/^/$rel${g:+ GOMAXPROCS=$g}: /"
  done
  rm -f "$dir/$rel.out"
  unmount
  t2=$(date +%s)
  echo "$rel: $((t2 - start)) s: chroot $((t0 - start)) s, build $((t1 - t0)) s, tests $((t2 - t1)) s"
done
exit $rc
