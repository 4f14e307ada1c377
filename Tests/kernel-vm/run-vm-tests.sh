#!/usr/bin/env bash
# Real-kernel tests: boots Debian's kernel in qemu with i2c-stub and gpio-sim (built out of
# tree at run time from linux-source) and runs RoundClock against them. See
# Tests/kernel-vm/README.md.
#
# usage: Tests/kernel-vm/run-vm-tests.sh [--binary PATH] [--libgpiod v1|v2] [--checks all|libgpiod]
#        Tests/kernel-vm/run-vm-tests.sh --prepare-only
#   --binary PATH    the roundclock binary to test (default: .build/debug/roundclock for v1,
#                    .build-gpiod2/debug/roundclock for v2; if that does not exist, the
#                    roundclock checks are skipped, the kernel and C checks still run);
#                    check d1 runs the roundclock-bench binary built next to it
#   --libgpiod v1|v2 which libgpiod the binary was built against; the C check program is
#                    built against the same (v2: static library from scripts/build-libgpiod-v2.sh)
#   --checks all|libgpiod  every check (default), or only those that depend on the libgpiod
#                    API (Tests/kernel-vm/checks): CI runs the v2 build with these
#   --prepare-only   make the caches only (packages, kernel, gpio-sim, libgpiod v2, initramfs)
# Environment:
#   VM_CACHE             cache for downloads, kernel, module, logs (default: <repo>/.build-vm)
#   LIBGPIOD_V2_PREFIX   libgpiod v2 prefix (default: $VM_CACHE/libgpiod-v2; built if missing)
#   VM_TIMEOUT           seconds before qemu is killed (default 600); VM_SMP, VM_MEM, ACCEL: see boot-vm.sh
#   VM_KERNEL            kernel ABI to boot, e.g. 6.1.0-41-amd64 (default: newest linux-headers installed)
#   VM_NO_INSTALL=1      do not apt-get install (fail if something is missing)
#   VM_GUEST_SCRIPT      run this script in the VM instead of guest/guest-tests.sh (debugging)
# Output: one "PASS|FAIL|SKIP <id> <text>" line per check, then a last line
# "vm: N passed, M failed". Exit status 0 only if the guest ran, nothing failed and N > 0.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
export DEBIAN_FRONTEND=noninteractive

usage() { sed -n '5,15p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "run-vm-tests: error: $*" >&2; exit 2; }

BINARY="" LIBGPIOD=v1 CHECKS=all PREPARE_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --binary) [ $# -ge 2 ] || die "--binary needs a path"; BINARY=$2; shift 2 ;;
    --binary=*) BINARY=${1#*=}; shift ;;
    --libgpiod) [ $# -ge 2 ] || die "--libgpiod needs v1 or v2"; LIBGPIOD=$2; shift 2 ;;
    --libgpiod=*) LIBGPIOD=${1#*=}; shift ;;
    --checks) [ $# -ge 2 ] || die "--checks needs all or libgpiod"; CHECKS=$2; shift 2 ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
case $LIBGPIOD in v1|v2) ;; *) die "--libgpiod must be v1 or v2, not '$LIBGPIOD'" ;; esac
case $CHECKS in all|libgpiod) ;; *) die "--checks must be all or libgpiod, not '$CHECKS'" ;; esac

CACHE=${VM_CACHE:-$REPO/.build-vm}
mkdir -p "$CACHE/debs" "$CACHE/logs"
CACHE=$(cd "$CACHE" && pwd)
LOGS=$CACHE/logs
V2_PREFIX=${LIBGPIOD_V2_PREFIX:-$CACHE/libgpiod-v2}

# ---- stage timing and the always-printed summary --------------------------------------
VM_LABEL=vm PREP_FAILED_SUMMARY="vm: 0 passed, 1 failed"
. "$HERE/host-lib.sh"

# ---- 1. packages ------------------------------------------------------------------------
stage install
PKGS=(qemu-system-x86 busybox-static gpiod i2c-tools libgpiod-dev libi2c-dev linux-headers-amd64
      gcc make libc6-dev kmod cpio gzip xz-utils pkg-config alsa-utils python3)
if { [ "$LIBGPIOD" = v2 ] || [ $PREPARE_ONLY = 1 ]; } && [ ! -f "$V2_PREFIX/lib/libgpiod.a" ]; then PKGS+=(python3-pip); fi
install_host_packages "${PKGS[@]}"

# ---- 2. and 3. kernel image and gpio-sim --------------------------------------------------
. "$HERE/kernel-prep.sh"

# ---- 5. initramfs (busybox + virtio/9p modules + guest/init), rebuilt when inputs change -
stage initramfs
INITRD=$CACHE/initrd-$KV.gz
KEY=$(cat "$HERE/guest/init" "$HERE/mkinitramfs.sh" /bin/busybox | sha256sum | cut -c1-16)
if [ "$(cat "$INITRD.key" 2>/dev/null)" != "$KEY" ] || ! cache_reuse "$INITRD" "the initramfs"; then
  "$HERE/mkinitramfs.sh" "$KDIR" "$KV" "$INITRD"
  cache_seal "$INITRD"
  echo "$KEY" > "$INITRD.key"
