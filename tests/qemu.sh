#!/bin/sh
# qemu.sh ARCH: lets this machine run ARCH's Linux programs directly, under
# qemu-user: the kernel's binfmt_misc (mounted here if it is not) gets the
# entry Debian's qemu-user-static ships for ARCH, so a test program, the
# programs it starts, and LD_PRELOAD all work as on ARCH itself (the
# interpreter is static: no host ld.so sees the foreign LD_PRELOAD).
# Prints what it did; exits 1 with a "weft:" line when it cannot.
arch=$1
conf=/usr/lib/binfmt.d/qemu-$arch.conf
bm=/proc/sys/fs/binfmt_misc
[ -f "$conf" ] || { echo "weft: $conf missing (Debian package qemu-user-static)"; exit 1; }
if [ ! -e "$bm/register" ]; then
  mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null ||
    { echo "weft: cannot mount binfmt_misc at $bm (needs root): $arch programs cannot run here"; exit 1; }
fi
if [ ! -e "$bm/qemu-$arch" ]; then
  grep -v '^#' "$conf" > "$bm/register" 2>/dev/null ||
    { echo "weft: cannot register qemu-$arch with binfmt_misc (needs root)"; exit 1; }
fi
grep -q '^enabled' "$bm/qemu-$arch" ||
  { echo "weft: binfmt_misc entry qemu-$arch is disabled"; exit 1; }
echo "qemu: $arch programs run under $(sed -n 's/^interpreter //p' "$bm/qemu-$arch")"
