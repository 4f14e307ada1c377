#!/usr/bin/env bash
# usage: boot-vm.sh VMLINUZ INITRD SHARE-DIR MODULES-DIR
# Boots the kernel in qemu with the host's / (read-only), SHARE-DIR (read-write, must hold
# guest-tests.sh) and MODULES-DIR (read-only, lib/modules/<kver>) shared over 9p. The guest
# writes its exit code to SHARE-DIR/rc; this script exits with it, or 125 if there is none
# (VM crashed, hung or timed out).
# Environment: VM_TIMEOUT (seconds, default 600), VM_STALL (seconds without a byte on the
# console after which the VM is taken as frozen and stopped, default 240), VM_SMP (default 2), VM_MEM (MB, default 1024),
# ACCEL=kvm|tcg|auto (default auto: KVM only if /dev/kvm works AND the CPU shows vmx/svm;
# a nested /dev/kvm shim without those flags is far slower than TCG).
# VM_USB_SPEAKER=1 adds a USB speaker (qemu's usb-audio on an xHCI controller, its sound
# written to SHARE-DIR/usb-speaker-0.wav) that the guest unplugs and plugs again through
# usb-plug.py (after the return, its sound goes to usb-speaker-1.wav).
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 VMLINUZ INITRD SHARE-DIR MODULES-DIR" >&2; exit 2; }
K=$1 I=$2 S=$3 M=$4
for f in "$K" "$I" "$S/guest-tests.sh"; do [ -e "$f" ] || { echo "boot-vm: $f missing" >&2; exit 2; }; done
[ -d "$M" ] || { echo "boot-vm: module dir $M missing" >&2; exit 2; }
ACCEL=${ACCEL:-auto}
if [ "$ACCEL" = auto ]; then
  ACCEL=tcg
  if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo &&
     echo '{"execute":"qmp_capabilities"}{"execute":"quit"}' |
       timeout 20 qemu-system-x86_64 -accel kvm -machine none -nodefaults -display none -qmp stdio >/dev/null 2>&1; then
    ACCEL=kvm
  fi
fi
if [ "$ACCEL" = kvm ]; then A=(-accel kvm -cpu "${KVM_CPU:-host}"); else A=(-accel tcg -cpu max); fi
rm -f "$S/rc"
USB=() PLUG=""
if [ "${VM_USB_SPEAKER:-0}" = 1 ]; then
  QMP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/qmp.XXXXXX")
  rm -f "$S"/usb-speaker-*.wav "$S/usb-request" "$S/usb-done"
  USB=(-audiodev "wav,id=usbsnd0,path=$S/usb-speaker-0.wav" -audiodev "wav,id=usbsnd1,path=$S/usb-speaker-1.wav"
       -device qemu-xhci,id=xhci -device usb-audio,id=usb-speaker,bus=xhci.0,audiodev=usbsnd0
       -qmp "unix:$QMP_DIR/qmp.sock,server=on,wait=off")
  python3 "$(dirname "$0")/usb-plug.py" "$QMP_DIR/qmp.sock" "$S" &
  PLUG=$!
fi
echo "boot-vm: accel=$ACCEL smp=${VM_SMP:-2} mem=${VM_MEM:-1024}M timeout=${VM_TIMEOUT:-600}s"
set +e
# The console goes to a file that is shown as it grows; a VM that writes nothing on it for
# VM_STALL seconds (the guest logs every few seconds, its longest quiet stretch is a
# recording of about a minute) froze, as TCG now and then does: it is stopped then rather
# than at VM_TIMEOUT, and the caller boots it once more.
LIVE=$S/console.live
: > "$LIVE"
timeout --kill-after=10 "${VM_TIMEOUT:-600}" qemu-system-x86_64 "${A[@]}" -m "${VM_MEM:-1024}" -smp "${VM_SMP:-2}" \
  -nographic -no-reboot -nodefaults -serial stdio -monitor none \
  -kernel "$K" -initrd "$I" \
  -append "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$S",mount_tag=work,security_model=none \
  -virtfs local,path="$M",mount_tag=mods,security_model=none,readonly=on "${USB[@]}" </dev/null > "$LIVE" 2>&1 &
QEMU=$!
tail -n +1 -f --pid="$QEMU" "$LIVE" &
SHOW=$!
size=-1 quiet=0
while kill -0 "$QEMU" 2>/dev/null; do
  sleep 5
  now_size=$(stat -c %s "$LIVE")
  if [ "$now_size" = "$size" ]; then quiet=$((quiet + 5)); else quiet=0 size=$now_size; fi
  if [ "$quiet" -ge "${VM_STALL:-240}" ]; then
    echo "boot-vm: nothing on the console for $quiet s: the VM froze; stopping it"
    kill "$QEMU"
    break
  fi
done
wait "$QEMU"
q=$?
wait "$SHOW" 2>/dev/null
if [ -n "$PLUG" ]; then kill "$PLUG" 2>/dev/null; wait "$PLUG" 2>/dev/null; rm -rf "$QMP_DIR"; fi
set -e
if [ $q -eq 124 ] || [ $q -eq 137 ]; then echo "boot-vm: qemu killed after ${VM_TIMEOUT:-600}s (timeout)"; fi
[ -f "$S/rc" ] || { echo "boot-vm: no result from the guest (qemu exit $q: VM crashed, hung or timed out)"; exit 125; }
exit "$(cat "$S/rc")"
