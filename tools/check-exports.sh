#!/bin/sh
# check-exports LIB MAP: the dynamic symbols LIB defines must be exactly the
# names in MAP.  Prints the difference and fails otherwise.
lib=$1 map=$2
got=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
want=$(sed -n 's/^ *\([A-Za-z_0-9]*\);$/\1/p' "$map" | sort -u)
extra=$(printf '%s\n' "$got" | grep -vxF "$(printf '%s\n' "$want")")
missing=$(printf '%s\n' "$want" | grep -vxF "$(printf '%s\n' "$got")")
if [ -n "$extra" ] || [ -n "$missing" ]; then
  [ -n "$extra" ] && echo "check-exports: exported but not interposed:" $extra
  [ -n "$missing" ] && echo "check-exports: in the map but not exported:" $missing
  exit 1
fi
echo "check-exports: $(printf '%s\n' "$got" | wc -l) symbols, all interposed names"
