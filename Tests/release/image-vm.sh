#!/usr/bin/env bash
# The SD-card image booted: qemu-system-aarch64 (-M virt, TCG, -cpu cortex-a72) runs the
# image's own Debian kernel and initramfs, with the image (a copy, grown to 4 GiB) as its
# virtio disk and a card file written onto its boot partition with mtools. It checks the first
# boot (the card applied, SSH switched on by the card's ssh file, the clock READY on i2c-stub,
# a gpio-sim button press, the gateway from the host, the root grown), a second boot (nothing
# applied again), an apt upgrade from a repository on the host in the middle of a round, then
# power cuts: qemu killed (SIGKILL) at random instants during boot, the card's apply, a round
# and an apt upgrade; after each, e2fsck of the root from the host, and the next boot resumes
# the round. A release check (docs/image.md, Tests/release/README.md "image-vm.sh").
#
# usage: Tests/release/image-vm.sh --image FILE.img.xz|FILE.img [--debs DIR] [--power-cuts N]
#                                  [--seed S] [--time-budget SECONDS]
#   --debs DIR          the release's arm64 packages (the image's): the upgrade's repository
#                       repacks them at higher versions; without it the upgrade checks FAIL
#   --power-cuts N      how many power cuts (default 30; 0: the boot checks only)
#   --seed S            the random instants' seed (printed; the same seed, the same instants)
#   --time-budget S     start no power cut after S seconds of the whole run (default: none)
# Output: "PASS|FAIL name text" per check and per power cut, the boot times, last
# "image-vm: N passed, M failed". Exit status 0 only if nothing failed.
# Environment: VM_CACHE (default <repo>/.build-vm: the kernel and modules cache it shares with
# arm64-system-vm.sh, logs in logs/image-vm-*, the run in image-vm/), VM_SMP (default 2),
# VM_MEM (MiB, default 1024), VM_BOOT_TIMEOUT (s, default 900), VM_NO_INSTALL=1.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
GUEST=$HERE/arm64-vm
die() { echo "image-vm: error: $*" >&2; exit 2; }

IMAGE_XZ="" DEBS="" CUTS=30 SEED="" BUDGET=0
while [ $# -gt 0 ]; do
  case $1 in
    --image) IMAGE_XZ=$(readlink -f "${2:?--image needs a file}"); shift 2 ;;
    --debs) DEBS=$(readlink -f "${2:?--debs needs a directory}"); shift 2 ;;
    --power-cuts) CUTS=${2:?--power-cuts needs a number}; shift 2 ;;
    --seed) SEED=${2:?--seed needs a number}; shift 2 ;;
    --time-budget) BUDGET=${2:?--time-budget needs seconds}; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[ -f "$IMAGE_XZ" ] || die "usage: $0 --image FILE.img.xz (see --help)"
[ -n "$SEED" ] || SEED=$(( $(od -An -N2 -tu2 /dev/urandom) ))
RANDOM=$SEED
# rand_between LOW HIGH: a whole number from LOW to HIGH, from the seeded sequence
rand_between() { echo $(( $1 + RANDOM % ($2 - $1 + 1) )); }

CACHE=${VM_CACHE:-$REPO/.build-vm}
mkdir -p "$CACHE/logs" "$CACHE/arm64-vm" "$CACHE/image-vm"
CACHE=$(cd "$CACHE" && pwd)
LOGS=$CACHE/logs AVM=$CACHE/arm64-vm RUN=$CACHE/image-vm
DETAILS=$LOGS/image-vm-details.log CONSOLE=$LOGS/image-vm-console.log
VM_LABEL=image-vm PREP_FAILED_SUMMARY="image-vm: 0 passed, 1 failed"
. "$REPO/Tests/kernel-vm/host-lib.sh"
. "$REPO/scripts/trixie-rootfs.sh"
NICE=(nice -n 19)
: > "$DETAILS"; : > "$CONSOLE"
detail() { echo "[$(date +%T)] $*" >> "$DETAILS"; }
# host_wait SECONDS COMMAND...: until COMMAND succeeds on the host, every 2 s; 1 at the deadline.
host_wait() { local end=$(( $(date +%s) + $1 )); shift; until "$@"; do [ "$(date +%s)" -gt "$end" ] && return 1; sleep 2; done; }

PASSED=0 FAILED=0
result() {
  echo "$1 $2 $3"; detail "$1 $2 $3"
  if [ "$1" = PASS ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
  PREP_FAILED_SUMMARY="image-vm: $PASSED passed, $((FAILED + 1)) failed"   # if the run stops here
}

QEMU="" HTTP=""
cleanup() {
  [ -n "$QEMU" ] && kill -9 "$QEMU" 2>/dev/null
  [ -n "$HTTP" ] && kill "$HTTP" 2>/dev/null
  true
}
trap 'cleanup; on_exit' EXIT

stage install
install_host_packages qemu-system-arm qemu-utils mtools dosfstools fdisk e2fsprogs xz-utils curl gnupg apt-utils \
  openssh-client python3 kmod mmdebstrap
trixie_host_packages amd64

# ---- 1. the image, unpacked; its partitions, kernel and initramfs --------------------------------
stage image
DISK=$RUN/disk.img SHARE=$RUN/share
rm -rf "$RUN"; mkdir -p "$RUN" "$SHARE/cmd" "$SHARE/modules"
case $IMAGE_XZ in
  *.xz) xz -dc "$IMAGE_XZ" | dd of="$DISK" bs=1M iflag=fullblock conv=sparse status=none ;;
  *) cp --sparse=always "$IMAGE_XZ" "$DISK" ;;   # an uncompressed image, as scripts/image writes it before xz
