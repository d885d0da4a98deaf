#!/bin/sh
# deps.sh DEBARCH PKG...: the Debian packages named are installed when run
# as root (apt-get; apt-get update first where the lists are stale), else
# named on stderr with the command that installs them, and the exit status
# is 1.  A PKG of the form a|b|c is the first of a, b, c this release has
# (one of them already installed will do): openjdk-17-jdk-headless on
# Debian 12, openjdk-21-jdk-headless on Debian 13.  A name ending in
# :DEBARCH is another architecture's, added to dpkg first.
arch=$1; shift
installed() {
  dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q "install ok installed"
}
# candidate NAME: apt has a version of NAME to install.
candidate() {
  c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
  [ -n "$c" ] && [ "$c" != "(none)" ]
}
# pick GROUP: the alternative to install, or nothing when none has a
# candidate (yet: the lists may be stale).
pick() {
  for p in $(echo "$1" | tr '|' ' '); do
    if candidate "$p"; then echo "$p"; return; fi
  done
}
missing=""
for g in "$@"; do
  have=""
  for p in $(echo "$g" | tr '|' ' '); do
    if installed "$p"; then have=$p; break; fi
  done
  [ -n "$have" ] || missing="$missing $g"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  names=""
  for g in $missing; do
    p=$(pick "$g"); names="$names ${p:-$(echo "$g" | cut -d'|' -f1)}"
  done
  echo "weft: missing Debian packages:$names (run: sudo apt-get install$names)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
case "$missing" in *:$arch*)
  dpkg --print-foreign-architectures | grep -qx "$arch" ||
    { dpkg --add-architecture "$arch" && apt-get update >/dev/null 2>&1; };; esac
# resolve: the names to install, or the first group none of whose
# alternatives apt knows (on stdout, after "none ").
resolve() {
  names=""
  for g in $missing; do
    p=$(pick "$g")
    if [ -z "$p" ]; then echo "none $g"; return; fi
    names="$names $p"
  done
  echo "$names"
}
names=$(resolve)
case "$names" in none*)
  apt-get update >/dev/null 2>&1
  names=$(resolve);; esac
case "$names" in none*)
  echo "weft: no Debian package${names#none} here (apt-cache policy finds none of them)" >&2
  exit 1;; esac
echo "weft: installing$names"
apt-get install -y $names >/dev/null 2>&1 ||
  { apt-get update >/dev/null 2>&1 && apt-get install -y $names >/dev/null; } ||
  { echo "weft: could not install$names" >&2; exit 1; }
