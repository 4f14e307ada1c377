# Sourced by run-system-vm.sh and ../release/apt-repo-vm.sh: system_vm_initramfs DIR makes
# (once per modules, init and busybox) the initramfs that loads virtio and ext4, mounts
# /dev/vda and hands over to systemd, cached and sealed in DIR; sets INITRD. Needs KDIR, KV
# (kernel-prep.sh), KVM_DIR and cache-lib.sh's cache_reuse and cache_seal.
system_vm_initramfs() {
  local dir=$1 init mods key
  init=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/guest/init
  mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk crc16 mbcache jbd2 crc32c_generic ext4"
  INITRD=$dir/initrd-$KV.gz
  key=$( { echo "$mods"; cat "$init" "$KVM_DIR/mkinitramfs.sh" /bin/busybox; } | md5sum | cut -d' ' -f1)
  if [ "$(cat "$INITRD.key" 2>/dev/null)" != "$key" ] || ! cache_reuse "$INITRD" "the initramfs"; then
    INITRAMFS_MODULES=$mods INITRAMFS_INIT=$init "$KVM_DIR/mkinitramfs.sh" "$KDIR" "$KV" "$INITRD"
    cache_seal "$INITRD"
    echo "$key" > "$INITRD.key"
  fi
}
