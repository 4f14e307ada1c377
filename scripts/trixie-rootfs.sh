#!/usr/bin/env bash
# usage: scripts/trixie-rootfs.sh ARCH
# Makes (once) a Debian trixie root filesystem for ARCH (amd64 or arm64) with Debian's own
# Swift (`swiftlang`, 6.0.3), libgpiod 2.x, libi2c and what the test suite and
# scripts/build-deb.sh use, and prints its path. mmdebstrap from Debian's archive; arm64 runs
# under qemu-user (qemu-user-static, binfmt_misc), which this script installs and enables on
# the host. Cached under .build-vm/trixie-ARCH/rootfs-KEY (KEY: this script's package list),
# nothing of it is committed. Sourced helper: trixie_chroot ROOT CACHE SCRIPT runs the bash
# SCRIPT in ROOT with /proc, /dev, /sys, CACHE at /cache and the package mirror at
# /opt/swift-packages.
# Environment: VM_CACHE (default <repo>/.build-vm), VM_NO_INSTALL=1 (never apt-get install on
# the host).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# What the root filesystem holds: Debian's Swift and the build's C libraries (as the Pi owner's
# `sudo apt install swiftlang libgpiod-dev libi2c-dev libasound2-dev libespeak-ng-dev`), git (SwiftPM fetches the mirror with
# it), libstdc++-14-dev (build-deb.sh links the Swift runtime statically, which needs
# libstdc++.a), what tests run (systemd-analyze and systemd-sysusers, python3, script, gpiod, i2c-tools),
# and scripts/build-deb.sh's tools (dpkg-buildpackage checks for build-essential).
TRIXIE_PACKAGES=swiftlang,libstdc++-14-dev,build-essential,libgpiod-dev,libi2c-dev,libasound2-dev,libespeak-ng-dev,pkg-config,git,ca-certificates,systemd,python3,bsdutils,gpiod,i2c-tools,dpkg-dev,debhelper,help2man,lintian,file,procps

trixie_rootfs() {
  local arch=$1 cache key root log
  case $arch in amd64|arm64) ;; *) echo "trixie-rootfs: architecture '$arch': amd64 or arm64" >&2; return 2 ;; esac
  cache=${VM_CACHE:-$REPO/.build-vm}/trixie-$arch
  mkdir -p "$cache"
  key=$( { echo "$TRIXIE_PACKAGES"; sed -n '/^trixie_rootfs_setup()/,/^}/p' "${BASH_SOURCE[0]}"; } | md5sum | cut -c1-12)
  root=$cache/rootfs-$key
  # a root filesystem is used again only if every file of its packages matches dpkg's record
  # (dpkg --verify: present, same md5sum); one that does not is made again
  if [ -f "$root/.complete" ] && [ -n "$(chroot "$root" dpkg --verify 2>&1 | grep -v '^??5?????? c ' | head -3)" ]; then
    echo "trixie-rootfs: $root differs from its packages (dpkg --verify): made again" >&2
    rm -f "$root/.complete"
  fi
  if [ ! -f "$root/.complete" ]; then
    trixie_host_packages "$arch"
    unmount_below "$cache"
    rm -rf "$cache"/rootfs-*
    log=$cache/mmdebstrap.log
    echo "mmdebstrap trixie $arch --include=$TRIXIE_PACKAGES (log: $log)" >&2
    mmdebstrap --variant=apt --architectures="$arch" --include="$TRIXIE_PACKAGES" \
      trixie "$root" http://deb.debian.org/debian > "$log" 2>&1 ||
      { tail -30 "$log" >&2; echo "trixie-rootfs: mmdebstrap failed" >&2; return 1; }
    trixie_rootfs_setup "$root"
    touch "$root/.complete"
  fi
  echo "$root"
}

# The machine's git rule (every github.com address read from /opt/swift-packages) inside too.
trixie_rootfs_setup() {
  local root=$1
  cat > "$root/etc/gitconfig" <<'GIT'
[url "/opt/swift-packages/"]
	insteadOf = https://github.com/
[safe]
	directory = *
GIT
  mkdir -p "$root/src" "$root/opt/swift-packages"
}

