#!/usr/bin/env bash
# usage: scripts/check-trixie.sh [--build-only] [SWIFT TEST ARGUMENTS...]
# The whole package built and its whole test suite run with Debian's own Swift (`swiftlang`
# 6.0.3) in a Debian trixie amd64 root filesystem with trixie's libgpiod 2.x and libi2c
# (docs/install.md). The root filesystem (scripts/trixie-rootfs.sh), the
# dependencies adapted for Swift 6.0 (scripts/trixie-deps.sh, every change printed), a copy
# of the working tree (tracked and new files) and its .build are cached under
# .build-vm/trixie-amd64/, so a second run builds only what changed.
#   --build-only   build the package and its tests, run nothing
# Other arguments go to `swift test` (e.g. --filter CLITests). Environment: VM_CACHE (default
# <repo>/.build-vm), VM_NO_INSTALL=1. Exit status: swift test's.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/trixie-rootfs.sh"
. "$REPO/scripts/trixie-deps.sh"

BUILD_ONLY=0
[ "${1:-}" = --build-only ] && { BUILD_ONLY=1; shift; }
ARCH=${TRIXIE_ARCH:-amd64}
CACHE=${VM_CACHE:-$REPO/.build-vm}/trixie-$ARCH
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
t0=$(date +%s)
stamp() { echo "[check-trixie $(date +%T) +$(( $(date +%s) - t0 ))s] $*"; }

stamp "root filesystem (trixie $ARCH)"
ROOT=$(trixie_rootfs "$ARCH")
stamp "dependencies adapted for Swift 6.0 (scripts/trixie-deps.sh)"
adapted_mirror "$CACHE/deps"
stamp "source: the working tree's tracked and new files -> $CACHE/src"
trixie_sync_source "$CACHE"

stamp "swift build --build-tests (Swift 6.0 in the root filesystem)"
trixie_chroot "$ROOT" "$CACHE" "
  set -e; cd /cache/src; swift --version 2>&1 | head -1
  echo \"libgpiod \$(pkg-config --modversion libgpiod), $(printf '%s' "$ARCH")\"
  swift build --build-tests"
[ "$BUILD_ONLY" = 1 ] && { stamp "built (--build-only)"; exit 0; }
stamp "swift test $*"
rc=0
ARGS=""; [ $# -eq 0 ] || ARGS=$(printf '%q ' "$@")
trixie_chroot "$ROOT" "$CACHE" "cd /cache/src && swift test --skip-build $ARGS" || rc=$?
stamp "done (swift test exit $rc)"
exit $rc
