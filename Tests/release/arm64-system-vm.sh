#!/usr/bin/env bash
# The arm64 packages under a real systemd: boots Debian trixie's arm64 kernel in
# qemu-system-aarch64 (TCG, a Cortex-A72 like the Pi 4's) with a minimal trixie arm64 root
# filesystem whose PID 1 is systemd, lays out i2c-stub and gpio-sim like a Raspberry Pi,
# installs DIR's roundclock_*_arm64.deb and roundclock-gateway_*_arm64.deb with apt and runs
# five checks: READY, the panels' picture, a button press, the gateway from the host, and
# systemd-analyze verify. A release check, not a CI stage: see README.md here,
# "arm64 system VM".
#
# usage: Tests/release/arm64-system-vm.sh --debs DIR
# Output: "PASS n text" or "FAIL n text" per check 1-5 (a check the guest never reported is a
# FAIL too), the stage timings, and last "arm64-system-vm: N passed, M failed". Exit status 0
# only if all five passed.
# Environment: VM_CACHE (default <repo>/.build-vm), VM_TIMEOUT (s, default 1800), VM_SMP
# (default 2), VM_MEM (MiB, default 1024), VM_NO_INSTALL=1 (never apt-get install on the host),
# A64VM_WITHOUT=i2c-stub|gpio-sim (the guest leaves that simulator out: shows the checks fail).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
GUEST=$HERE/arm64-vm
export DEBIAN_FRONTEND=noninteractive
die() { echo "arm64-system-vm: error: $*" >&2; exit 2; }

DEBS=""
while [ $# -gt 0 ]; do
  case $1 in
    --debs) DEBS=$(readlink -f "${2:?--debs needs a directory}"); shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[ -n "$DEBS" ] || die "usage: $0 --debs DIR"
one_deb() {   # NAME: the one NAME_*_arm64.deb in DEBS
  local f; f=$(ls "$DEBS/$1"_*_arm64.deb 2>/dev/null || true)
  [ -n "$f" ] && [ "$(printf '%s\n' "$f" | wc -l)" = 1 ] || die "want exactly one $1_*_arm64.deb in $DEBS, found: ${f:-none}"
  echo "$f"
}
DEB=$(one_deb roundclock) GATEWAY_DEB=$(one_deb roundclock-gateway)

CACHE=${VM_CACHE:-$REPO/.build-vm}
mkdir -p "$CACHE/logs" "$CACHE/arm64-vm"
CACHE=$(cd "$CACHE" && pwd)
LOGS=$CACHE/logs
AVM=$CACHE/arm64-vm
CHECKS=5
VM_LABEL=arm64-system-vm PREP_FAILED_SUMMARY="arm64-system-vm: 0 passed, 1 failed"
. "$REPO/Tests/kernel-vm/host-lib.sh"
. "$REPO/scripts/trixie-rootfs.sh"
NICE=(nice -n 19)

stage install
install_host_packages qemu-system-arm qemu-user-static binfmt-support mmdebstrap e2fsprogs kmod cpio gzip xz-utils curl
trixie_host_packages arm64    # binfmt for qemu-aarch64: mmdebstrap runs arm64 maintainer scripts

# ---- 1. and 2.: the kernel, i2c-stub and gpio-sim (arm64-vm/kernel-modules.sh) ----------
. "$GUEST/kernel-modules.sh"

