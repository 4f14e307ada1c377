#!/usr/bin/env bash
# usage: Tests/release/broken-debs.sh --debs DIR --out OUT
# check-packages.sh's self-test: copies of the four packages in DIR, made wrong on purpose,
# so that each check can be seen failing:
#   OUT/depends/   roundclock (arm64) also depends on a package no archive has: check 1
#   OUT/behaviour/ roundclock (arm64): /usr/bin/roundclock is a wrapper around the real binary
#                  that flips a bit of one frame of tabata's frames file and one byte of each
#                  sound track (check 2); it also ships a world-writable file (check 4) and a
#                  copy of the binary whose symbol versions read GLIBC_2.99 (check 5).
#                  roundclock-gateway (arm64) is a wrapper that hands the gateway a control
#                  socket where no clock listens (check 3).
# Then: Tests/release/check-packages.sh --debs OUT/depends --only 1, and --debs OUT/behaviour.
set -euo pipefail
die() { echo "broken-debs: $*" >&2; exit 2; }
DEBS="" OUT=""
while [ $# -gt 0 ]; do
  case $1 in
    --debs) DEBS=${2:?}; shift 2 ;;
    --out) OUT=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[ -d "$DEBS" ] && [ -n "$OUT" ] || die "usage: --debs DIR --out OUT"
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT

# repack SRC DEST EDIT: SRC unpacked with its control files, EDIT (a shell snippet, run in the
# tree) applied, md5sums made anew, packed as DEST.
repack() {
  local tree=$WORK/tree
  rm -rf "$tree"; dpkg-deb -R "$1" "$tree"
  (cd "$tree" && eval "$3")
  (cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
    xargs -d '\n' md5sum) > "$tree/DEBIAN/md5sums"
  dpkg-deb --root-owner-group -b "$tree" "$2" > /dev/null
}

rm -rf "$OUT/depends" "$OUT/behaviour"; mkdir -p "$OUT/depends" "$OUT/behaviour"
cp "$DEBS"/*.deb "$OUT/depends/"; cp "$DEBS"/*.deb "$OUT/behaviour/"
clock=$(ls "$DEBS"/roundclock_*_arm64.deb) gateway=$(ls "$DEBS"/roundclock-gateway_*_arm64.deb)

repack "$clock" "$OUT/depends/$(basename "$clock")" \
  'sed -i "s/^Depends: /Depends: roundclock-no-such-package (>= 1), /" DEBIAN/control'

repack "$clock" "$OUT/behaviour/$(basename "$clock")" '
  mkdir -p usr/lib/roundclock-broken
  mv usr/bin/roundclock usr/lib/roundclock-broken/roundclock
  perl -pe "s/GLIBC_2\.[0-9]+/GLIBC_2.99/g" usr/lib/roundclock-broken/roundclock > usr/lib/roundclock-broken/glibc-probe
  echo broken > usr/lib/roundclock-broken/world-writable; chmod 0666 usr/lib/roundclock-broken/world-writable
  cat > usr/bin/roundclock <<"SH"
#!/bin/sh
/usr/lib/roundclock-broken/roundclock "$@"; rc=$?
program="" frames="" sound=""
while [ $# -gt 0 ]; do
  case $1 in --program) program=$2; shift ;; --frames) frames=$2; shift ;; --sound-file) sound=$2; shift ;; esac
  shift
done
[ "$program" = tabata ] && [ -f "$frames" ] && sed -i "100s/\"ram\": \"0/\"ram\": \"8/" "$frames"
[ -n "$sound" ] && [ -f "$sound" ] && printf "\\252" | dd of="$sound" bs=1 seek=100000 conv=notrunc 2>/dev/null
exit $rc
SH
  chmod 0755 usr/bin/roundclock'

repack "$gateway" "$OUT/behaviour/$(basename "$gateway")" '
  mkdir -p usr/lib/roundclock-broken
  mv usr/bin/roundclock-gateway usr/lib/roundclock-broken/roundclock-gateway
  cat > usr/bin/roundclock-gateway <<"SH"
#!/bin/bash
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --control ]; then args+=(--control /nonexistent/control.sock); shift 2; else args+=("$1"); shift; fi
done
exec /usr/lib/roundclock-broken/roundclock-gateway "${args[@]}"
SH
  chmod 0755 usr/bin/roundclock-gateway'
ls -l "$OUT"/depends "$OUT"/behaviour
