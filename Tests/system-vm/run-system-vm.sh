#!/usr/bin/env bash
# The Debian packages under a real systemd: boots a minimal Debian 12 with systemd in qemu
# (TCG) on Debian's kernel with i2c-stub and gpio-sim, installs roundclock_*.deb with apt and
# runs the service's nine checks in the guest, then installs it again with
# roundclock-gateway_*.deb and drives the phone page in headless Chromium on the host through
# a hostfwd port (checks 10 and 11); check 12: both packages' man pages render; check 13: the
# service plays its signals into ALSA's loopback card (snd-aloop), each sound's onset timed
# against its display change by roundclock-bench sound-onsets in the guest; check 14: the card's
# roundclock.toml under the package's roundclock-card.service, refused (on the panels) and
# applied. See README.md here.
#
# usage: Tests/system-vm/run-system-vm.sh [--deb FILE --upgrade-deb FILE] [--gateway-deb FILE]
#                                         [--bench FILE]
#        Tests/system-vm/run-system-vm.sh --prepare-only
#   --deb FILE          the package to install (default: built with scripts/build-deb.sh)
#   --upgrade-deb FILE  a higher version of it for check 9 (default: built with
#                       scripts/build-deb.sh --version <version>+vmupgrade1)
#   --gateway-deb FILE  the phone remote's package (default: scripts/build-deb.sh --gateway)
#   --bench FILE        the roundclock-bench that times check 13's sounds (default: the debug
#                       build, swift build --product roundclock-bench)
#   --prepare-only      make the caches only: kernel, gpio-sim, root filesystem, initramfs
# Environment: VM_CACHE (default <repo>/.build-vm), VM_TIMEOUT (seconds, default 1500),
#   VM_SMP, VM_MEM, ACCEL (as Tests/kernel-vm/boot-vm.sh), VM_NO_INSTALL=1 (never apt-get
#   install on the host).
# Output: "PASS|FAIL|MISSING <n> <text>" per check 1-14, then "system-vm: N passed, M failed,
# K missing". Exit status 0 only if all fourteen passed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KVM_DIR=$REPO/Tests/kernel-vm
export DEBIAN_FRONTEND=noninteractive
die() { echo "run-system-vm: error: $*" >&2; exit 2; }

DEB="" UPGRADE_DEB="" GATEWAY_DEB="" BENCH="" PREPARE_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --deb) DEB=$(readlink -f "${2:?--deb needs a file}"); shift 2 ;;
    --upgrade-deb) UPGRADE_DEB=$(readlink -f "${2:?--upgrade-deb needs a file}"); shift 2 ;;
    --gateway-deb) GATEWAY_DEB=$(readlink -f "${2:?--gateway-deb needs a file}"); shift 2 ;;
    --bench) BENCH=$(readlink -f "${2:?--bench needs a file}"); shift 2 ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    -h|--help) sed -n '10,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done

CACHE=${VM_CACHE:-$REPO/.build-vm}
mkdir -p "$CACHE/debs" "$CACHE/logs" "$CACHE/system-vm"
CACHE=$(cd "$CACHE" && pwd)
LOGS=$CACHE/logs
SVM=$CACHE/system-vm

CHECKS=14
VM_LABEL=system-vm PREP_FAILED_SUMMARY="system-vm: 0 passed, 1 failed, $CHECKS missing"
. "$KVM_DIR/host-lib.sh"

# ---- host packages ---------------------------------------------------------------------
stage install
PKGS=(qemu-system-x86 busybox-static mmdebstrap e2fsprogs linux-headers-amd64 gcc make libc6-dev
      kmod cpio gzip xz-utils dpkg-dev debhelper help2man lintian libgpiod-dev libi2c-dev libasound2-dev libespeak-ng-dev pkg-config
      chromium chromium-driver fonts-dejavu-core libmosquitto-dev)
install_host_packages "${PKGS[@]}"
python3 -c 'import selenium' 2>/dev/null || "$REPO/scripts/setup.sh" --gateway ||
  die "Selenium for the page check (check 11): python3 -m pip install selenium"

# ---- kernel and gpio-sim (shared with Tests/kernel-vm and its cache) ----------------------
. "$KVM_DIR/kernel-prep.sh"

