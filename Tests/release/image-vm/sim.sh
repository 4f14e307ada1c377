#!/bin/bash
# The image VM's early guest step (vm-sim.service, which image-vm.sh writes into its copy of the
# image, never into the release's): before the card is applied and before the clock starts,
# i2c-stub and gpio-sim laid out like a Pi (panels 0x70-0x72 on /dev/i2c-1, lines named
# GPIO17/27/22/18, buttons released), from the share's modules built for the image's kernel.
# The VM's clock is the host's (qemu's RTC), so it is marked synchronized as systemd-timesyncd
# marks it: a round running at a power cut resumes by wall time, as on a Pi with NTP.
set -u
S=/run/vm-share
exec >> "$S/sim.log" 2>&1
echo "[$(cut -d' ' -f1 /proc/uptime)s] sim: kernel $(uname -r)"
modprobe i2c-dev
modprobe configfs
insmod "$S/modules/i2c-stub.ko" chip_addr=0x70,0x71,0x72 || echo "sim: i2c-stub failed"
insmod "$S/modules/gpio-sim.ko" || echo "sim: gpio-sim failed"
. "$S/pi-gpio-sim.sh"
SYS=$(pi_gpio_sim)
echo "$SYS" > /run/vm-gpio-sim
mkdir -p /run/systemd/timesync && touch /run/systemd/timesync/synchronized
udevadm settle -t 30 || true
echo "[$(cut -d' ' -f1 /proc/uptime)s] sim: i2c $(ls /dev/i2c-* | tr '\n' ' ') gpio-sim $SYS"
