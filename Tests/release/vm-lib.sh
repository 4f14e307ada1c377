# Sourced by apt-repo-vm.sh and cloud-init-vm.sh: the release VMs' host side. Needs the
# function die, and LOGS; vm_initramfs also host-lib.sh and kernel-prep.sh's KDIR and KV.

# vm_make_image ROOT IMAGE SIZE: the ext4 image of the tree ROOT (which goes), sealed
vm_make_image() {
  nice -n 19 mke2fs -q -t ext4 -L rootfs -d "$1" "$2.tmp" "$3" || die "mke2fs -d $1 failed"
  mv "$2.tmp" "$2"
  rm -rf "$1"
  cache_seal "$2"
}

# vm_initramfs DIR NAME: the system VM's initramfs (INITRD), cached in DIR; with
# PREPARE_ONLY=1 the run ends here, NAME saying what it prepared
vm_initramfs() {
  stage initramfs
  . "$(dirname "${BASH_SOURCE[0]}")/../system-vm/initramfs.sh"
  system_vm_initramfs "$1"
  if [ "${PREPARE_ONLY:-0}" = 1 ]; then
    stage done
    SUMMARY_DONE=1
    echo "$2: prepared (kernel $KV, root filesystem, initramfs):$TIMINGS total $(( $(date +%s) - START ))s"
    exit 0
  fi
}

# vm_one_deb DIR GLOB: the highest version of GLOB in DIR (dies if there is none)
vm_one_deb() {
  local f; f=$(ls "$1"/$2 2>/dev/null | sort -V | tail -1)
  [ -n "$f" ] || die "no $2 in $1"
  echo "$f"
}

# vm_check_depends PACKAGE-LIST DEB...: every Depends of the DEBs, without versions or
# alternatives, is a line of PACKAGE-LIST (the root filesystem's packages), since the guest
# has no other apt source than the RoundClock repository
vm_check_depends() {
  local list=$1 dep; shift
  for dep in $(for deb in "$@"; do dpkg-deb -f "$deb" Depends; echo ,; done |
               tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/ //g' | grep -v '^$' | sort -u); do
    grep -qx "$dep" "$list" ||
      die "the packages depend on $dep, which the root filesystem lacks: add it to ROOTFS_PACKAGES in $0"
  done
}

# vm_throwaway_key GNUPGHOME NAME LOG: a new signing key (ed25519, no passphrase) in GNUPGHOME
vm_throwaway_key() {
  mkdir -m 0700 "$1"
  GNUPGHOME=$1 gpg --batch --passphrase '' --quick-gen-key "$2" ed25519 sign never >> "$3" 2>&1 ||
    { cat "$3" >&2; die "gpg could not make a key"; }
}

# vm_serve DIR LOG: python3's HTTP server for DIR on 127.0.0.1 at a port the kernel picks
# (PORT; HTTPD its process), logging its requests to LOG; vm_stop_serving stops it and the
# gpg agents of the throwaway keys' homes under WORK
HTTPD=""
vm_serve() {
  mkdir -p "$1"
  : > "$2"   # now, not in the server's fork: the port is read from this file next
  python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$1" > "$2" 2>&1 &
  HTTPD=$!
  PORT=""
  for _ in $(seq 100); do PORT=$(sed -n 's/^Serving HTTP on .* port \([0-9]*\) .*/\1/p' "$2"); [ -n "$PORT" ] && break; sleep 0.1; done
  [ -n "$PORT" ] || die "python3 -m http.server did not start (see $2)"
}
vm_stop_serving() {
  local home
  if [ -n "$HTTPD" ]; then kill "$HTTPD" 2>/dev/null || true; fi
  for home in "${WORK:-/nonexistent}"/gnupg*; do
    if [ -d "$home" ]; then GNUPGHOME=$home gpgconf --kill all 2>/dev/null || true; fi
  done
}

# vm_watch PID CONSOLE [HOOK]: waits for qemu (PID), calling HOOK every half second; its
# status is qemu's, or 125 if the console stayed silent for VM_STALL seconds (default 240:
# the VM froze, as TCG now and then does: see Tests/kernel-vm/boot-vm.sh) and qemu was stopped
vm_watch() {
  local qemu=$1 console=$2 hook=${3:-true} size=-1 now quiet=0
  while kill -0 "$qemu" 2>/dev/null; do
    "$hook"
    sleep 0.5
    now=$(stat -c %s "$console" 2>/dev/null || echo 0)
    if [ "$now" = "$size" ]; then quiet=$((quiet + 1)); else quiet=0 size=$now; fi
    if [ $quiet -ge $(( ${VM_STALL:-240} * 2 )) ]; then
      echo "nothing on the console for ${VM_STALL:-240} s: the VM froze; stopping it"
      kill "$qemu"; wait "$qemu"
      return 125
    fi
  done
  wait "$qemu"
}
