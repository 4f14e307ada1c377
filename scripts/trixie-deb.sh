#!/usr/bin/env bash
# usage: scripts/trixie-deb.sh ARCH [build-deb.sh OPTIONS...]
# The Debian package for trixie (libgpiod3) built by the unchanged scripts/build-deb.sh inside
# the Debian trixie root filesystem of ARCH (amd64, or arm64 under qemu-user), with Debian's
# Swift 6.0.3 and lintian of trixie; the .deb lands in .build-vm/trixie-ARCH/debs/. Same cache
# as scripts/check-trixie.sh and scripts/check-arm64.sh (root filesystem, adapted
# dependencies, source copy and its .build). Environment: VM_CACHE, VM_NO_INSTALL=1.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/trixie-rootfs.sh"
. "$REPO/scripts/trixie-deps.sh"
ARCH=${1:?usage: scripts/trixie-deb.sh ARCH [build-deb.sh OPTIONS...]}; shift
CACHE=${VM_CACHE:-$REPO/.build-vm}/trixie-$ARCH
mkdir -p "$CACHE"; CACHE=$(cd "$CACHE" && pwd)
ROOT=$(trixie_rootfs "$ARCH")
adapted_mirror "$CACHE/deps" > /dev/null
trixie_sync_source "$CACHE"
ARGS=""; [ $# -eq 0 ] || ARGS=$(printf '%q ' "$@")
trixie_chroot "$ROOT" "$CACHE" "cd /cache/src && scripts/build-deb.sh --out /cache/debs $ARGS"