# ---- root filesystem: Debian 12 with systemd and the packages' run-time libraries (cached) -
stage rootfs
# What both packages depend on (checked against their Depends below, once they are built: a
# new dependency fails with its name), without versions: the VM has no network but qemu's
# user-mode link, restricted to the one forwarded port. avahi-daemon, which the gateway
# recommends, publishes its service file; man-db for check 12 (man renders the pages); gpiod
# and i2c-tools bring libgpiod2 and libi2c0, which roundclock-bench needs too (check 13);
# libespeak-ng1, which the clock recommends, for [voice].
ROOTFS_PACKAGES=systemd,systemd-sysv,udev,kmod,procps,i2c-tools,gpiod,avahi-daemon,man-db,libc6,libgcc-s1,libstdc++6,libasound2,libgpiod2,libi2c0,libespeak-ng1,libmosquitto1,adduser
KEY=$( { echo "$ROOTFS_PACKAGES"; echo "$KV"; cat "$HERE/rootfs-setup.sh"; md5sum "$MODDIR/extra/gpio-sim.ko"; } | md5sum | cut -c1-12)
IMAGE=$SVM/rootfs-$KEY.img
if ! { cache_reuse "$IMAGE" "the root filesystem" && [ -s "$IMAGE.packages" ]; }; then
  rm -f "$SVM"/rootfs-*.img "$SVM"/rootfs-*.img.*
  ROOT=$SVM/rootfs.tmp
  rm -rf "$ROOT"
  echo "mmdebstrap bookworm --variant=minbase --include=$ROOTFS_PACKAGES"
  mmdebstrap --variant=minbase --include="$ROOTFS_PACKAGES" bookworm "$ROOT" > "$LOGS/system-vm-mmdebstrap.log" 2>&1 ||
    { tail -30 "$LOGS/system-vm-mmdebstrap.log" >&2; die "mmdebstrap failed"; }
  "$HERE/rootfs-setup.sh" "$ROOT" "$KDIR" "$KV" > "$LOGS/system-vm-rootfs-setup.log" 2>&1 ||
    { tail -30 "$LOGS/system-vm-rootfs-setup.log" >&2; die "rootfs-setup.sh failed"; }
  chroot "$ROOT" dpkg-query -W -f='${Package}\n' > "$IMAGE.packages"
  mke2fs -q -t ext4 -L rootfs -d "$ROOT" "$IMAGE.tmp" 3G || die "mke2fs -d $ROOT failed"
  mv "$IMAGE.tmp" "$IMAGE"
  rm -rf "$ROOT"
  cache_seal "$IMAGE"
fi
echo "root filesystem $(basename "$IMAGE") ($(du -h "$IMAGE" | cut -f1) used of 3G)"

# ---- initramfs: mounts /dev/vda and hands over to systemd --------------------------------
stage initramfs
. "$HERE/initramfs.sh"
system_vm_initramfs "$SVM"
if [ $PREPARE_ONLY = 1 ]; then
  stage done
  SUMMARY_DONE=1
  echo "system-vm: prepared (kernel $KV, root filesystem, initramfs):$TIMINGS total $(( $(date +%s) - START ))s"
  exit 0
fi

# ---- the packages: the version of debian/changelog and a higher one for the upgrade ------
stage packages
if [ -z "$DEB" ] || [ -z "$UPGRADE_DEB" ]; then
  VERSION=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -SVersion)
  ARCH=$(dpkg --print-architecture)
  DEB=$SVM/debs/roundclock_${VERSION}_$ARCH.deb
  UPGRADE_DEB=$SVM/debs/roundclock_${VERSION}+vmupgrade1_$ARCH.deb
  # built again only when what goes into them changed (tracked, modified or new files)
  INPUTS=(Package.swift Sources debian boards systemd man docs README.md scripts/build-deb.sh)
  PKEY=$( { git -C "$REPO" ls-files -s -- "${INPUTS[@]}" && git -C "$REPO" diff HEAD -- "${INPUTS[@]}" &&
            git -C "$REPO" ls-files -o --exclude-standard -- "${INPUTS[@]}" && swift --version 2>&1; } | md5sum | cut -c1-12) || PKEY=none
fi
if [ -n "${PKEY:-}" ] && [ "$PKEY" != none ] && [ -f "$DEB" ] && [ -f "$UPGRADE_DEB" ] && [ "$(cat "$SVM/debs/key" 2>/dev/null)" = "$PKEY" ]; then
  echo "packages up to date (inputs $PKEY)"