esac
part_field() { sfdisk -d "$DISK" | sed -n "s|^$DISK$1 *: .*$2= *\([0-9a-fx]*\).*|\1|p"; }
BOOT_OFF=$(( $(part_field 1 start) * 512 )) ROOT_OFF=$(( $(part_field 2 start) * 512 ))
ROOT_SIZE0=$(( $(part_field 2 size) * 512 ))
FAT=$DISK@@$BOOT_OFF EXT="$DISK?offset=$ROOT_OFF"
KFILE=$(mdir -i "$FAT" -b ::/ | sed -n 's|^::/\(vmlinuz-.*\)|\1|p' | sort -V | tail -1)
KV=${KFILE#vmlinuz-}
[ -n "$KV" ] || die "no vmlinuz-* on the image's boot partition"
mcopy -n -i "$FAT" "::/vmlinuz-$KV" "$RUN/vmlinuz"
mcopy -n -i "$FAT" "::/initrd.img-$KV" "$RUN/initrd.img"
mcopy -n -i "$FAT" ::/cmdline.txt "$RUN/cmdline.txt"
mcopy -n -i "$FAT" ::/config.txt "$RUN/config.txt"
debugfs -R "cat /var/lib/dpkg/status" "$EXT" 2>/dev/null > "$RUN/status"
pkg_version() { awk -v p="$1" '$0 == "Package: " p { on = 1 } on && /^Version: / { print $2; exit }' "$RUN/status"; }
HV=$(pkg_version "linux-image-$KV") IMAGE_VERSION=$(pkg_version roundclock)
GATEWAY_VERSION=$(pkg_version roundclock-gateway)
echo "image $(basename "$IMAGE_XZ"): kernel $KV ($HV), roundclock $IMAGE_VERSION, roundclock-gateway ${GATEWAY_VERSION:-none}; seed $SEED"
detail "partitions: boot at $BOOT_OFF, root at $ROOT_OFF ($ROOT_SIZE0 bytes); cmdline: $(cat "$RUN/cmdline.txt")"

# the image as built, before the test changes anything
fat_ls=$(mdir -i "$FAT" -b ::/ | sed 's|^::/||' | tr '\n' ' ')
ssh_wanted=$(debugfs -R "ls -l /etc/systemd/system/multi-user.target.wants" "$EXT" 2>/dev/null | grep -c ' ssh.service' || true)
dtbs=$(echo "$fat_ls" | tr ' ' '\n' | grep -c '\.dtb$' || true)
why=""
grep -qx 'dtparam=i2c_arm=on' "$RUN/config.txt" || why+=" config.txt has no dtparam=i2c_arm=on;"
grep -q "kernel=vmlinuz-$KV" "$RUN/config.txt" || why+=" config.txt names no kernel=vmlinuz-$KV;"
grep -q "root=PARTUUID=" "$RUN/cmdline.txt" || why+=" cmdline.txt names no root=PARTUUID=;"
for f in roundclock.toml.example bootcode.bin start4.elf fixup4.dat bcm2711-rpi-4-b.dtb bcm2837-rpi-3-b.dtb \
         bcm2837-rpi-zero-2-w.dtb "initrd.img-$KV"; do
  case " $fat_ls " in *" $f "*) ;; *) why+=" no $f on the boot partition;" ;; esac
done
case " $fat_ls " in *" roundclock.toml "*) why+=" roundclock.toml on the boot partition (only the owner's is applied);" ;; esac
[ "$ssh_wanted" = 0 ] || why+=" ssh.service is enabled in the image;"
if [ -z "$why" ]; then
  result PASS image "boot partition: kernel $KV, initramfs, $dtbs device trees, the firmware, config.txt with dtparam=i2c_arm=on, roundclock.toml.example and no roundclock.toml; ssh.service not enabled"
else
  result FAIL image "$why"
fi

# ---- 2. i2c-stub and gpio-sim for the image's kernel (shared with arm64-system-vm.sh) ---------
[ -n "$HV" ] || die "the image's dpkg status names no linux-image-$KV"
A64VM_KERNEL_PACKAGE=linux-image-$KV A64VM_KERNEL_VERSION=$HV
. "$GUEST/kernel-modules.sh"
cp "$MODS/i2c-stub.ko" "$MODS/gpio-sim.ko" "$SHARE/modules/"
cp "$HERE/image-vm/sim.sh" "$HERE/image-vm/agent.sh" "$GUEST/pi-gpio-sim.sh" "$SHARE/"

# ---- 3. the test's copy: its two units, the card, grown to 4 GiB --------------------------------
stage card
# vm-sim.service (the share, the simulated chips) and vm-agent.service (runs the host's
# commands): written with debugfs into this copy only
U=$RUN/units; mkdir -p "$U"
cat > "$U/vm-sim.service" <<'UNIT'
[Unit]
Description=image VM: the share, i2c-stub and gpio-sim laid out like a Pi
DefaultDependencies=no
After=systemd-modules-load.service systemd-udevd.service
Wants=systemd-udevd.service
Before=sysinit.target roundclock-card.service roundclock.service roundclock-gateway.service
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'modprobe 9pnet_virtio; modprobe 9p; mkdir -p /run/vm-share; mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 share /run/vm-share && exec /bin/bash /run/vm-share/sim.sh'
[Install]
WantedBy=sysinit.target
UNIT
cat > "$U/vm-agent.service" <<'UNIT'
[Unit]
Description=image VM: the host's commands
DefaultDependencies=no
Requires=vm-sim.service
After=vm-sim.service
[Service]
ExecStart=/bin/bash /run/vm-share/agent.sh
[Install]
WantedBy=multi-user.target
UNIT
{
  echo "cd /etc/systemd/system"
  echo "write $U/vm-sim.service vm-sim.service"
  echo "write $U/vm-agent.service vm-agent.service"
  echo "mkdir sysinit.target.wants"
  echo "symlink /etc/systemd/system/sysinit.target.wants/vm-sim.service /etc/systemd/system/vm-sim.service"
  echo "symlink /etc/systemd/system/multi-user.target.wants/vm-agent.service /etc/systemd/system/vm-agent.service"
} > "$U/debugfs.cmds"
debugfs -w -f "$U/debugfs.cmds" "$EXT" >> "$DETAILS" 2>&1 || true
debugfs -R "stat /etc/systemd/system/sysinit.target.wants/vm-sim.service" "$EXT" 2>/dev/null | grep -q 'Type: symlink' ||
  die "debugfs could not add vm-sim.service to the copy"
