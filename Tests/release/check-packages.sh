#!/usr/bin/env bash
# The four release packages proven where they are meant to run (see Tests/release/README.md).
#
# usage: Tests/release/check-packages.sh --debs DIR [--only N[,N...]]
#        Tests/release/check-packages.sh --prepare-only
#   --debs DIR       holds roundclock_*_{amd64,arm64}.deb and roundclock-gateway_*_{amd64,arm64}.deb
#   --only N,...     run only these checks (1-5); 2 and 3 still install the packages first
#   --prepare-only   make the cached root filesystems only
# Checks, each in a fresh copy of a cached Debian trixie root (mmdebstrap --variant=apt; arm64
# runs under qemu-user through binfmt):
#   1  apt-get install of both packages from their files in a minimal arm64 and amd64 root:
#      exit 0, every dependency from Debian's archive; the service users and units in place
#   2  the installed roundclock simulates every preset it lists, its custom example, stopwatch
#      and clock, and renders texts on every backpack kind: frames, output, sound tracks and
#      drawings of arm64 byte-identical to amd64's
#   3  the arm64 gateway serves its page to the host's Chromium and drives the arm64 clock
#      over its socket; /api/state agrees with the page
#   4  lintian: no error and no warning for any package
#   5  no ELF file in any package needs a glibc symbol newer than the root's libc6
# Environment: VM_CACHE (default <repo>/.build-vm; this check's cache is VM_CACHE/release-check),
#   VM_NO_INSTALL=1 (install nothing on the host; fail if something is missing).
# Output: "PASS|FAIL n text" per result, the wall time of each step, and last
# "check-packages: N passed, M failed". Exit status 0 only if nothing failed and N > 0.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

usage() { sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "check-packages: error: $*" >&2; exit 2; }

DEBS="" ONLY="1,2,3,4,5" PREPARE_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --debs) [ $# -ge 2 ] || die "--debs needs a directory"; DEBS=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || die "--only needs check numbers"; ONLY=$2; shift 2 ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
[[ $ONLY =~ ^[1-5](,[1-5])*$ ]] || die "--only takes check numbers 1-5, e.g. --only 2,3"
wants() { [[ ,$ONLY, == *,$1,* ]]; }
[ "$(dpkg --print-architecture)" = amd64 ] || die "runs on an amd64 machine"
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot)"

CACHE=${VM_CACHE:-$REPO/.build-vm}/release-check
mkdir -p "$CACHE/logs"; CACHE=$(cd "$CACHE" && pwd)
LOGS=$CACHE/logs RUN=$CACHE/run
VM_LABEL=check-packages PREP_FAILED_SUMMARY="check-packages: 0 passed, 1 failed"
. "$REPO/Tests/kernel-vm/host-lib.sh"   # stage, install_host_packages, the summary on exit
. "$HERE/roots.sh"
. "$HERE/report.sh"