# unmount_below DIR: what an mmdebstrap killed mid-run left mounted in a root under DIR (its
# /dev/pts, /dev/shm, /sys), deepest first, so that the unfinished root can be removed
unmount_below() {
  local dir; dir=$(cd "$1" 2>/dev/null && pwd) || return 0
  awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while read -r target; do
    umount -l "$target" 2>/dev/null || true
  done
}

# mmdebstrap and rsync, and for arm64 qemu-user with binfmt_misc (F flag: no copy inside the root)
trixie_host_packages() {
  local arch=$1 p missing=()
  local pkgs=(mmdebstrap rsync)
  [ "$arch" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ] && pkgs+=(qemu-user-static binfmt-support arch-test)
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    [ "${VM_NO_INSTALL:-0}" = 1 ] && { echo "trixie-rootfs: missing ${missing[*]} and VM_NO_INSTALL=1" >&2; return 1; }
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
  fi
  if [ "$arch" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
    mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    [ -f /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
    grep -q enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 || { echo "trixie-rootfs: qemu-aarch64 binfmt not enabled" >&2; return 1; }
  fi
}

# trixie_chroot ROOT CACHE SCRIPT: the bash SCRIPT in ROOT as root, CACHE at /cache, root's home
# /root from CACHE/home (SwiftPM's caches and fingerprints stay with the build they belong
# to), git's rules from /cache/deps/gitconfig, the mirror read-only; the mounts go when it ends.
trixie_chroot() {
  local root=$1 cache=$2; shift 2
  unshare --mount --propagation private bash -c '
    set -e; root=$1 cache=$2; shift 2
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"; mount --rbind /sys "$root/sys"
    mount -t tmpfs tmpfs "$root/tmp"
    mkdir -p "$root/cache" "$cache/home"; mount --bind "$cache" "$root/cache"; mount --bind "$cache/home" "$root/root"
    mount --bind -o ro "${SWIFT_PACKAGE_MIRROR:-/opt/swift-packages}" "$root/opt/swift-packages"
    exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
      LANG=C.UTF-8 TERM=dumb GIT_CONFIG_GLOBAL=/cache/deps/gitconfig /bin/bash -c "$1"' trixie-chroot "$root" "$cache" "$1"
}

# trixie_sync_source CACHE: the working tree's tracked and new files copied to CACHE/src, mtimes
# kept, so that the .build cached beside them rebuilds only what changed.
trixie_sync_source() {
  local cache=$1
  mkdir -p "$cache/src"
  (cd "$REPO" && git ls-files -co --exclude-standard) | sort > "$cache/files.new"
  rsync -a --files-from="$cache/files.new" "$REPO/" "$cache/src/"
  # what left the tree since the last copy leaves the copy too (--files-from never deletes;
  # files the builds write there, such as build-deb.sh's generated version, stay)
  [ -f "$cache/files" ] && comm -23 "$cache/files" "$cache/files.new" | (cd "$cache/src" && tr '\n' '\0' | xargs -0 -r rm -f)
  mv "$cache/files.new" "$cache/files"
  # adapted dependencies made anew (scripts/trixie-deps.sh): their tags moved, so SwiftPM's pins
  # and checkouts of the old ones go
  if [ "$(cat "$cache/src/.build/deps-key" 2>/dev/null)" != "$(cat "$cache/deps/key")" ]; then
    rm -rf "$cache/src/Package.resolved" "$cache/src/.build/checkouts" "$cache/src/.build/repositories" \
      "$cache/src/.build/workspace-state.json" "$cache/home"
    mkdir -p "$cache/src/.build"; cp "$cache/deps/key" "$cache/src/.build/deps-key"
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  trixie_rootfs "${1:?usage: scripts/trixie-rootfs.sh ARCH}"
fi
