#!/usr/bin/env bash
# usage: rootfs-setup.sh ROOT KDIR KVER
# Turns the mmdebstrap tree ROOT (trixie arm64) into the arm64 system VM's disk: the kernel
# modules the guest loads (from the unpacked kernel KDIR, i2c-stub and gpio-sim in extra/),
# the share's mount, a static address on qemu's user-mode link, and the unit that runs
# guest-checks.sh from the share. Nothing of RoundClock is here: the checks install it.
set -euo pipefail
ROOT=$1 KDIR=$2 KV=$3
M=lib/modules/$KV

# the modules with their dependencies (ROOT's /lib is /usr/lib), then depmod
mkdir -p "$ROOT/$M"
for f in modules.order modules.builtin modules.builtin.modinfo; do cp "$KDIR/$M/$f" "$ROOT/$M/"; done
for m in i2c-dev i2c-stub gpio-sim configfs 9p 9pnet_virtio virtio_net virtio_blk ext4; do
  modprobe -d "$KDIR" -S "$KV" --show-depends "$m" || { echo "no module $m for $KV" >&2; exit 1; }
done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r f; do
  rel=${f#"$KDIR"/}
  mkdir -p "$ROOT/$(dirname "$rel")"; cp "$f" "$ROOT/$rel"
done
depmod -b "$ROOT" "$KV"

echo roundclock-arm64 > "$ROOT/etc/hostname"
cat > "$ROOT/etc/fstab" <<'FSTAB'
/dev/vda  /           ext4  rw,errors=remount-ro  0 1
share     /mnt/share  9p    trans=virtio,version=9p2000.L,msize=512000,nofail  0 0
FSTAB
mkdir -p "$ROOT/mnt/share"
# qemu's user-mode link, where the host's forwarded port reaches the gateway's port 80
mkdir -p "$ROOT/etc/systemd/network"
printf '[Match]\nName=en* eth*\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\n' > "$ROOT/etc/systemd/network/10-vm.network"
cat > "$ROOT/etc/systemd/system/vm-checks.service" <<'UNIT'
[Unit]
Description=RoundClock arm64 package checks
After=multi-user.target
RequiresMountsFor=/mnt/share
[Service]
Type=simple
ExecStart=/bin/bash /mnt/share/guest-checks.sh
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
UNIT
chroot "$ROOT" systemctl enable systemd-networkd.service vm-checks.service
# nothing else scheduled in the guest: timers would compete for the emulated CPUs
for t in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer; do
  chroot "$ROOT" systemctl mask "$t" > /dev/null 2>&1 || true
done
passwd -R "$ROOT" -d root