fi

if [ $PREPARE_ONLY = 1 ]; then
  stage libgpiod-v2
  "$REPO/scripts/build-libgpiod-v2.sh" "$V2_PREFIX" > "$LOGS/libgpiod-v2.log" 2>&1 ||
    { cat "$LOGS/libgpiod-v2.log" >&2; die "scripts/build-libgpiod-v2.sh $V2_PREFIX failed"; }
  stage "done"
  SUMMARY_DONE=1
  echo "vm: prepared (kernel $KV, gpio-sim, libgpiod v2, initramfs):$TIMINGS total $(( $(date +%s) - START ))s"
  exit 0
fi

# ---- 4. the guest's share: test script, C helpers, config, board --------------------------
stage helpers
SHARE=$CACHE/share-$LIBGPIOD
rm -rf "$SHARE"; mkdir -p "$SHARE"
cp "${VM_GUEST_SCRIPT:-$HERE/guest/guest-tests.sh}" "$SHARE/guest-tests.sh"
cp "$HERE/guest/sound-tests.sh" "$HERE/guest/unplug-tests.sh" "$REPO/boards/simulator.toml" "$HERE/checks" "$SHARE/"
if [ "$LIBGPIOD" = v2 ]; then
  "$REPO/scripts/build-libgpiod-v2.sh" "$V2_PREFIX" > "$LOGS/libgpiod-v2.log" 2>&1 ||
    { cat "$LOGS/libgpiod-v2.log" >&2; die "scripts/build-libgpiod-v2.sh $V2_PREFIX failed"; }
  read -r -a GPIOD_FLAGS <<< "$(PKG_CONFIG_PATH="$V2_PREFIX/lib/pkgconfig" pkg-config --cflags --libs libgpiod)"
else
  GPIOD_FLAGS=(-lgpiod)
fi
gcc -O2 -Wall -Wextra -o "$SHARE/gpio_check" "$HERE/src/gpio_check.c" "${GPIOD_FLAGS[@]}" ||
  die "compiling src/gpio_check.c against libgpiod $LIBGPIOD failed"
gcc -O2 -Wall -Wextra -o "$SHARE/i2c_check" "$HERE/src/i2c_check.c" -li2c || die "compiling src/i2c_check.c failed"

# The binary: the guest sees the host's / at the same paths, except /tmp, /run and /var/tmp
# (tmpfs in the guest); a binary there is copied into the share.
BINARY_NOTE=""
if [ -n "$BINARY" ]; then
  [ -x "$BINARY" ] || die "--binary $BINARY: no such executable"
else
  if [ "$LIBGPIOD" = v2 ]; then BINARY=$REPO/.build-gpiod2/debug/roundclock; else BINARY=$REPO/.build/debug/roundclock; fi
  if [ ! -x "$BINARY" ]; then
    BINARY_NOTE="no --binary given and $BINARY does not exist"
    BINARY=""
  fi
