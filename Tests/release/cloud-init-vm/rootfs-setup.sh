#!/usr/bin/env bash
# usage: cloud-init-vm/rootfs-setup.sh ROOT KDIR KVER
# After ../../system-vm/rootfs-setup.sh: turns its disk into one laid out as Raspberry Pi OS
# Lite (trixie) is for cloud-init: the boot partition (label bootfs) at /boot/firmware,
# NetworkManager under netplan, cloud-init's NoCloud datasource seeded from /boot/firmware,
# and the host name the image ships with. Then the checks of ../guest/cloud-init-checks.sh.
# CARD_MODULES (environment): the kernel modules the card's file system needs.
set -euo pipefail
ROOT=$1 KDIR=$2 KV=$3
M=lib/modules/$KV

# vfat and its code pages, with their dependencies
for m in ${CARD_MODULES:?}; do
  modprobe -d "$KDIR" -S "$KV" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r f; do
  rel=${f#"$KDIR"/}
  mkdir -p "$ROOT/$(dirname "$rel")"; cp "$f" "$ROOT/$rel"
done
depmod -b "$ROOT" "$KV"

# The boot partition, where Imager writes user-data, network-config and meta-data, mounted as
# Raspberry Pi OS mounts it (it names the partition by PARTUUID; the label is the same disk)
mkdir -p "$ROOT/boot/firmware"
echo 'LABEL=bootfs  /boot/firmware  vfat  defaults  0 2' >> "$ROOT/etc/fstab"
echo raspberrypi > "$ROOT/etc/hostname"
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\traspberrypi\n' > "$ROOT/etc/hosts"

# NetworkManager manages every device, as netplan's global renderer says (Raspberry Pi OS's
# 00-network-manager-all.yaml); the system VM's static systemd-networkd set-up goes
rm -f "$ROOT/etc/systemd/network/10-vm.network"
chroot "$ROOT" systemctl disable systemd-networkd.service systemd-networkd.socket > /dev/null 2>&1 || true
install -d "$ROOT/lib/netplan"
install -m 0600 /dev/stdin "$ROOT/lib/netplan/00-network-manager-all.yaml" <<'YAML'
network:
  version: 2
  renderer: NetworkManager
YAML

# cloud-init as Raspberry Pi OS configures it (99_raspberry-pi.cfg of pi-gen's
# stage2/04-cloud-init, now in its rpi-cloud-init-mods package): NoCloud, seeded from the
# boot partition's files; SSH host keys left to the image's own service
install -m 0644 /dev/stdin "$ROOT/etc/cloud/cloud.cfg.d/99_raspberry-pi.cfg" <<'CFG'
datasource_list: [ NoCloud, None ]
datasource:
  NoCloud:
    seedfrom: file:///boot/firmware
ssh:
  emit_keys_to_console: false
no_ssh_fingerprints: true
ssh_deletekeys: false
ssh_genkeytypes: []
CFG
# The VM's own: its root is a fixed-size image on /dev/vda, not a card's partition to grow
install -m 0644 /dev/stdin "$ROOT/etc/cloud/cloud.cfg.d/98_vm.cfg" <<'CFG'
growpart:
  mode: "off"
resize_rootfs: false
CFG

# The stand-in for raspi-config, when the test gives one (the share's raspi-config), in place
# before cloud-init's runcmd
install -m 0755 /dev/stdin "$ROOT/usr/local/sbin/vm-raspi-config" <<'SH'
#!/bin/sh
if [ -f /mnt/share/raspi-config ]; then install -m 0755 /mnt/share/raspi-config /usr/bin/raspi-config; fi
SH
cat > "$ROOT/etc/systemd/system/vm-raspi-config.service" <<'UNIT'
[Unit]
Description=The test's stand-in for raspi-config (cloud-init VM test)
RequiresMountsFor=/mnt/share
Before=cloud-config.service cloud-final.service
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/vm-raspi-config
[Install]
WantedBy=multi-user.target
UNIT
chroot "$ROOT" systemctl enable vm-raspi-config.service
mkdir -p "$ROOT/etc/systemd/system/vm-checks.service.d"
printf '[Service]\nExecStart=\nExecStart=/bin/bash /mnt/share/cloud-init-checks.sh\n' \
  > "$ROOT/etc/systemd/system/vm-checks.service.d/cloud-init.conf"

# Debian's archive is not a source: apt sees the RoundClock repository only
rm -rf "$ROOT/etc/apt/sources.list" "$ROOT"/etc/apt/sources.list.d/* "$ROOT"/var/lib/apt/lists/*
