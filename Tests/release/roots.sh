# Sourced by check-packages.sh: Debian trixie root filesystems made once by mmdebstrap, kept as
# sealed tarballs (cache_seal of ../kernel-vm/cache-lib.sh) named by a hash of their inputs,
# and unpacked afresh for each run, so every run installs into an untouched root.
# Needs from the caller: REPO, CACHE (the cache folder) and the function die.
. "$REPO/Tests/kernel-vm/cache-lib.sh"
. "$REPO/scripts/trixie-rootfs.sh"   # trixie_chroot, trixie_host_packages

MIRROR=http://deb.debian.org/debian

# pristine_root NAME ARCH [PACKAGES]: the tarball of a trixie root (mmdebstrap --variant=apt,
# plus PACKAGES, comma-separated), made if missing or damaged; prints its path. Its key hashes
# the architecture, the packages, mmdebstrap's version and this function.
pristine_root() {
  local name=$1 arch=$2 packages=${3:-} key tar log
  key=$( { echo "$arch $packages $MIRROR"; mmdebstrap --version; declare -f pristine_root; } |
    sha256sum | cut -c1-12)
  tar=$CACHE/$name-$arch-$key.tar
  if ! cache_reuse "$tar" "the $name root ($arch)" >&2; then
    rm -f "$CACHE/$name-$arch-"*.tar "$CACHE/$name-$arch-"*.tar.sha256
    log=$CACHE/logs/mmdebstrap-$name-$arch.log
    echo "mmdebstrap trixie $arch ${packages:+--include=$packages }(log: $log)" >&2
    nice -n 10 mmdebstrap --variant=apt --architectures="$arch" ${packages:+--include="$packages"} \
      trixie "$tar.new.tar" "$MIRROR" > "$log" 2>&1 ||
      { tail -20 "$log" >&2; rm -f "$tar.new.tar"; die "mmdebstrap $name $arch failed (log: $log)"; }
    mv "$tar.new.tar" "$tar"
    cache_seal "$tar"
  fi
  echo "$tar"
}

# fresh_root TAR DIR: DIR emptied and TAR unpacked into it (owners and modes kept), with the
# mount points trixie_chroot binds.
fresh_root() {
  local tar=$1 dir=$2
  rm -rf "$dir"; mkdir -p "$dir"
  tar -xf "$tar" -C "$dir" --numeric-owner
  mkdir -p "$dir/cache" "$dir/opt/swift-packages"
}

# root_libc TAR: the upstream version of the libc6 package in a root's tarball (2.41 for
# 2.41-12), read from its dpkg status file.
root_libc() {
  tar -xOf "$1" ./var/lib/dpkg/status |
    awk '/^Package: /{p=$2} p=="libc6" && /^Version: /{v=$2} END {print v}' | sed 's/-[^-]*$//; s/^[0-9]*://'
}

# apt_state_in ARCH ROOT: apt's lists, package cache and downloaded packages kept from the
# last run (sealed) copied into the fresh ROOT, so that its `apt-get update` only checks the
# archive's InRelease and rebuilds nothing that did not change.
apt_state_in() {
  local state=$CACHE/apt-$1 root=$2
  cache_reuse "$state" "apt's state ($1)" || return 0
  cp -a "$state/lists/." "$root/var/lib/apt/lists/"
  cp -a "$state/cache/." "$root/var/cache/apt/"
}
# apt_state_out ARCH RUNDIR: what install.sh saved in RUNDIR/apt-state kept (sealed) for the
# next run.
apt_state_out() {
  local state=$CACHE/apt-$1
  [ -d "$2/apt-state/lists" ] || return 0
  rm -rf "$state" "$state.sha256"
  mv "$2/apt-state" "$state"
  cache_seal "$state"
}