fi
LINKS="" BENCH_BINARY=""
if [ -n "$BINARY" ]; then
  BINARY=$(readlink -f "$BINARY")
  BENCH_BINARY=$(dirname "$BINARY")/roundclock-bench
  case $BINARY in
    /tmp/*|/run/*|/var/tmp/*) mkdir -p "$SHARE/bin"; cp "$BINARY" "$SHARE/bin/roundclock"; BINARY=/tmp/work/bin/roundclock ;;
  esac
  # the benchmarks are their own executable, built next to roundclock (check d1)
  if [ -x "$BENCH_BINARY" ]; then
    case $BENCH_BINARY in
      /tmp/*|/run/*|/var/tmp/*) mkdir -p "$SHARE/bin"; cp "$BENCH_BINARY" "$SHARE/bin/roundclock-bench"; BENCH_BINARY=/tmp/work/bin/roundclock-bench ;;
    esac
    echo "benchmark binary $BENCH_BINARY"
  else
    BENCH_BINARY=""
  fi
  # which libgpiod the binary carries: v1 is linked as Debian's libgpiod.so.2, v2 statically
  BIN_HOST=$BINARY; [ "$BINARY" = /tmp/work/bin/roundclock ] && BIN_HOST=$SHARE/bin/roundclock
  if readelf -d "$BIN_HOST" 2>/dev/null | grep -q 'NEEDED.*libgpiod\.so'; then LINKS=v1
  elif grep -qa 'gpiod_chip_request_lines' "$BIN_HOST"; then LINKS=v2
  elif grep -qa 'gpiod_' "$BIN_HOST"; then LINKS=unknown
  fi
  echo "binary $BINARY (libgpiod: ${LINKS:-not used})"
fi
# The v1 run (the one that checks the speaker) has a USB speaker to unplug (check s3).
USB_SPEAKER=0
[ "$LIBGPIOD" = v1 ] && [ -n "$BINARY" ] && USB_SPEAKER=1
{
  printf 'BINARY=%q\n' "$BINARY"
  printf 'BINARY_NOTE=%q\n' "$BINARY_NOTE"
  printf 'BENCH_BINARY=%q\n' "$BENCH_BINARY"
  printf 'LIBGPIOD=%q\n' "$LIBGPIOD"
  printf 'CHECKS=%q\n' "$CHECKS"
  printf 'SOUND_SECONDS=%q\n' "${SOUND_SECONDS:-64}"
  printf 'SOUND_LOAD=%q\n' "${SOUND_LOAD:-0}"
  printf 'SOUND_FIFO=%q\n' "${SOUND_FIFO:-0}"
  printf 'USB_SPEAKER=%q\n' "$USB_SPEAKER"
} > "$SHARE/config.sh"

# ---- 6. boot and test ---------------------------------------------------------------------
stage vm
# One boot: the console to the terminal and its log, boot-vm.sh's exit status in VMRC.
boot() {
  # a longer sound run (SOUND_SECONDS) is a longer quiet stretch on the console
  VM_STALL=${VM_STALL:-$(( ${SOUND_SECONDS:-64} > 120 ? ${SOUND_SECONDS:-64} + 240 : 240 ))} \
  VM_USB_SPEAKER=$USB_SPEAKER "$HERE/boot-vm.sh" "$KDIR/boot/vmlinuz-$KV" "$INITRD" "$SHARE" "$MODDIR" 2>&1 | tee "$LOGS/console-$LIBGPIOD.log"
  VMRC=${PIPESTATUS[0]}
}
set +e
boot
# A VM that gives no result at all (qemu killed at its timeout: the emulated machine froze,
# as TCG on an overloaded host can) boots once more; a check that failed is never run
# again, and a second freeze fails.
if [ "$VMRC" = 125 ]; then
  mv "$LOGS/console-$LIBGPIOD.log" "$LOGS/console-$LIBGPIOD-frozen.log"
  echo "vm: no result from the VM (console: $LOGS/console-$LIBGPIOD-frozen.log); booting it once more"
  boot
fi
set -e
stage "done"

# ---- 7. summary -----------------------------------------------------------------------------
PASSED=0 FAILED=0 SKIPPED=0
echo
echo "==== kernel-VM tests: libgpiod $LIBGPIOD, kernel $KV, binary ${BINARY:-none}"
report() {
  echo "$1 $2 $3"
  case $1 in PASS) PASSED=$((PASSED + 1)) ;; FAIL) FAILED=$((FAILED + 1)) ;; SKIP) SKIPPED=$((SKIPPED + 1)) ;; esac
}
if [ -n "$BINARY" ] && [ -n "$LINKS" ]; then
  if [ "$LINKS" = "$LIBGPIOD" ]; then report PASS h1 "the binary is built against libgpiod $LIBGPIOD"
  else report FAIL h1 "--libgpiod $LIBGPIOD, but the binary is built against libgpiod $LINKS"; fi
fi
ENDED=0
if [ -f "$SHARE/results" ]; then
  while read -r status id text; do
    case $status in
      PASS|FAIL|SKIP) report "$status" "$id" "$text" ;;
      END) ENDED=1 ;;
    esac
  done < "$SHARE/results"
fi
# Every check this run owes (Tests/kernel-vm/checks) must have reported, and a skip must be
# on Tests/kernel-vm/expected-skips with its reason: a check that quietly stops running fails.
EXPECTED=$(sed -n "s/^$CHECKS: //p" "$HERE/checks")
[ -z "$BINARY" ] && EXPECTED=""   # no binary: only the kernel and C checks, by request
for id in $EXPECTED; do
  grep -qE "^(PASS|FAIL|SKIP) $id( |\$)" "$SHARE/results" 2>/dev/null ||
    { [ "$id" = h1 ] && [ -n "$LINKS" ]; } || report FAIL "$id" "reported no result (Tests/kernel-vm/checks lists it for --checks $CHECKS)"
done
if [ -f "$SHARE/results" ]; then
  while read -r status id text; do
    [ "$status" = SKIP ] || continue
    if grep -qE "^$id " <(grep -v '^#' "$HERE/expected-skips"); then echo "expected skip $id: $(grep -E "^$id " "$HERE/expected-skips" | cut -d' ' -f2-)"
    else report FAIL "$id" "skipped, and not on Tests/kernel-vm/expected-skips: $text"; fi
  done < "$SHARE/results"
fi
if [ "$VMRC" = 125 ]; then report FAIL vm "no result from the VM (crashed, hung or timed out); console log $LOGS/console-$LIBGPIOD.log"
elif [ $ENDED = 0 ]; then report FAIL vm "the guest test script did not finish (exit $VMRC); console log $LOGS/console-$LIBGPIOD.log"
elif [ "$VMRC" != 0 ] && [ $FAILED = 0 ]; then report FAIL vm "guest exit code $VMRC without a failed check"
fi
echo "vm: timings:$TIMINGS total $(( $(date +%s) - START ))s"
echo "vm: artifacts (frames, probe output, board file) in $SHARE/artifacts"
[ $SKIPPED -gt 0 ] && echo "vm: $SKIPPED skipped (see SKIP lines)"
SUMMARY_DONE=1
echo "vm: $PASSED passed, $FAILED failed"
[ $FAILED -eq 0 ] && [ $PASSED -gt 0 ]