# the card: the brief's example, SSH on, a login (userconf.txt as Raspberry Pi Imager writes it)
CARD_PIN=482913 CARD_HOST=gym-clock CARD_TZ=Europe/Berlin
write_card() {   # PROGRAM HOSTNAME: roundclock.toml onto the boot partition
  printf 'program = "%s"\n[remote]\npin = "%s"\n[system]\nhostname = "%s"\ntimezone = "%s"\n' \
    "$1" "$CARD_PIN" "$2" "$CARD_TZ" > "$RUN/roundclock.toml"
  mcopy -o -i "$FAT" "$RUN/roundclock.toml" ::/roundclock.toml
}
write_card boxing "$CARD_HOST"
CARD_SHA=$(sha256sum < "$RUN/roundclock.toml" | cut -d' ' -f1)
: > "$RUN/ssh"; mcopy -o -i "$FAT" "$RUN/ssh" ::/ssh
printf 'rc:%s\n' "$(openssl passwd -6 roundclock-vm)" > "$RUN/userconf.txt"
mcopy -o -i "$FAT" "$RUN/userconf.txt" ::/userconf.txt
qemu-img resize -q -f raw "$DISK" 4G
echo "card: program boxing, pin $CARD_PIN, hostname $CARD_HOST, timezone $CARD_TZ; ssh, userconf.txt; disk grown to 4 GiB"

