#!/usr/bin/env bash
# usage: scripts/check-arm64.sh
# arm64 for real: the Debian package built by the unchanged scripts/build-deb.sh
# (release, static Swift runtime, dpkg-buildpackage, lintian) with Debian trixie's Swift in a
# trixie arm64 root filesystem under qemu-user, and its `roundclock` binary run there; the same
# for amd64 in the trixie amd64 root filesystem (same Swift 6.0.3, same sources). Then, byte
# for byte, amd64 against arm64:
#   - the frames file of a full boxing session in virtual time (simulate --virtual --frames)
#   - `render --plain` of two texts on every backpack kind (RAM bytes and the drawing)
#   - the package installed with dpkg -i, its /usr/bin/roundclock run, its unit verified,
#     then purged (install.txt)
# and each package's lintian report must hold no error and no warning.
# One build per architecture: the binary compared is the packaged one (`dpkg-deb -x`), the
# binary a Pi owner installs. Slow: the arm64 compiler itself runs under emulation. Root
# filesystems and both .build directories are cached under .build-vm/trixie-{arm64,amd64}/.
# Prints one line per comparison, the wall time of each stage, and last
# "check-arm64: N passed, M failed". Environment: VM_CACHE, VM_NO_INSTALL=1.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/trixie-rootfs.sh"
. "$REPO/scripts/trixie-deps.sh"
t0=$(date +%s)
stamp() { echo "[check-arm64 $(date +%T) +$(( $(date +%s) - t0 ))s] $*"; }

# what both binaries are asked: written to /cache/out/ in each root filesystem
RUNS=$(cat <<'RUNS'
set -e; cd /cache/src; mkdir -p /cache/out; rm -f /cache/out/*
rm -rf /cache/pkg; dpkg-deb -x /cache/debs/roundclock_*_"$(dpkg --print-architecture)".deb /cache/pkg
BIN=/cache/pkg/usr/bin/roundclock
file -b "$BIN" | cut -d, -f1-2; "$BIN" --version
"$BIN" simulate --program boxing --virtual --no-tty --frames /cache/out/boxing.jsonl > /cache/out/boxing.out
# every backpack kind, texts each can show (render exits 64 on one it cannot: a failure here)
for pair in "seg7x4| 2:58" "seg7x4|12.34" "bigseg7x4| 2:58" "bigseg7x4|1234" "seg14x4|WORK" "seg14x4|12.34" \
            "matrix8x8|12" "matrix8x8|59" "matrix16x8| 2:58" "matrix16x8|12:34"; do
  kind=${pair%%|*} text=${pair#*|}
  "$BIN" render --plain --display "$kind" "$text" > "/cache/out/render-$kind-$(echo "$text" | tr -c 'A-Za-z0-9\n' _).txt"
done
ls /cache/out | wc -l
RUNS
)

# the package installed as a Pi owner installs it (maintainer scripts run emulated on arm64),
# its binary run from /usr/bin, the unit checked, then purged: install.txt, compared like the rest
INSTALL=$(cat <<'INSTALL'
set -e; cd /cache/out
# a cached root filesystem keeps the system user a previous run's postinst made: remove it, so
# every run checks that installing creates it; dpkg's own output (sysusers' "Creating user ...",
# whose ids depend on what the root filesystem already holds) goes to a log beside out/
userdel roundclock 2> /dev/null || true
for g in roundclock roundclock-remote gpio; do groupdel "$g" 2> /dev/null || true; done
{ dpkg -i /cache/debs/roundclock_*_"$(dpkg --print-architecture)".deb > /cache/dpkg-install.log 2>&1 \
    || { echo "dpkg -i failed:"; cat /cache/dpkg-install.log; }
  dpkg-query -W -f='${Package} ${Version} ${Status}\n' roundclock
  /usr/bin/roundclock --version
  getent passwd roundclock | cut -d: -f1,6,7
  systemctl is-enabled roundclock.service || true
  systemd-analyze verify /usr/lib/systemd/system/roundclock.service && echo "systemd-analyze verify: clean"
  dpkg --purge roundclock > /dev/null
  dpkg-query -W -f='${Status}\n' roundclock 2>/dev/null || echo "purged"
  test ! -e /etc/roundclock/config.toml && echo "no /etc/roundclock/config.toml left"; } > install.txt 2>&1
cat install.txt
INSTALL
)

for arch in amd64 arm64; do
  CACHE=${VM_CACHE:-$REPO/.build-vm}/trixie-$arch
  mkdir -p "$CACHE"; CACHE=$(cd "$CACHE" && pwd)
  stamp "$arch: root filesystem"
  ROOT=$(trixie_rootfs "$arch")
  adapted_mirror "$CACHE/deps" > /dev/null
  trixie_sync_source "$CACHE"
  stamp "$arch: scripts/build-deb.sh (swift build -c release, dpkg-buildpackage, lintian)"
  rm -f "$CACHE"/debs/roundclock_*.deb
  trixie_chroot "$ROOT" "$CACHE" "cd /cache/src && scripts/build-deb.sh --out /cache/debs" 2>&1 | tee "$CACHE/build-deb.log" | grep -v '^\[' || true
  ls "$CACHE"/debs/roundclock_*_"$arch".deb > /dev/null || { echo "FAIL $arch: no package (log: $CACHE/build-deb.log)"; exit 1; }
  stamp "$arch: simulate and render with the packaged binary"
  trixie_chroot "$ROOT" "$CACHE" "$RUNS"
  stamp "$arch: dpkg -i, run from /usr/bin, dpkg --purge"
  trixie_chroot "$ROOT" "$CACHE" "$INSTALL" || { echo "FAIL $arch: install (see $CACHE/out/install.txt)"; exit 1; }
done
stamp "compare"

AMD=${VM_CACHE:-$REPO/.build-vm}/trixie-amd64/out ARM=${VM_CACHE:-$REPO/.build-vm}/trixie-arm64/out
passed=0 failed=0
for f in "$AMD"/*; do
  name=$(basename "$f")
  if cmp -s "$f" "$ARM/$name"; then
    echo "PASS $name ($(wc -c < "$f") bytes equal)"; passed=$((passed + 1))
  else
    echo "FAIL $name differs between amd64 and arm64"; diff "$f" "$ARM/$name" | head -5 || true; failed=$((failed + 1))
  fi
done
for arch in amd64 arm64; do
  log=${VM_CACHE:-$REPO/.build-vm}/trixie-$arch/build-deb.log
  issues=$(sed -n '/^== lintian/,$p' "$log" | grep -cE '^[EW]: ' || true)
  if [ "$issues" -eq 0 ]; then echo "PASS lintian $arch: no error, no warning"; passed=$((passed + 1))
  else echo "FAIL lintian $arch: $issues errors or warnings"; grep -E '^[EW]: ' "$log" | head -5; failed=$((failed + 1)); fi
done
grep -q '"panel"' "$AMD/boxing.jsonl" || { echo "FAIL boxing.jsonl has no frames"; failed=$((failed + 1)); }
for want in " install ok installed" "roundclock:/var/lib/roundclock:/usr/sbin/nologin" "systemd-analyze verify: clean" "purged" "no /etc/roundclock/config.toml left"; do
  grep -qF "$want" "$AMD/install.txt" || { echo "FAIL install.txt lacks \"$want\""; failed=$((failed + 1)); }
done
stamp "done"
echo "check-arm64: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
