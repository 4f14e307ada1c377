#!/usr/bin/env bash
# usage: mkinitramfs.sh MODULE-ROOT KVER OUT.cpio.gz
#   MODULE-ROOT contains lib/modules/KVER (the unpacked linux-image package).
# A ~1.5 MB initramfs: static busybox, the virtio/9p modules and guest/init.
# INITRAMFS_MODULES and INITRAMFS_INIT (environment) replace the module list and the init
# script (../system-vm boots a disk with them).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 MODULE-ROOT KVER OUT.cpio.gz" >&2; exit 2; }
MROOT=$1 KV=$2 OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || { echo "mkinitramfs: $BUSYBOX missing (apt-get install busybox-static)" >&2; exit 1; }
if ldd "$BUSYBOX" >/dev/null 2>&1; then
  echo "mkinitramfs: $BUSYBOX is dynamically linked; the initramfs needs busybox-static" >&2; exit 1
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/initramfs.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W"/{bin,proc,sys,dev,newroot,modules}
cp "$BUSYBOX" "$W/bin/busybox"
MODS=${INITRAMFS_MODULES:-"virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p"}
for m in $MODS; do
  f=$(modinfo -b "$MROOT" -k "$KV" -n "$m" 2>/dev/null || true)
  case "$f" in
    ""|"(builtin)"|builtin*) ;;                         # built in or not needed
    *.ko.xz)  xz -dc "$f" > "$W/modules/$m.ko" ;;
    *.ko.zst) zstd -qdc "$f" > "$W/modules/$m.ko" ;;
    *.ko.gz)  gzip -dc "$f" > "$W/modules/$m.ko" ;;
    *)        cp "$f" "$W/modules/$m.ko" ;;
  esac
done
[[ " $MODS " != *" 9p "* ]] || [ -f "$W/modules/9p.ko" ] || modinfo -b "$MROOT" -k "$KV" 9p >/dev/null 2>&1 ||
  { echo "mkinitramfs: no 9p module for $KV under $MROOT" >&2; exit 1; }
echo "$MODS" > "$W/modules/order"
cp "${INITRAMFS_INIT:-$HERE/guest/init}" "$W/init"
chmod +x "$W/init"
(cd "$W" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
