#!/usr/bin/env bash
# usage: rootfs-setup.sh ROOT KDIR KVER
# Turns the mmdebstrap tree ROOT into the system VM's disk: the kernel modules the test needs
# (from the unpacked linux-image KDIR, gpio-sim in extra/), the share mount, the simulators'
# set-up at every boot, a synchronized-clock marker, and the unit that runs the checks.
# Nothing of RoundClock is here: the package is installed by the checks.
set -euo pipefail
ROOT=$1 KDIR=$2 KV=$3
M=lib/modules/$KV

# modules: what the VM loads, with their dependencies, then depmod (snd-aloop, ALSA's
# loopback card, for the speaker's check)
mkdir -p "$ROOT/$M"
for f in modules.order modules.builtin modules.builtin.modinfo; do cp "$KDIR/$M/$f" "$ROOT/$M/"; done
for m in i2c-dev i2c-stub i2c-piix4 gpio-sim configfs 9p 9pnet_virtio virtio_blk ext4 virtio_pci virtio_net snd-aloop; do
  modprobe -d "$KDIR" -S "$KV" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r f; do
  rel=${f#"$KDIR"/}
  mkdir -p "$ROOT/$(dirname "$rel")"; cp "$f" "$ROOT/$rel"
done
depmod -b "$ROOT" "$KV"

echo roundclock-vm > "$ROOT/etc/hostname"
cat > "$ROOT/etc/fstab" <<'FSTAB'
/dev/vda  /           ext4  rw,errors=remount-ro  0 1
share     /mnt/share  9p    trans=virtio,version=9p2000.L,msize=512000,nofail  0 0
FSTAB
mkdir -p "$ROOT/mnt/share" "$ROOT/var/log/journal"
# qemu's user-mode link (run-system-vm.sh forwards the host's port to the gateway's 80): the
# address qemu's DHCP would give, set statically by systemd-networkd (no wait for a lease)
mkdir -p "$ROOT/etc/systemd/network"
printf '[Match]\nName=en* eth*\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\n' > "$ROOT/etc/systemd/network/10-vm.network"
chroot "$ROOT" systemctl enable systemd-networkd.service

# The Pi's layout: the I2C panels on /dev/i2c-1 (the PC's own SMBus, i2c-piix4, is bus 0, so
# i2c-stub is 1) and the button and buzzer lines named GPIO17, GPIO27, GPIO22, GPIO18.
install -m 0755 /dev/stdin "$ROOT/usr/local/sbin/vm-sim-setup" <<'SIM'
#!/bin/bash
set -eu
modprobe i2c-piix4 || true
modprobe i2c-dev
modprobe i2c-stub chip_addr=0x70,0x71,0x72
BUS=$(i2cdetect -l | awk -F'\t' '/SMBus stub driver/ { sub("i2c-", "", $1); print $1; exit }')
modprobe configfs 2>/dev/null || true
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
modprobe gpio-sim
C=/sys/kernel/config/gpio-sim/roundclock
mkdir "$C" "$C/bank0"
echo 28 > "$C/bank0/num_lines"; echo vm-pi-header > "$C/bank0/label"
for n in 17 27 22 18; do mkdir "$C/bank0/line$n"; echo "GPIO$n" > "$C/bank0/line$n/name"; done
echo 1 > "$C/live"
SYS=/sys/devices/platform/$(cat "$C/dev_name")/$(cat "$C/bank0/chip_name")
for n in 17 27 22; do echo pull-up > "$SYS/sim_gpio$n/pull"; done   # buttons released
udevadm settle || true
printf 'BUS=%s\nSYS=%s\n' "$BUS" "$SYS" > /run/vm-sim.env
SIM
cat > "$ROOT/etc/systemd/system/vm-sim.service" <<'UNIT'
[Unit]
Description=i2c-stub and gpio-sim laid out like a Raspberry Pi (system VM test)
DefaultDependencies=no
After=systemd-udevd.service systemd-modules-load.service
Before=roundclock.service sysinit.target
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/vm-sim-setup
[Install]
WantedBy=sysinit.target
UNIT
# systemd-timesyncd's marker (docs/service.md): the VM's clock is the host's, so it is right.
echo 'f /run/systemd/timesync/synchronized 0644 root root -' > "$ROOT/etc/tmpfiles.d/vm-timesync.conf"
cat > "$ROOT/etc/systemd/system/vm-checks.service" <<'UNIT'
[Unit]
Description=RoundClock package checks (system VM test)
After=multi-user.target vm-sim.service
RequiresMountsFor=/mnt/share
[Service]
Type=simple
ExecStart=/bin/bash /mnt/share/system-checks.sh
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
UNIT
chroot "$ROOT" systemctl enable vm-sim.service vm-checks.service
# nothing else scheduled in the VM (apt's timers would compete for the emulated CPU)
for t in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer; do
  chroot "$ROOT" systemctl mask "$t" >/dev/null 2>&1 || true
done
passwd -R "$ROOT" -d root