# ---- the VM: start, wait, run commands in it, kill ----------------------------------------------
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port) SSHPORT=$(free_port) HTTPPORT=$(free_port)
# the image's command line with the virt machine's console in place of the Pi's (tty1 and ttyS1:
# a getty would wait for a ttyS1 that virt has not), and systemd's waits for devices and units
# stretched: under TCG on a busy host udev's coldplug
# takes minutes, past the 90 s after which systemd gives a device up
CMDLINE="$(tr -d '\n' < "$RUN/cmdline.txt" | sed 's/console=[^ ]*//g') console=ttyAMA0"
CMDLINE+=" systemd.default_device_timeout_sec=600 systemd.default_timeout_start_sec=600"
BOOTS=0 VM_T0=0
vm_start() {
  BOOTS=$((BOOTS + 1))
  rm -f "$SHARE/up"
  echo "==== boot $BOOTS $(date +%T)" >> "$CONSOLE"
  VM_T0=$(date +%s.%N)
  "${NICE[@]}" qemu-system-aarch64 -M virt -accel tcg -cpu cortex-a72 -m "${VM_MEM:-1024}" -smp "${VM_SMP:-2}" \
    -nographic -nodefaults -serial "file:$RUN/console.$BOOTS" -monitor none -no-reboot \
    -kernel "$RUN/vmlinuz" -initrd "$RUN/initrd.img" -append "$CMDLINE" \
    -drive "file=$DISK,format=raw,if=none,id=disk,cache=writeback" -device virtio-blk-pci,drive=disk \
    -fsdev "local,id=share,path=$SHARE,security_model=none" -device virtio-9p-pci,fsdev=share,mount_tag=share \
    -device virtio-rng-pci \
    -nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$PORT-:80,hostfwd=tcp:127.0.0.1:$SSHPORT-:22" \
    < /dev/null > /dev/null 2>> "$DETAILS" &
  QEMU=$!
}
vm_seconds() { echo "$(date +%s.%N) $VM_T0" | awk '{ printf "%.1f", $1 - $2 }'; }
vm_console_save() { [ -f "$RUN/console.$BOOTS" ] && cat "$RUN/console.$BOOTS" >> "$CONSOLE"; rm -f "$RUN/console.$BOOTS"; }
vm_wait_exit() {   # SECONDS: qemu gone (0), or still there at the deadline (1)
  local end=$(( $(date +%s) + $1 ))
  while kill -0 "$QEMU" 2>/dev/null; do [ "$(date +%s)" -gt "$end" ] && return 1; sleep 1; done
  wait "$QEMU" 2>/dev/null || true; QEMU=""; vm_console_save; return 0
}
vm_kill() { kill -9 "$QEMU" 2>/dev/null || true; wait "$QEMU" 2>/dev/null || true; QEMU=""; vm_console_save; }
# vm_up: the agent answered (its "up" file), and systemd is done booting; UP_S is the wall time
# from qemu's start to multi-user (is-system-running --wait); 1 if qemu ended or the deadline passed
UP_S=""
vm_up() {
  local end=$(( $(date +%s) + ${VM_BOOT_TIMEOUT:-900} )) s
  until [ -f "$SHARE/up" ]; do
    kill -0 "$QEMU" 2>/dev/null || { vm_console_save; QEMU=""; return 1; }
    [ "$(date +%s)" -gt "$end" ] && return 1
    sleep 0.5
  done
  s=$(guest sysrun "${VM_BOOT_TIMEOUT:-900}" 'systemctl is-system-running --wait; systemctl --failed --no-legend --plain') || true
  UP_S=$(vm_seconds)
  detail "boot $BOOTS: multi-user after $UP_S s: $(echo "$s" | tr '\n' ' ')"
}
# next_cmd NAME: the next command's file name; the count is kept in a file, since most calls
# run in a command substitution's subshell
next_cmd() { local n; n=$(( $(cat "$RUN/cmdn" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$RUN/cmdn"; printf '%04d-%s' "$n" "$1"; }
# guest NAME TIMEOUT SCRIPT: runs SCRIPT (bash) in the guest; prints its output; its status, or
# 124 at the timeout, 125 if qemu ended
guest() {
  local n end; n=$(next_cmd "$1") end=$(( $(date +%s) + $2 ))
  printf '%s\n' "$3" > "$SHARE/cmd/$n.tmp"; mv "$SHARE/cmd/$n.tmp" "$SHARE/cmd/$n.sh"
  until [ -f "$SHARE/cmd/$n.rc" ]; do
    kill -0 "$QEMU" 2>/dev/null || { cat "$SHARE/cmd/$n.out" 2>/dev/null; return 125; }
    [ "$(date +%s)" -gt "$end" ] && { cat "$SHARE/cmd/$n.out" 2>/dev/null; return 124; }
    sleep 0.3
  done
  { echo "--- guest $n (rc $(cat "$SHARE/cmd/$n.rc"))"; cat "$SHARE/cmd/$n.out"; } >> "$DETAILS"
  cat "$SHARE/cmd/$n.out"
  return "$(cat "$SHARE/cmd/$n.rc")"
}
# guest_bg NAME SCRIPT: started in the guest, not waited for
guest_bg() {
  local n; n=$(next_cmd "$1")
  printf '%s\n' "$2" > "$SHARE/cmd/$n.tmp"; mv "$SHARE/cmd/$n.tmp" "$SHARE/cmd/$n.sh"
  until [ -f "$SHARE/cmd/$n.started" ]; do kill -0 "$QEMU" 2>/dev/null || return 125; sleep 0.2; done
}
# guest helpers, sourced by every command: the clock's socket, its state, the panels' RAM
cat > "$SHARE/lib.sh" <<'LIB'
SOCK=/run/roundclock/control.sock
# A first boot under TCG can keep the clock from answering for seconds: wait up to 15 s.
ctl() { printf '%s\n' "$1" | timeout 20 socat -t 15 - "UNIX-CONNECT:$SOCK" 2>/dev/null | head -1; }
state_line() { printf '{"command": "subscribe"}\n' | timeout 20 socat -t 15 - "UNIX-CONNECT:$SOCK" 2>/dev/null | head -1; }
field() { grep -o "\"$1\": *[^,}]*" | head -1 | sed 's/^[^:]*: *//; s/"//g'; }
state() { state_line | field state; }
now_s() { local t=$EPOCHREALTIME; echo "${t%.*}"; }
wait_true() { local end=$(( $(now_s) + $1 )); shift; until "$@"; do [ "$(now_s)" -gt "$end" ] && return 1; sleep 0.5; done; }
is_active() { [ "$(systemctl is-active "$1")" = active ]; }
running() { [ "$(state)" = running ]; }
ram() { local v; v=$(i2cget -y 1 "$1" 0x00 i 16 2>/dev/null) || { echo unreadable; return; }; v=${v//0x/}; v=${v// /}; echo "${v,,}"; }
# ensure_running: a round running, whatever the clock showed
ensure_running() {
  wait_true 120 is_active roundclock.service || return 1
  wait_true 60 test -S "$SOCK" || return 1
  case $(state) in finished) ctl '{"command": "stop"}' > /dev/null ;; esac
  running || ctl '{"command": "start"}' > /dev/null
  wait_true 20 running
}
LIB
G() { guest "$1" "$2" ". /run/vm-share/lib.sh
$3"; }

# ---- 4. first boot -----------------------------------------------------------------------------
# from here on a failing command is a check's FAIL line, never the end of the run
set +e +o pipefail
stage first-boot
echo "qemu-system-aarch64: virt, TCG, cortex-a72, smp ${VM_SMP:-2}, ${VM_MEM:-1024}M; the image's kernel $KV and initramfs;"
echo "  cmdline '$CMDLINE'; gateway on 127.0.0.1:$PORT, ssh on 127.0.0.1:$SSHPORT (console: $CONSOLE)"
vm_start
if ! vm_up; then
  result FAIL boot "the first boot did not reach the agent (console: $CONSOLE)"
  SUMMARY_DONE=1; echo "image-vm: $PASSED passed, $FAILED failed"; exit 1
fi
BOOT1_S=$UP_S
out=$(G boot 60 'echo "kernel=$(uname -r) arch=$(uname -m) system=$(systemctl is-system-running)"
echo "failed=$(systemctl --failed --no-legend --plain | cut -d" " -f1 | tr "\n" " ")"
echo "root=$(findmnt -n -o SOURCE,OPTIONS /)"') || true
detail "$out"
if grep -q "^kernel=$KV arch=aarch64 system=running" <<< "$out"; then
  result PASS boot "the image's kernel $KV and initramfs boot to multi-user in $BOOT1_S s (TCG); $(grep '^root=' <<< "$out")"
else
  result FAIL boot "$(echo "$out" | tr '\n' ' ') (multi-user after $BOOT1_S s)"
fi

# the card, applied at the first boot
out=$(G card 120 'wait_true 60 is_active roundclock-card.service || true
echo "card_unit=$(systemctl show -p ActiveState,Result --value roundclock-card.service | tr "\n" " ")"
echo "hostname=$(hostname) etc_hostname=$(cat /etc/hostname)"
echo "program=$(sed -n "s/^program *= *\"\(.*\)\"/\1/p" /etc/roundclock/config.toml | head -1)"
echo "pin=$(runuser -u roundclock-gateway -- roundclock-gateway --show-pin 2>&1 | tail -1)"
echo "timezone=$(readlink /etc/localtime | sed "s|.*/zoneinfo/||")"
echo "error=$(cat /run/roundclock-card/error 2>/dev/null)"
echo "example=$(ls /boot/firmware/roundclock.toml.example 2>&1)"
# the record of the applied file: its sha256, or the file itself
for f in /var/lib/roundclock-card/* /var/lib/roundclock/card*; do
  [ -f "$f" ] || continue
  { [ "$(sha256sum < "$f" | cut -c1-64)" = '"$CARD_SHA"' ] || grep -q '"$CARD_SHA"' "$f"; } && echo "card_sha_found=$f"
done
stat -c "mtime %n %Y" /etc/roundclock/config.toml /etc/hostname
journalctl -b -u roundclock-card.service --no-pager -o cat | tail -20') || true
detail "$out"
BOOT1_MTIMES=$(grep '^mtime ' <<< "$out" || true)
v() { sed -n "s/^$1=//p" <<< "$out" | head -1; }
if [ "$(v hostname | cut -d' ' -f1)" = "$CARD_HOST" ] && [ "$(v program)" = boxing ] && [ "$(v pin)" = "$CARD_PIN" ] &&
   [ "$(v timezone)" = "$CARD_TZ" ] && [ -z "$(v error)" ] && [ -n "$(v card_sha_found)" ]; then
  result PASS card "first boot applied the card: hostname $CARD_HOST, program boxing, PIN $CARD_PIN, time zone $CARD_TZ; its sha256 recorded in $(v card_sha_found); no error"
else
  result FAIL card "card unit '$(v card_unit)'; $(v hostname); program '$(v program)'; PIN '$(v pin)'; time zone '$(v timezone)'; error '$(v error)'; sha256 recorded in '$(v card_sha_found)'"
fi

# SSH switched on by the card's ssh file; the login from userconf.txt
# The card's units finish after multi-user's agent is up on a slow first boot (systemctl
# enable alone takes a minute under TCG): wait for them, then look.
out=$(G ssh 420 'settled() { ! systemctl -q is-active roundclock-sshswitch.service roundclock-userconf.service 2>/dev/null &&
  [ "$(systemctl show -p ActiveState --value roundclock-sshswitch.service)" != activating ] &&
  [ "$(systemctl show -p ActiveState --value roundclock-userconf.service)" != activating ]; }
wait_true 300 settled || true
wait_true 60 is_active ssh.service || true
journalctl -b -u roundclock-sshswitch.service -u roundclock-userconf.service --no-pager -o short-monotonic | tail -8
echo "ssh=$(systemctl is-active ssh.service) enabled=$(systemctl is-enabled ssh.service)"
echo "files=$(ls /boot/firmware/ssh /boot/firmware/ssh.txt /boot/firmware/userconf.txt 2>/dev/null | tr "\n" " ")"
echo "keys=$(ls /etc/ssh/ssh_host_*_key 2>/dev/null | wc -l)"
echo "user=$(id rc 2>&1)"') || true
detail "$out"
scan=$(ssh-keyscan -T 20 -p "$SSHPORT" 127.0.0.1 2>/dev/null | grep -c 'ssh-ed25519' || true)
if grep -q '^ssh=active enabled=enabled' <<< "$out" && [ -z "$(v files)" ] && [ "$scan" -ge 1 ] && grep -q 'groups=.*(sudo)' <<< "$(v user)"; then
  result PASS ssh "the card's ssh file enabled and started ssh.service and was deleted; $(v keys) host keys made on the card, the host's ssh-keyscan gets its ed25519 key; userconf.txt made user rc (sudo) and was deleted"
else
  result FAIL ssh "$(echo "$out" | tr '\n' ' '); ssh-keyscan ed25519 keys: $scan"
fi

# the clock: READY, the panels' picture on i2c-stub, a gpio-sim button press starts the round
out=$(G clock 240 'wait_true 120 is_active roundclock.service || true
echo "active=$(systemctl is-active roundclock.service) type=$(systemctl show -p Type --value roundclock.service)"
echo "status=$(systemctl show -p StatusText --value roundclock.service)"
roundclock simulate --program boxing --ready --virtual --until 1 --frames /run/sim.jsonl > /dev/null 2>&1
# the ready picture: the first ready frame of each panel in the simulator (0x70 time, 0x71 round, 0x72 phase)
for a in 0x70:time 0x71:round 0x72:phase; do
  want=$(sed -n "s/.*\"panel\": \"${a#*:}\", .*\"state\": \"ready\", \"ram\": \"\([0-9a-f]*\)\".*/\1/p" /run/sim.jsonl | head -1)
  echo "panel ${a#*:}=$(ram ${a%%:*}) want=$want"
done
echo "state_before=$(state)"
SYS=$(cat /run/vm-gpio-sim)
echo pull-down > "$SYS/sim_gpio17/pull"; sleep 0.3; echo pull-up > "$SYS/sim_gpio17/pull"
wait_true 20 running || true
echo "state_after=$(state)"
echo "time_ram=$(ram 0x70)"') || true
detail "$out"
panels=$(grep '^panel ' <<< "$out" | tr '\n' ' ')
same=$(grep '^panel ' <<< "$out" | awk '{ split($2, a, "="); split($3, b, "="); if (a[2] != b[2] || a[2] == "") bad = 1 } END { print (NR == 3 && !bad) ? 1 : 0 }')
if grep -q '^active=active type=notify' <<< "$out" && [[ $(v status) == *"(ready)"* ]] && [ "$same" = 1 ]; then
  result PASS ready "roundclock.service active after READY=1, STATUS '$(v status)'; i2c-stub's RAM at 0x70-0x72 is the simulator's ready picture"
else
  result FAIL ready "$(grep -E '^(active|status)=' <<< "$out" | tr '\n' ' '); RAM vs the simulator's ready picture: $panels"
fi
if [ "$(v state_before)" = ready ] && [ "$(v state_after)" = running ]; then
  result PASS button "gpio-sim GPIO17 pressed and released: ready -> running; time panel RAM $(v time_ram)"
else
  result FAIL button "state before '$(v state_before)', after the press '$(v state_after)'"
fi

# the gateway from the host: login with the card's PIN, STOP (pause) and START through the API
jar=$RUN/cookies base=http://127.0.0.1:$PORT
# The gateway first reaches the clock (its page says "clock unreachable" until then).
reached() { curl -sS -m 30 -o /dev/null -w '%{http_code}' -b "$jar" "$base/api/state" 2>/dev/null | grep -qx 200; }
curl -sS -m 60 -o /dev/null -c "$jar" -H 'Content-Type: application/json' -d "{\"pin\": \"$CARD_PIN\"}" "$base/api/login" 2>> "$DETAILS" || true
host_wait 300 reached || true
login=$(curl -sS -m 60 -o /dev/null -w '%{http_code}' -c "$jar" -H 'Content-Type: application/json' \
        -d "{\"pin\": \"$CARD_PIN\"}" "$base/api/login" 2>> "$DETAILS" || true)
stop=$(curl -sS -m 60 -b "$jar" -H 'Content-Type: application/json' -d '{"command": "stop"}' "$base/api/command" 2>> "$DETAILS" || true)
sleep 2
paused=$( { curl -sS -m 60 -b "$jar" "$base/api/state" 2>> "$DETAILS" || true; } | grep -o '"state": *"[a-z]*"' | head -1 | cut -d'"' -f4)
start=$(curl -sS -m 60 -b "$jar" -H 'Content-Type: application/json' -d '{"command": "start"}' "$base/api/command" 2>> "$DETAILS" || true)
sleep 2
st=$(curl -sS -m 60 -b "$jar" -w '\n%{http_code}' "$base/api/state" 2>> "$DETAILS" || true)
api_state=$(printf '%s' "$st" | { grep -o '"state": *"[a-z]*"' || true; } | head -1 | cut -d'"' -f4)
detail "gateway: login $login, stop $stop, then $paused, start $start, state $st"
if [ "$login" = 200 ] && [ "$paused" = paused ] && [ "$api_state" = running ] && [ "${st##*$'\n'}" = 200 ]; then
  result PASS gateway "from the host (hostfwd 127.0.0.1:$PORT -> 80): POST /api/login with the card's PIN 200; STOP -> paused, START -> running (GET /api/state 200)"
else
  result FAIL gateway "login $login; STOP '$stop' -> '$paused'; START '$start' -> '$api_state' (${st##*$'\n'})"
fi

# the root partition grew to the (4 GiB) disk
out=$(G grown 60 'dev=$(findmnt -n -o SOURCE /)
echo "part=$(lsblk -b -n -o SIZE "$dev") fs=$(df -B1 --output=size / | tail -1 | tr -d " ") disk=$(lsblk -b -n -d -o SIZE /dev/vda)"
echo "stamp=$(ls /var/lib/roundclock-image/root-grown 2>&1)"
journalctl -b -u roundclock-growroot.service --no-pager -o cat | tail -5') || true
detail "$out"
part=$(grep -o 'part=[0-9]*' <<< "$out" | cut -d= -f2) fs=$(grep -o 'fs=[0-9]*' <<< "$out" | cut -d= -f2)
if [ -n "$part" ] && [ "$part" -gt $((3500 * 1048576)) ] && [ "${fs:-0}" -gt $((3200 * 1048576)) ] && [ "$part" -gt "$ROOT_SIZE0" ]; then
  result PASS grown "root partition $ROOT_SIZE0 -> $part bytes, ext4 $fs bytes, on the 4 GiB disk; $(v stamp)"
else
  result FAIL grown "$(echo "$out" | head -3 | tr '\n' ' ') (image's root partition $ROOT_SIZE0 bytes)"
fi

# ---- 5. second boot: nothing applied again --------------------------------------------------------
stage second-boot
guest_bg poweroff 'systemctl poweroff' || true
vm_wait_exit 300 || { echo "the guest did not power off: killed"; vm_kill; }
vm_start
if vm_up; then
  BOOT2_S=$UP_S
  out=$(G second 120 'wait_true 60 is_active roundclock.service || true
echo "hostname=$(hostname) program=$(sed -n "s/^program *= *\"\(.*\)\"/\1/p" /etc/roundclock/config.toml | head -1)"
echo "card_unit=$(systemctl show -p ActiveState,Result --value roundclock-card.service | tr "\n" " ")"
stat -c "mtime %n %Y" /etc/roundclock/config.toml /etc/hostname
echo "journal:"; journalctl -b -u roundclock-card.service --no-pager -o cat | tail -10') || true
  detail "$out"
  mt=$(grep '^mtime ' <<< "$out" || true)
  jr=$(sed -n '/^journal:/,$p' <<< "$out" | sed 1d | tr '\n' ' ')
  if [ -n "$mt" ] && [ "$mt" = "$BOOT1_MTIMES" ] && grep -q "hostname=$CARD_HOST program=boxing" <<< "$out" &&
     grep -q 'nothing to apply' <<< "$jr"; then
    result PASS second-boot "boot 2 in $BOOT2_S s: config.toml and /etc/hostname untouched (same mtimes), hostname $CARD_HOST; roundclock-card says: $jr"
  else
    result FAIL second-boot "$(echo "$out" | grep -v '^mtime' | tr '\n' ' '); mtimes '$mt' vs boot 1 '$BOOT1_MTIMES'"
  fi
else
  result FAIL second-boot "the second boot did not reach the agent"
fi

# ---- 6. apt upgrade from the host's repository, in the middle of a round ---------------------------
stage upgrade
# a throwaway key, the repository scripts/apt-repo makes, served to the guest at 10.0.2.2
export GNUPGHOME=$RUN/gnupg; mkdir -m 700 -p "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'RoundClock image VM <image-vm@invalid>' ed25519 sign never 2>> "$DETAILS"
SITE=$RUN/site; mkdir -p "$SITE" "$RUN/debs"
(cd "$SITE" && exec python3 -m http.server --bind 127.0.0.1 "$HTTPPORT") > "$LOGS/image-vm-http.log" 2>&1 &
HTTP=$!
# publish N: the release's packages and both at <version>+upN (repacked: dpkg-deb -R, the
# version changed, the same files), signed, at http://10.0.2.2:HTTPPORT/apt
publish() {
  local n=$1 d deb
  for deb in "$DEBS"/roundclock_*_arm64.deb "$DEBS"/roundclock-gateway_*_arm64.deb; do
    d=$RUN/debs/repack; rm -rf "$d"
    dpkg-deb -R "$deb" "$d"
    sed -i "s/^Version: .*/&+up$n/" "$d/DEBIAN/control"
    dpkg-deb -Zgzip -z1 --root-owner-group -b "$d" "$RUN/debs/up$n-$(basename "$deb")" > /dev/null
  done
  rm -rf "$RUN/debs/repack"
  "$REPO/scripts/apt-repo" --site "$SITE" --base-url "http://10.0.2.2:$HTTPPORT" "$DEBS"/roundclock*_arm64.deb \
    "$RUN"/debs/up"$n"-*.deb >> "$DETAILS" 2>&1
  cp "$SITE/apt/roundclock.sources" "$SITE/apt/roundclock-archive-keyring.gpg" "$SHARE/"
}
# the guest: the test's repository in place of the image's (its own address, unreachable here),
# Debian's archive set aside; apt's unattended-upgrades options
APT_UPGRADE='install -m 0644 /run/vm-share/roundclock-archive-keyring.gpg /usr/share/keyrings/
install -m 0644 /run/vm-share/roundclock.sources /etc/apt/sources.list.d/roundclock.sources
[ -f /etc/apt/sources.list.d/debian.sources ] && mv /etc/apt/sources.list.d/debian.sources /etc/apt/debian.sources.off
export DEBIAN_FRONTEND=noninteractive
apt-get update -q && apt-get upgrade -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold'
UP=0
if [ -z "$DEBS" ]; then
  result FAIL upgrade "no --debs: no repository to upgrade from"
elif [ -z "$QEMU" ]; then
  result FAIL upgrade "no VM running"
else
  UP=1; publish $UP
  before=$(G round 120 'ensure_running >/dev/null; state_line') || true
  t0=$(date +%s)
  out=$(G apt 900 "$APT_UPGRADE"'
echo "rc=$?"
. /run/vm-share/lib.sh
echo "version=$(dpkg-query -W -f="\${Version}" roundclock) gateway=$(dpkg-query -W -f="\${Version}" roundclock-gateway)"
wait_true 60 is_active roundclock.service || true
sleep 2; echo "after=$(state_line)"') || true
  T_APT=$(( $(date +%s) - t0 ))
  detail "$out"
  after=$(v after)
  prog0=$(echo "$before" | grep -o '"program": *"[^"]*"' | head -1 | cut -d'"' -f4)
  st1=$(echo "$after" | grep -o '"state": *"[a-z]*"' | head -1 | cut -d'"' -f4)
  prog1=$(echo "$after" | grep -o '"program": *"[^"]*"' | head -1 | cut -d'"' -f4)
  a0=$(echo "$before" | grep -o '"anchor_realtime_ns": *[0-9]*' | head -1 | grep -o '[0-9]*$')
  a1=$(echo "$after" | grep -o '"anchor_realtime_ns": *[0-9]*' | head -1 | grep -o '[0-9]*$')
  # The restarted clock maps its restored anchor to the wall clock anew: the same start within 5 ms.
  if grep -q '^rc=0' <<< "$out" && grep -q "^version=$IMAGE_VERSION+up1 gateway=.*+up1" <<< "$out" && [ "$st1" = running ] &&
     [ "$prog1" = "$prog0" ] && [ -n "$a0" ] && [ -n "$a1" ] && [ $(( a0 > a1 ? a0 - a1 : a1 - a0 )) -le 5000000 ]; then
    result PASS upgrade "apt upgrade to $IMAGE_VERSION+up1 (both packages) from the host's signed repository in $T_APT s, mid-round: still running, program $prog1, the run's start within $(( (a0 > a1 ? a0 - a1 : a1 - a0) / 1000 )) µs"
  else
    result FAIL upgrade "$(grep -E '^(rc|version)=' <<< "$out" | tr '\n' ' '); before: $before; after: $after"
  fi
fi

# ---- 7. power cuts -------------------------------------------------------------------------------
stage power-cuts
PHASES=(boot apply round apt)
T_BOOT=${BOOT2_S%.*}; T_BOOT=${T_BOOT:-120}
T_APT=${T_APT:-60}
echo "power cuts: $CUTS, seed $SEED; boot to multi-user ${BOOT1_S:-?} s (first), ${BOOT2_S:-?} s (second); upgrade $T_APT s"
# fsck_root: e2fsck of the root partition as the next mount sees it: a copy, its journal
# replayed (what mounting does), then e2fsck -fn; 0 if it finds nothing to fix
fsck_root() {
  local size tmp; size=$(( $(part_field 2 size) * 512 )) tmp=$RUN/fsck.img
  dd if="$DISK" of="$tmp" bs=1M iflag=skip_bytes,count_bytes skip="$ROOT_OFF" count="$size" conv=sparse status=none
  e2fsck -E journal_only -y "$tmp" > "$RUN/fsck.log" 2>&1 || true
  e2fsck -fn "$tmp" >> "$RUN/fsck.log" 2>&1; local rc=$?
  cat "$RUN/fsck.log" >> "$DETAILS"; rm -f "$tmp"
  return $rc
}
fsck_boot() {
  local tmp=$RUN/fsck-boot.img
  dd if="$DISK" of="$tmp" bs=1M iflag=skip_bytes,count_bytes skip="$BOOT_OFF" count=$(( $(part_field 1 size) * 512 )) conv=sparse status=none
  fsck.vfat -n "$tmp" > "$RUN/fsck-boot.log" 2>&1; local rc=$?
  cat "$RUN/fsck-boot.log" >> "$DETAILS"; rm -f "$tmp"
  return $rc
}
CUT=0 T_START=$(date +%s) PREV_PROGRAM="" HOST_NOW=$CARD_HOST
while [ "$CUT" -lt "$CUTS" ]; do
  if [ "$BUDGET" -gt 0 ] && [ $(( $(date +%s) - T_START )) -gt "$BUDGET" ]; then
    echo "time budget ${BUDGET}s spent: $CUT of $CUTS power cuts run"; break
  fi
  CUT=$((CUT + 1)); phase=${PHASES[$(( (CUT - 1) % 4 ))]}
  was_running=0 note=""
  case $phase in
    boot|apply)
      if [ -n "$QEMU" ]; then guest_bg poweroff 'systemctl poweroff' || true; vm_wait_exit 300 || vm_kill; fi
      if [ "$phase" = apply ]; then
        HOST_NOW=gym-clock-$CUT; prog=$([ $((CUT % 8)) = 2 ] && echo tabata || echo boxing)
        write_card "$prog" "$HOST_NOW"
        at=$(rand_between $(( T_BOOT / 4 )) "$T_BOOT")
        note="card: hostname $HOST_NOW, program $prog"
      else
        at=$(rand_between 1 "$T_BOOT")
      fi
      vm_start; sleep "$at"; vm_kill ;;
    round)
      if [ -z "$QEMU" ]; then vm_start; vm_up || true; fi
      G round 180 'ensure_running' > /dev/null || true
      was_running=1
      at=$(rand_between 1 30); sleep "$at"; vm_kill ;;
    apt)
      if [ -z "$QEMU" ]; then vm_start; vm_up || true; fi
      G round 180 'ensure_running' > /dev/null || true
      was_running=1
      if [ -n "$DEBS" ]; then
        UP=$((UP + 1)); publish $UP
        guest_bg apt "$APT_UPGRADE" || true
        note="upgrade to +up$UP"
      fi
      at=$(rand_between 2 $(( T_APT > 3 ? T_APT : 3 ))); sleep "$at"; vm_kill ;;
  esac
  # after the cut: the file systems as the next boot finds them, then that boot
  if fsck_root; then fs="e2fsck -fn clean (journal replayed)"; fs_ok=1
  else fs="e2fsck -fn found problems: $(grep -v '^Pass\|^e2fsck\|^$' "$RUN/fsck.log" | head -3 | tr '\n' ' ')"; fs_ok=0; fi
  if fsck_boot; then fat="FAT clean"; else fat="FAT: $(grep -v '^fsck.fat\|^$' "$RUN/fsck-boot.log" | head -2 | tr '\n' ' ')"; fi
  vm_start
  if ! vm_up; then
    result FAIL "cut-$CUT" "$phase at ${at}s: the next boot did not reach the agent; $fs; $fat"
    vm_kill; continue
  fi
  out=$(G check 300 'wait_true 120 is_active roundclock.service || true
[ '"$was_running"' = 1 ] && wait_true 30 test -S "$SOCK" && sleep 2
echo "active=$(systemctl is-active roundclock.service) state=$(state) host=$(hostname)"
echo "system=$(systemctl is-system-running) failed=$(systemctl --failed --no-legend --plain | cut -d" " -f1 | tr "\n" " ")"
echo "audit=$(dpkg --audit 2>&1 | head -3 | tr "\n" " ")"
echo "card_error=$(cat /run/roundclock-card/error 2>/dev/null)"
echo "versions=$(dpkg-query -W -f="\${Version} " roundclock roundclock-gateway)"
echo "fsck=$(journalctl -b -u systemd-fsck-root.service -u "systemd-fsck@*" --no-pager -o cat | grep -iv "^Starting\|^Finished\|Deactivated" | tail -3 | tr "\n" " ")"') || true
  detail "cut $CUT ($phase at $at s): $out"
  st=$(grep -o 'state=[a-z]*' <<< "$out" | cut -d= -f2)
  ok=$fs_ok why=""
  grep -q '^active=active' <<< "$out" || { ok=0; why+=" roundclock.service not active;"; }
  if [ "$was_running" = 1 ] && [ "$st" != running ]; then ok=0; why+=" the round did not resume (state '$st');"; fi
  if [ "$phase" = apply ] && ! grep -q "host=$HOST_NOW" <<< "$out"; then ok=0; why+=" the card's hostname $HOST_NOW not applied;"; fi
  [ -z "$(v card_error)" ] || { ok=0; why+=" card error '$(v card_error)';"; }
  audit=$(v audit)
  if [ -n "$audit" ]; then
    fixed=$(G repair 600 'export DEBIAN_FRONTEND=noninteractive; dpkg --configure -a > /dev/null 2>&1; apt-get install -f -y -q > /dev/null 2>&1; dpkg --audit | head -3; echo "rc=$?"' || true)
    note+="; dpkg --audit: $audit; after dpkg --configure -a: '$(grep -v '^rc=' <<< "$fixed" | tr '\n' ' ')'"
  fi
  text="$phase, killed at ${at}s${note:+ ($note)}: $fs; $fat; booted in $UP_S s; clock $(grep -o 'state=[a-z]*' <<< "$out")$([ "$was_running" = 1 ] && echo ' (was running: resumed)'); $(v versions | sed 's/ $//')"
  [ "$ok" = 1 ] && result PASS "cut-$CUT" "$text" || result FAIL "cut-$CUT" "$why $text"
done
[ "$CUTS" -gt 0 ] && echo "power cuts: $CUT run in $(( $(date +%s) - T_START )) s"
if [ -n "$QEMU" ]; then guest_bg poweroff 'systemctl poweroff' || true; vm_wait_exit 300 || vm_kill; fi
stage done
echo "boots: $BOOTS; first boot to multi-user ${BOOT1_S:-?} s, second ${BOOT2_S:-?} s;$TIMINGS"
SUMMARY_DONE=1
echo "image-vm: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