# ---- 3. the root filesystem: trixie arm64, systemd, both packages' dependencies (cached) ---
stage rootfs
# What both packages depend on and recommend, so that the guest's apt installs them from the
# .debs alone (the guest has no network but qemu's restricted user-mode link); socat for the
# control socket; i2c-tools for the panels' RAM.
ROOTFS_PACKAGES=systemd,systemd-sysv,udev,kmod,procps,socat,i2c-tools,libc6,libgcc-s1,libstdc++6,libasound2t64,libgpiod3,libi2c0,libmosquitto1,libespeak-ng1,avahi-daemon
IMAGE_SIZE=1G    # about 350 MB used, 50 MB more with both packages installed
RKEY=$( { echo "$ROOTFS_PACKAGES $IMAGE_SIZE"; echo "$KV $HV"; cat "$GUEST/rootfs-setup.sh"; sha256sum "$MODS"/*.ko | cut -d' ' -f1; } | sha256sum | cut -c1-12)
IMAGE=$AVM/rootfs-$RKEY.img
if ! { cache_reuse "$IMAGE" "the arm64 root filesystem" && [ -s "$IMAGE.packages" ]; }; then
  rm -f "$AVM"/rootfs-*.img "$AVM"/rootfs-*.img.*
  ROOT=$AVM/rootfs.tmp
  rm -rf "$ROOT"
  echo "mmdebstrap trixie arm64 --variant=minbase --include=$ROOTFS_PACKAGES (qemu-user; log: $LOGS/arm64-vm-mmdebstrap.log)"
  "${NICE[@]}" mmdebstrap --variant=minbase --architectures=arm64 --include="$ROOTFS_PACKAGES" \
    trixie "$ROOT" http://deb.debian.org/debian > "$LOGS/arm64-vm-mmdebstrap.log" 2>&1 ||
    { tail -30 "$LOGS/arm64-vm-mmdebstrap.log" >&2; die "mmdebstrap (trixie arm64) failed"; }
  "$GUEST/rootfs-setup.sh" "$ROOT" "$KDIR" "$KV" > "$LOGS/arm64-vm-rootfs-setup.log" 2>&1 ||
    { tail -30 "$LOGS/arm64-vm-rootfs-setup.log" >&2; die "rootfs-setup.sh failed"; }
  chroot "$ROOT" dpkg-query -W -f='${Package}\n' > "$IMAGE.packages"
  "${NICE[@]}" mke2fs -q -t ext4 -L rootfs -d "$ROOT" "$IMAGE.tmp" "$IMAGE_SIZE" > "$LOGS/arm64-vm-mke2fs.log" 2>&1 ||
    { cat "$LOGS/arm64-vm-mke2fs.log" >&2; die "mke2fs -d $ROOT failed"; }
  mv "$IMAGE.tmp" "$IMAGE"
  rm -rf "$ROOT"
  cache_seal "$IMAGE"
fi
echo "root filesystem $(basename "$IMAGE") ($(du -h "$IMAGE" | cut -f1) used of $IMAGE_SIZE)"
# every package both .debs depend on or recommend (first alternative, no version) is there
for dep in $( { dpkg-deb -f "$DEB" Depends Recommends; dpkg-deb -f "$GATEWAY_DEB" Depends Recommends; } |
              sed 's/^[A-Za-z]*: //' | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/ //g' | grep -v '^$' | sort -u); do
  case $dep in roundclock|roundclock-gateway) continue ;; esac
  grep -qx "$dep" "$IMAGE.packages" ||
    die "the packages depend on or recommend $dep, which the root filesystem lacks: add it to ROOTFS_PACKAGES in $0"
done

# ---- 4. initramfs: busybox, virtio-blk and ext4, then systemd on /dev/vda ----------------
stage initramfs
IMODS=$(for m in virtio_blk ext4; do modprobe -d "$KDIR" -S "$KV" --show-depends "$m"; done |
        awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++')
IKEY=$( { echo "$IMODS"; cat "$REPO/Tests/system-vm/guest/init"; sha256sum "$KDIR/busybox"; } | sha256sum | cut -c1-12)
INITRD=$AVM/initrd-$KV-$IKEY.gz
if ! cache_reuse "$INITRD" "the initramfs"; then
  rm -f "$AVM"/initrd-*
  IR=$(mktemp -d "$AVM/initramfs.XXXXXX")
  mkdir -p "$IR"/{bin,proc,sys,dev,newroot,modules}
  install -m 0755 "$KDIR/busybox" "$IR/bin/busybox"
  for f in $IMODS; do
    m=$(basename "$f"); m=${m%.xz}; m=${m%.ko}
    case $f in *.xz) xz -dc "$f" > "$IR/modules/$m.ko" ;; *) cp "$f" "$IR/modules/$m.ko" ;; esac
    echo "$m" >> "$IR/modules/order"
  done
  # the amd64 system VM's init: insmod the modules in order, mount /dev/vda, switch_root
  install -m 0755 "$REPO/Tests/system-vm/guest/init" "$IR/init"
  (cd "$IR" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD.tmp"
  rm -rf "$IR"; mv "$INITRD.tmp" "$INITRD"
  cache_seal "$INITRD"
fi

# ---- 5. the share: the packages and the checks ---------------------------------------------
stage share
SHARE=$AVM/share
rm -rf "$SHARE"; mkdir -p "$SHARE"
cp "$DEB" "$GATEWAY_DEB" "$GUEST/guest-checks.sh" "$GUEST/pi-gpio-sim.sh" "$SHARE/"
{
  printf 'DEB=%q\n' "/mnt/share/$(basename "$DEB")"
  printf 'GATEWAY_DEB=%q\n' "/mnt/share/$(basename "$GATEWAY_DEB")"
  printf 'VERSION=%q\n' "$(dpkg-deb -f "$DEB" Version)"
  printf 'WITHOUT=%q\n' "${A64VM_WITHOUT:-}"
} > "$SHARE/config.sh"
echo "packages $(basename "$DEB"), $(basename "$GATEWAY_DEB")${A64VM_WITHOUT:+; without $A64VM_WITHOUT}"

# ---- 6. boot; the host's half of check 4: curl through the forwarded port -----------------
stage vm
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "qemu-system-aarch64: virt, TCG, cortex-a72, smp ${VM_SMP:-2}, ${VM_MEM:-1024}M, timeout ${VM_TIMEOUT:-1800}s; guest port 80 on 127.0.0.1:$PORT (console: $LOGS/arm64-vm-console.log)"
set +e
# snapshot=on: the guest writes to a throw-away overlay; the cached image stays pristine
"${NICE[@]}" timeout --kill-after=10 "${VM_TIMEOUT:-1800}" qemu-system-aarch64 \
  -M virt -accel tcg -cpu cortex-a72 -m "${VM_MEM:-1024}" -smp "${VM_SMP:-2}" \
  -nographic -nodefaults -serial stdio -monitor none -no-reboot \
  -kernel "$KDIR/boot/vmlinuz-$KV" -initrd "$INITRD" \
  -append "console=ttyAMA0 panic=-1 quiet loglevel=4 rdinit=/init systemd.show_status=0" \
  -drive "file=$IMAGE,format=raw,if=none,id=root,snapshot=on" -device virtio-blk-pci,drive=root \
  -fsdev "local,id=share,path=$SHARE,security_model=none" -device virtio-9p-pci,fsdev=share,mount_tag=share \
  -nic "user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:$PORT-:80" \
  </dev/null > "$LOGS/arm64-vm-console.log" 2>&1 &
QEMU=$!
# once the guest's gateway is up (gateway-ready, with the PIN), log in and read /api/state
while kill -0 "$QEMU" 2>/dev/null; do
  if [ -f "$SHARE/gateway-ready" ] && [ ! -f "$SHARE/api-result" ]; then
    pin=$(sed -n 's/^PIN=//p' "$SHARE/gateway-ready")
    jar=$(mktemp); base=http://127.0.0.1:$PORT
    login=$(curl -sS -m 60 -o /dev/null -w '%{http_code}' -c "$jar" -H 'Content-Type: application/json' \
            -d "{\"pin\": \"$pin\"}" "$base/api/login" 2>> "$LOGS/arm64-vm-curl.log")
    body=$(curl -sS -m 60 -b "$jar" -w '\n%{http_code}' "$base/api/state" 2>> "$LOGS/arm64-vm-curl.log")
    rm -f "$jar"
    code=${body##*$'\n'} body=${body%$'\n'*}
    printf '%s\n' "$body" > "$SHARE/api-state.json"
    api_state=$(printf '%s' "$body" | grep -o '"state": *"[a-z]*"' | head -1 | cut -d'"' -f4)
    echo "host: POST /api/login $login, GET /api/state $code, state '$api_state'"
    printf 'API_LOGIN=%q\nAPI_CODE=%q\nAPI_STATE=%q\n' "$login" "$code" "$api_state" > "$SHARE/api-result.tmp"
    mv "$SHARE/api-result.tmp" "$SHARE/api-result"
  fi
  sleep 1
done
wait "$QEMU"; q=$?
set -e
{ [ $q -eq 124 ] || [ $q -eq 137 ]; } && echo "qemu killed after ${VM_TIMEOUT:-1800}s (timeout)"
stage done

# ---- results ---------------------------------------------------------------------------------
SUMMARY_DONE=1
. "$HERE/vm-results.sh"
vm_results arm64-vm arm64-system-vm