elif [ -n "${PKEY:-}" ]; then
  rm -f "$SVM/debs/key"
  # the upgrade first: the last build leaves the release binary at the changelog's version
  "$REPO/scripts/build-deb.sh" --no-lintian --version "$VERSION+vmupgrade1" --out "$SVM/debs" > "$LOGS/system-vm-build-deb-upgrade.log" 2>&1 ||
    { tail -30 "$LOGS/system-vm-build-deb-upgrade.log" >&2; die "scripts/build-deb.sh --version $VERSION+vmupgrade1 failed"; }
  # this one with lintian, which must report no errors
  "$REPO/scripts/build-deb.sh" --out "$SVM/debs" > "$LOGS/system-vm-build-deb.log" 2>&1 ||
    { tail -30 "$LOGS/system-vm-build-deb.log" >&2; die "scripts/build-deb.sh failed"; }
  grep -A30 '^== lintian' "$LOGS/system-vm-build-deb.log" | grep -E '^(E|W):' || echo "lintian: no errors, no warnings"
  echo "$PKEY" > "$SVM/debs/key"
fi
for f in "$DEB" "$UPGRADE_DEB"; do [ -f "$f" ] || die "no package $f"; done
dpkg --compare-versions "$(dpkg-deb -f "$UPGRADE_DEB" Version)" gt "$(dpkg-deb -f "$DEB" Version)" ||
  die "$UPGRADE_DEB is not a higher version than $DEB"
echo "package $(basename "$DEB"), upgrade $(basename "$UPGRADE_DEB")"
# the phone remote's package: its release build, lintian (Gateway/, the root package's Sources)
if [ -z "$GATEWAY_DEB" ]; then
  GVERSION=$(dpkg-parsechangelog -l "$REPO/Gateway/debian/changelog" -SVersion)
  GATEWAY_DEB=$SVM/debs/roundclock-gateway_${GVERSION}_$(dpkg --print-architecture).deb
  GINPUTS=(Gateway/Package.swift Gateway/Sources Gateway/Public Gateway/debian Gateway/systemd Gateway/avahi
           man/roundclock-gateway.1 Package.swift Sources README.md scripts/build-deb.sh)
  GKEY=$( { git -C "$REPO" ls-files -s -- "${GINPUTS[@]}" && git -C "$REPO" diff HEAD -- "${GINPUTS[@]}" &&
            git -C "$REPO" ls-files -o --exclude-standard -- "${GINPUTS[@]}" && swift --version 2>&1; } | md5sum | cut -c1-12)
  if [ -f "$GATEWAY_DEB" ] && [ "$(cat "$SVM/debs/gateway-key" 2>/dev/null)" = "$GKEY" ]; then
    echo "gateway package up to date (inputs $GKEY)"
  else
    rm -f "$SVM/debs/gateway-key"
    # its release build kept under the cache (a source change rebuilds only what changed)
    "$REPO/scripts/build-deb.sh" --gateway --out "$SVM/debs" --scratch-path "$CACHE/gateway-release" \
      > "$LOGS/system-vm-build-deb-gateway.log" 2>&1 ||
      { tail -30 "$LOGS/system-vm-build-deb-gateway.log" >&2; die "scripts/build-deb.sh --gateway failed"; }
    grep -A30 '^== lintian' "$LOGS/system-vm-build-deb-gateway.log" | grep -E '^(E|W):' || echo "lintian (gateway): no errors, no warnings"
    echo "$GKEY" > "$SVM/debs/gateway-key"
  fi
fi
[ -f "$GATEWAY_DEB" ] || die "no package $GATEWAY_DEB"
echo "gateway package $(basename "$GATEWAY_DEB")"
# both packages' Depends, without versions or alternatives, must be in the root filesystem
for dep in $( { dpkg-deb -f "$DEB" Depends; echo ,; dpkg-deb -f "$GATEWAY_DEB" Depends; } | tr ',' '\n' |
              sed -e 's/|.*//' -e 's/(.*)//' -e 's/ //g' | grep -v '^$' | sort -u); do
  grep -qx "$dep" "$IMAGE.packages" ||
    die "the packages depend on $dep, which the root filesystem lacks: add it to ROOTFS_PACKAGES in $0"