# The four packages, one file each.
declare -A DEB
if [ $PREPARE_ONLY = 0 ]; then
  [ -n "$DEBS" ] && [ -d "$DEBS" ] || die "--debs DIR is required (see --help)"
  for arch in amd64 arm64; do
    for pkg in roundclock roundclock-gateway; do
      found=("$DEBS/${pkg}_"*"_$arch.deb")
      [ ${#found[@]} = 1 ] && [ -f "${found[0]}" ] || die "need exactly one ${pkg}_*_$arch.deb in $DEBS"
      DEB[$pkg-$arch]=$(realpath "${found[0]}")
    done
  done
fi

stage "host packages"
trixie_host_packages arm64 || die "mmdebstrap, qemu-user-static and binfmt for aarch64 are needed"
if [ $PREPARE_ONLY = 0 ] && wants 3; then
  install_host_packages chromium chromium-driver
  if ! python3 -c 'import selenium' 2>/dev/null; then
    [ "${VM_NO_INSTALL:-0}" = 1 ] && die "Selenium (PyPI) missing and VM_NO_INSTALL=1"
    python3 -m pip install --quiet selenium
  fi
fi

stage "root filesystems"
# Minimal roots for the install (nothing added; check 5 reads their libc6), one trixie amd64
# root with the tools; only those the chosen checks use.
needs() { local n; [ $PREPARE_ONLY = 1 ] && return 0; for n in "$@"; do wants "$n" && return 0; done; return 1; }
TOOLS_PACKAGES=lintian,binutils,binutils-aarch64-linux-gnu
declare -A TAR=()
pids=()
if needs 1 2 3 5; then
  pristine_root minimal arm64 > "$LOGS/root-arm64.path" & pids+=($!)
  pristine_root minimal amd64 > "$LOGS/root-amd64.path" & pids+=($!)
fi
if needs 4 5; then pristine_root tools amd64 "$TOOLS_PACKAGES" > "$LOGS/root-tools.path" & pids+=($!); fi
for pid in "${pids[@]}"; do wait "$pid" || die "a root filesystem could not be made"; done
if needs 1 2 3 5; then TAR[arm64]=$(cat "$LOGS/root-arm64.path") TAR[amd64]=$(cat "$LOGS/root-amd64.path"); fi
if needs 4 5; then TAR[tools]=$(cat "$LOGS/root-tools.path"); fi
if [ $PREPARE_ONLY = 1 ]; then
  stage done
  echo "roots: ${TAR[arm64]} ${TAR[amd64]} ${TAR[tools]}"
  echo "timings:$TIMINGS"
  SUMMARY_DONE=1
  exit 0
fi

# run_in NAME SCRIPT [ARG...]: the script Tests/release/in-root/SCRIPT in the fresh root
# RUN/NAME/root, with RUN/NAME at /cache; its output to LOGS/NAME-SCRIPT.log.
run_in() {
  local name=$1 script=$2; shift 2
  cp "$HERE/in-root/$script" "$RUN/$name/$script"
  trixie_chroot "$RUN/$name/root" "$RUN/$name" "bash /cache/$script $(printf '%q ' "$@")" \
    > "$LOGS/$name-${script%.sh}.log" 2>&1
}
# timed NAME CMD...: CMD, its wall time appended to RUN/times ("NAME Ns").
timed() {
  local name=$1 t=$SECONDS rc=0; shift
  "$@" || rc=$?
  echo "$name $((SECONDS - t))s" >> "$RUN/times"
  return $rc
}
# install_and_simulate ARCH: a fresh minimal root, the packages installed (check 1), the
# simulations (check 2).
install_and_simulate() {
  local arch=$1
  timed "$arch-fresh-root" fresh_root "${TAR[$arch]}" "$RUN/$arch/root"
  mkdir -p "$RUN/$arch/debs"
  cp "${DEB[roundclock-$arch]}" "${DEB[roundclock-gateway-$arch]}" "$RUN/$arch/debs/"
  apt_state_in "$arch" "$RUN/$arch/root"
  timed "$arch-install" run_in "$arch" install.sh
  apt_state_out "$arch" "$RUN/$arch"
  if wants 2 && [ "$(cat "$RUN/$arch/install.rc")" = 0 ]; then timed "$arch-simulate" run_in "$arch" simulate.sh; fi
}
# lintian_and_objdump: a fresh tools root, lintian and objdump -T on the four packages.
lintian_and_objdump() {
  timed "tools-fresh-root" fresh_root "${TAR[tools]}" "$RUN/tools/root"
  mkdir -p "$RUN/tools/debs"; cp "${DEB[@]}" "$RUN/tools/debs/"
  timed "tools-lintian-objdump" run_in tools tools.sh
}

rm -rf "$RUN"; mkdir -p "$RUN/arm64" "$RUN/amd64" "$RUN/tools"; : > "$RUN/times"
stage "checks 1, 2: install and simulate (arm64 under qemu; amd64, then lintian and objdump, beside it)"
# amd64 and the tools root run natively beside the emulated arm64 root.
(
  if wants 1 || wants 2; then install_and_simulate amd64; fi
  if wants 4 || wants 5; then lintian_and_objdump; fi
) & side=$!
if wants 1 || wants 2 || wants 3; then install_and_simulate arm64; fi
wait $side || true

stage "report"
if wants 1; then report_install arm64 || true; report_install amd64 || true; fi
if wants 2; then report_simulations || true; fi
if wants 3; then
  stage "check 3: arm64 gateway and clock, the host's Chromium"
  timed "gateway-page" check_gateway || true
fi
if wants 4; then report_lintian || true; fi
if wants 5; then report_glibc || true; fi
stage done
echo "timings:$TIMINGS"
echo "steps: $(tr '\n' ',' < "$RUN/times" | sed 's/,$//; s/,/, /g')"
SUMMARY_DONE=1
echo "check-packages: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ]
