#!/usr/bin/env bash
# usage: image/setup-root.sh ROOT DISK_ID
#        image/setup-root.sh --fstab ROOT DISK_ID
# Turns the trixie arm64 tree ROOT (scripts/image's cached mmdebstrap result, a fresh copy
# each build) into the SD-card image's root (docs/image.md). Runs on the host; the arm64
# commands run in ROOT by chroot under qemu-user, with /proc, /sys and /dev mounted in ROOT
# (scripts/image mounts them in a namespace of its own). DISK_ID is the image's MBR disk
# identifier (8 hex digits): the partitions are PARTUUID=DISK_ID-01 (boot) and -02 (root).
# --fstab writes /etc/fstab only: mmdebstrap's setup hook, so that the initramfs the kernel's
# package makes knows the root's file system (its fsck).
set -euo pipefail
FSTAB_ONLY=0
[ "$1" = --fstab ] && { FSTAB_ONLY=1; shift; }
ROOT=$1 DISK_ID=$2
# ---- fstab ----
# Root: ext4 checked at every boot (pass 1; fsck.repair=yes on the kernel's command line
# repairs what the journal did not); the boot partition mounted only while used
# (automount, unmounted after 30 s idle), so a power cut rarely finds it dirty.
write_fstab() {
  mkdir -p "$ROOT/etc"
  cat > "$ROOT/etc/fstab" <<FSTAB
# <file system>         <mount point>   <type>  <options>                                 <dump> <pass>
PARTUUID=$DISK_ID-02  /               ext4    defaults,noatime,errors=remount-ro          0      1
PARTUUID=$DISK_ID-01  /boot/firmware  vfat    defaults,noatime,umask=0077,noauto,x-systemd.automount,x-systemd.idle-timeout=30s  0  2
FSTAB
}
# ---- end of fstab ----
[ "$FSTAB_ONLY" = 1 ] && { write_fstab; exit 0; }
HERE=$(cd "$(dirname "$0")" && pwd)
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

# the files of image/rootfs, with their modes (git keeps only the executable bit)
cp -r --no-preserve=ownership "$HERE/rootfs/." "$ROOT/"
find "$HERE/rootfs" -type f -printf '%P\n' | while read -r f; do
  if [ -x "$HERE/rootfs/$f" ]; then chmod 0755 "$ROOT/$f"; else chmod 0644 "$ROOT/$f"; fi
done
# deb822 sources only (image/rootfs/etc/apt/sources.list.d/debian.sources)
rm -f "$ROOT/etc/apt/sources.list"

echo roundclock > "$ROOT/etc/hostname"
# the own name comes from libnss-myhostname, so a renamed clock needs no line here
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$ROOT/etc/hosts"

write_fstab
mkdir -p "$ROOT/boot/firmware"

# raspi-firmware's kernel hook writes config.txt and cmdline.txt from these, and copies the
# kernel, initramfs and device trees to /boot/firmware (run again below)
sed -i -e "s|^#ROOTPART=.*|ROOTPART=PARTUUID=$DISK_ID-02|" -e 's|^#CMA=64M|CMA=0|' \
  -e 's|^#CONSOLES=.*|CONSOLES="tty1 ttyS1,115200"|' "$ROOT/etc/default/raspi-firmware"
grep -q "^ROOTPART=PARTUUID=$DISK_ID-02" "$ROOT/etc/default/raspi-firmware" ||
  { echo "setup-root: /etc/default/raspi-firmware has no #ROOTPART line to set" >&2; exit 1; }
echo "quiet" > "$ROOT/etc/default/raspi-extra-cmdline"
in_root env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware
for f in config.txt cmdline.txt start4.elf bootcode.bin; do
  [ -s "$ROOT/boot/firmware/$f" ] || { echo "setup-root: /boot/firmware/$f is missing" >&2; exit 1; }
done
ls "$ROOT"/boot/firmware/vmlinuz-* "$ROOT"/boot/firmware/initrd.img-* "$ROOT"/boot/firmware/bcm2711-rpi-4-b.dtb > /dev/null

# services: SSH off (the card's ssh file turns it on), the image's own units on
in_root systemctl disable ssh.service
in_root systemctl enable roundclock-growroot.service roundclock-sshswitch.service roundclock-userconf.service \
  NetworkManager.service avahi-daemon.service systemd-timesyncd.service unattended-upgrades.service
# the host keys are made per card (ssh.service.d/50-roundclock-image.conf)
rm -f "$ROOT"/etc/ssh/ssh_host_*
# no login but the card's userconf.txt
in_root passwd -l root
# each card gets its own machine id at its first boot; an empty file is no "first boot" for
# systemd, so no preset-all enables what the image disabled
: > "$ROOT/etc/machine-id"
rm -f "$ROOT/var/lib/dbus/machine-id"
rm -rf "$ROOT"/var/log/*.log "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* \
  "$ROOT"/var/cache/debconf/*-old "$ROOT"/tmp/* "$ROOT"/var/tmp/*