done

# ---- check 13's recorder: roundclock-bench (not in the package), the debug build ----------
stage bench
if [ -z "$BENCH" ]; then
  (cd "$REPO" && swift build --product roundclock-bench) > "$LOGS/system-vm-build-bench.log" 2>&1 ||
    { tail -30 "$LOGS/system-vm-build-bench.log" >&2; die "swift build --product roundclock-bench failed"; }
  BENCH=$(cd "$REPO" && swift build --show-bin-path)/roundclock-bench
fi
[ -x "$BENCH" ] || die "no roundclock-bench at $BENCH"
echo "bench $BENCH"

# ---- the share: the packages, the simulator's pictures, the checks ------------------------
stage share
SHARE=$SVM/share
rm -rf "$SHARE"; mkdir -p "$SHARE"
cp "$DEB" "$UPGRADE_DEB" "$GATEWAY_DEB" "$SHARE/"
cp "$HERE/guest/system-checks.sh" "$HERE/guest/sandbox-probe.sh" "$HERE/guest/gateway-checks.sh" \
   "$HERE/guest/sound-checks.sh" "$HERE/guest/card-checks.sh" "$SHARE/"
# roundclock-bench with the libraries it finds outside the system's directories (a debug
# build's Swift runtime, in the toolchain); the guest's Debian 12 has the others
mkdir -p "$SHARE/bench/lib"
cp "$BENCH" "$SHARE/bench/roundclock-bench"
ldd "$BENCH" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | { grep -vE '^/(usr/)?lib(64)?/' || true; } |
  while read -r lib; do cp -L "$lib" "$SHARE/bench/lib/"; done
! ldd "$BENCH" | grep 'not found' || die "$BENCH misses libraries on the host"
{
  printf 'DEB=%q\n' "/mnt/share/$(basename "$DEB")"
  printf 'UPGRADE_DEB=%q\n' "/mnt/share/$(basename "$UPGRADE_DEB")"
  printf 'VERSION=%q\n' "$(dpkg-deb -f "$DEB" Version)"
  printf 'UPGRADE_VERSION=%q\n' "$(dpkg-deb -f "$UPGRADE_DEB" Version)"
  printf 'GATEWAY_DEB=%q\n' "/mnt/share/$(basename "$GATEWAY_DEB")"
  printf 'BENCH=%q\n' /mnt/share/bench/roundclock-bench
} > "$SHARE/config.sh"
# What the panels must show, from the simulator of the very binary in the package: the ready
# picture and every second of the countdown, as RAM per panel (the guest compares RAM).
dpkg-deb -x "$DEB" "$SVM/unpacked.tmp"
BIN=$SVM/unpacked.tmp/usr/bin/roundclock
# The installed config's defaults: the built-in simulator board (the standard wiring: bus 1,
# 0x70-0x72, GPIO17/27/22) and the boxing program; START pressed at t = 1 s.
"$BIN" simulate --program boxing --ready --events 1:start \
  --virtual --until 2900 --frames "$SHARE/sim.jsonl" > "$LOGS/system-vm-simulate.out" 2>&1 ||
  { cat "$LOGS/system-vm-simulate.out" >&2; die "roundclock simulate for the expected pictures failed"; }
# "t|panel|text|state|ram" per frame (t in ms), for bash in the guest
sed -n 's/^{"t": \([0-9]*\)\.\([0-9]*\), "panel": "\([a-z]*\)", "text": "\([^"]*\)".*"state": "\([a-z]*\)", "ram": "\([0-9a-f]*\)".*/\1\2|\3|\4|\5|\6/p' \
  "$SHARE/sim.jsonl" > "$SHARE/pictures.txt"
[ -s "$SHARE/pictures.txt" ] || die "no pictures parsed from $SHARE/sim.jsonl"
# check 14's refused card: the ready panels' picture of a refusal naming line 3, "panel ram"
echo "/boot/firmware/roundclock.toml: line 3, column 1: not valid TOML" > "$SVM/card-error"
"$BIN" run --simulate --virtual --until 1 --card-error "$SVM/card-error" --frames "$SHARE/card.jsonl" \
  > "$LOGS/system-vm-card.out" 2>&1 || { cat "$LOGS/system-vm-card.out" >&2; die "roundclock run --card-error failed"; }
sed -n 's/^{"t": 0\.000, "panel": "\([a-z]*\)", "text": "[^"]*".*"ram": "\([0-9a-f]*\)".*/\1 \2/p' "$SHARE/card.jsonl" \
  > "$SHARE/card-pictures.txt"
[ "$(wc -l < "$SHARE/card-pictures.txt")" = 3 ] || die "no card pictures parsed from $SHARE/card.jsonl"
rm -rf "$SVM/unpacked.tmp"

# ---- boot (and the guest's own reboot) ----------------------------------------------------
stage vm
ACCEL=${ACCEL:-tcg}
if [ "$ACCEL" = kvm ]; then A=(-accel kvm -cpu "${KVM_CPU:-host}"); else A=(-accel tcg -cpu max); fi
# the gateway's port 80 in the guest, on a free loopback port of the host (restrict=on: the
# guest reaches nothing else)
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "qemu: accel=$ACCEL smp=${VM_SMP:-2} mem=${VM_MEM:-1024}M timeout=${VM_TIMEOUT:-1500}s, guest port 80 on 127.0.0.1:$PORT (console: $LOGS/system-vm-console.log)"
set +e
# -snapshot: the guest writes to a throw-away overlay (kept across its reboot, since qemu
# keeps running), so the cached image stays pristine.
timeout --kill-after=10 "${VM_TIMEOUT:-1500}" qemu-system-x86_64 "${A[@]}" -m "${VM_MEM:-1024}" -smp "${VM_SMP:-2}" \
  -nographic -nodefaults -serial stdio -monitor none \
  -nic "user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:$PORT-:80" \
  -kernel "$KDIR/boot/vmlinuz-$KV" -initrd "$INITRD" \
  -append "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init systemd.show_status=0" \
  -drive "file=$IMAGE,format=raw,if=virtio,snapshot=on" \
  -virtfs local,path="$SHARE",mount_tag=share,security_model=none \
  </dev/null > "$LOGS/system-vm-console.log" 2>&1 &
QEMU=$!
# check 11, the host's half: once the guest's gateway is up (gateway-ready with the PIN), the
# page in headless Chromium taps START; page-result goes back to the guest
while kill -0 "$QEMU" 2>/dev/null; do
  if [ -f "$SHARE/gateway-ready" ] && [ ! -f "$SHARE/page-result" ]; then
    pin=$(sed -n 's/^PIN=//p' "$SHARE/gateway-ready")
    echo "page check: Chromium against http://127.0.0.1:$PORT (log: $LOGS/system-vm-page.log)"
    timeout --kill-after=10 360 python3 "$HERE/page_check.py" --origin "http://127.0.0.1:$PORT" --pin "$pin" \
      --result "$SHARE/page-result" > "$LOGS/system-vm-page.log" 2>&1
    tail -1 "$LOGS/system-vm-page.log"
    [ -f "$SHARE/page-result" ] || printf 'PAGE_STATUS=FAIL\nPAGE_TEXT="page_check.py wrote no result"\n' > "$SHARE/page-result"
  fi
  sleep 1
done
wait "$QEMU"; q=$?
set -e
[ $q -eq 124 ] || [ $q -eq 137 ] && echo "qemu killed after ${VM_TIMEOUT:-1500}s (timeout)"
stage done

# ---- results ------------------------------------------------------------------------------
SUMMARY_DONE=1
passed=0 failed=0 missing=0
for n in $(seq 1 $CHECKS); do
  line=$(grep -E "^(PASS|FAIL) $n " "$SHARE/results" 2>/dev/null | tail -1 || true)
  if [ -z "$line" ]; then
    echo "MISSING $n the guest reported no result for check $n"; missing=$((missing + 1))
  else
    echo "$line"
    case $line in PASS*) passed=$((passed + 1)) ;; *) failed=$((failed + 1)) ;; esac
  fi
done
[ -f "$SHARE/details" ] && cp "$SHARE/details" "$LOGS/system-vm-details.log"
echo "details: $LOGS/system-vm-details.log; console: $LOGS/system-vm-console.log"
echo "timings:$TIMINGS total $(( $(date +%s) - START ))s"
echo "system-vm: $passed passed, $failed failed, $missing missing"
[ $failed -eq 0 ] && [ $missing -eq 0 ]
