#!/usr/bin/env bash
# RoundClock on Raspberry Pi OS through cloud-init, as an owner sets it up with Raspberry Pi
# Imager (docs/raspberry-pi-os.md): boots a Debian 13 trixie with cloud-init in qemu (TCG),
# configured as Raspberry Pi OS configures it (NoCloud, seeded from /boot/firmware), with a FAT
# disk labelled bootfs mounted at /boot/firmware that holds Imager's meta-data and
# network-config, the release's user-data (image/user-data as scripts/apt-repo fills it in for
# the repository this test serves) and the owner's roundclock.toml. The host serves the
# repository that scripts/apt-repo makes from the packages, signed by a throwaway key. See
# README.md here.
#
# usage: Tests/release/cloud-init-vm.sh --debs DIR [--no-raspi-config]
#        Tests/release/cloud-init-vm.sh --prepare-only
#   --debs DIR          roundclock_*_amd64.deb and roundclock-gateway_*_amd64.deb
#   --no-raspi-config   no stand-in for raspi-config in the guest: the user-data must skip I2C,
#                       saying why, and not reboot
#   --prepare-only      make the caches only: kernel, root filesystem, initramfs
# Environment: VM_CACHE (default <repo>/.build-vm), VM_TIMEOUT (seconds, default 1200),
#   VM_STALL (seconds without a byte on the console: the VM froze, default 480), VM_SMP,
#   VM_MEM, ACCEL (as apt-repo-vm.sh), VM_NICE (qemu's niceness, default 19, as the builds'),
#   VM_NO_INSTALL=1 (never apt-get install on the host).
# Output: "PASS|FAIL <n> <text>" per check 1-6 (6 with the host's curl), then "cloud-init-vm: N passed,
# M failed" (a check not reported counts as failed). Exit status 0 only if all passed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KVM_DIR=$REPO/Tests/kernel-vm
SVM_DIR=$REPO/Tests/system-vm
export DEBIAN_FRONTEND=noninteractive
die() { echo "cloud-init-vm: error: $*" >&2; exit 2; }

DEBS="" PREPARE_ONLY=0 RASPI_CONFIG=1
while [ $# -gt 0 ]; do
  case $1 in
    --debs) DEBS=$(readlink -f "${2:?--debs needs a directory}"); shift 2 ;;
    --no-raspi-config) RASPI_CONFIG=0; shift ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    -h|--help) sed -n '11,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[ $PREPARE_ONLY = 1 ] || [ -d "$DEBS" ] || die "--debs DIR is needed (see --help)"

CACHE=${VM_CACHE:-$REPO/.build-vm}
mkdir -p "$CACHE/debs" "$CACHE/logs" "$CACHE/cloud-init-vm"
CACHE=$(cd "$CACHE" && pwd)
LOGS=$CACHE/logs
CVM=$CACHE/cloud-init-vm

CHECKS=6
VM_LABEL=cloud-init-vm PREP_FAILED_SUMMARY="cloud-init-vm: 0 passed, $CHECKS failed"
. "$KVM_DIR/host-lib.sh"
. "$HERE/vm-lib.sh"
NICE=(nice -n 19)
VM_STALL=${VM_STALL:-480}

# ---- host packages -------------------------------------------------------------------------
stage install
install_host_packages qemu-system-x86 busybox-static mmdebstrap e2fsprogs linux-headers-amd64 gcc make \
  libc6-dev kmod cpio gzip xz-utils apt-utils gnupg python3 curl dosfstools mtools

# ---- kernel and gpio-sim (shared with Tests/kernel-vm, Tests/system-vm, apt-repo-vm.sh) -----
. "$KVM_DIR/kernel-prep.sh"

# ---- root filesystem: Debian 13 with cloud-init, laid out as Raspberry Pi OS (cached) -------
stage rootfs
# Raspberry Pi OS Lite's parts that matter here: cloud-init, NetworkManager under netplan,
# avahi-daemon, dbus; the packages' run-time libraries (checked against their Depends below),
# so that the guest needs nothing but the RoundClock repository; i2c-tools for the simulators.
ROOTFS_PACKAGES=systemd,systemd-sysv,udev,kmod,procps,dbus,tzdata,i2c-tools,python3,cloud-init,netplan.io,network-manager,avahi-daemon,libc6,libgcc-s1,libstdc++6,libasound2t64,libgpiod3,libi2c0,libmosquitto1
# the card's file system, which cloud-init reads from /boot/firmware
CARD_MODULES="vfat nls_cp437 nls_utf8 nls_ascii"
# Debian 12's libgpiod2 beside trixie's libgpiod3: scripts/build-deb.sh on a Debian 12 machine
# makes a clock that links it (the release's, built on trixie, links libgpiod3)
apt_download libgpiod2
GPIOD2_DEB=$(ls "$CACHE/debs"/libgpiod2_*_amd64.deb | head -1)
KEY=$( { echo "$ROOTFS_PACKAGES $CARD_MODULES $(basename "$GPIOD2_DEB")"; echo "$KV"; cat "$SVM_DIR/rootfs-setup.sh" "$HERE/cloud-init-vm/rootfs-setup.sh";
         md5sum "$MODDIR/extra/gpio-sim.ko"; } | sha256sum | cut -c1-12)
IMAGE=$CVM/rootfs-trixie-$KEY.img
if ! { cache_reuse "$IMAGE" "the trixie root filesystem" && [ -s "$IMAGE.packages" ]; }; then
  rm -f "$CVM"/rootfs-trixie-*.img "$CVM"/rootfs-trixie-*.img.*
  ROOT=$CVM/rootfs.tmp
  rm -rf "$ROOT"
  echo "mmdebstrap trixie --variant=minbase --include=$ROOTFS_PACKAGES"
  "${NICE[@]}" mmdebstrap --variant=minbase --include="$ROOTFS_PACKAGES" trixie "$ROOT" > "$LOGS/cloud-init-vm-mmdebstrap.log" 2>&1 ||
    { tail -30 "$LOGS/cloud-init-vm-mmdebstrap.log" >&2; die "mmdebstrap failed"; }
  # the system VM's set-up (modules, i2c-stub and gpio-sim like a Pi, the share, vm-checks.service),
  # then this test's: the card's modules and mount, Raspberry Pi OS's cloud-init and network
  "$SVM_DIR/rootfs-setup.sh" "$ROOT" "$KDIR" "$KV" > "$LOGS/cloud-init-vm-rootfs-setup.log" 2>&1 ||
    { tail -30 "$LOGS/cloud-init-vm-rootfs-setup.log" >&2; die "$SVM_DIR/rootfs-setup.sh failed"; }
  CARD_MODULES=$CARD_MODULES "$HERE/cloud-init-vm/rootfs-setup.sh" "$ROOT" "$KDIR" "$KV" >> "$LOGS/cloud-init-vm-rootfs-setup.log" 2>&1 ||
    { tail -30 "$LOGS/cloud-init-vm-rootfs-setup.log" >&2; die "$HERE/cloud-init-vm/rootfs-setup.sh failed"; }
  cp "$GPIOD2_DEB" "$ROOT/tmp/libgpiod2.deb"
  chroot "$ROOT" dpkg -i /tmp/libgpiod2.deb >> "$LOGS/cloud-init-vm-rootfs-setup.log" 2>&1 || die "dpkg -i $(basename "$GPIOD2_DEB") failed"
  rm -f "$ROOT/tmp/libgpiod2.deb"
  # the installed packages and what they provide (libasound2t64 provides libasound2)
  chroot "$ROOT" dpkg-query -W -f='${Package}\n${Provides}\n' | tr ',' '\n' | sed -e 's/(.*)//' -e 's/ //g' |
    grep -v '^$' | sort -u > "$IMAGE.packages"
  vm_make_image "$ROOT" "$IMAGE" 2G
fi
echo "root filesystem $(basename "$IMAGE") ($(du -h "$IMAGE" | cut -f1) used of 2G)"

# ---- initramfs: the system VM's, which mounts /dev/vda and hands over to systemd ------------
vm_initramfs "$CVM" cloud-init-vm

# ---- the packages, the repository, the card ------------------------------------------------
stage repository
CLOCK_DEB=$(vm_one_deb "$DEBS" 'roundclock_*_amd64.deb')
GATEWAY_DEB=$(vm_one_deb "$DEBS" 'roundclock-gateway_*_amd64.deb')
VERSION=$(dpkg-deb -f "$CLOCK_DEB" Version) GATEWAY_VERSION=$(dpkg-deb -f "$GATEWAY_DEB" Version)
vm_check_depends "$IMAGE.packages" "$CLOCK_DEB" "$GATEWAY_DEB"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cloud-init-vm.XXXXXX")
trap 'rc=$?; vm_stop_serving; rm -rf "$WORK"; (exit $rc); on_exit' EXIT
vm_throwaway_key "$WORK/gnupg" "RoundClock test (cloud-init) <test@localhost>" "$LOGS/cloud-init-vm-gpg.log"
FINGERPRINT=$(GNUPGHOME=$WORK/gnupg gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
vm_serve "$WORK/serve" "$LOGS/cloud-init-vm-http.log"
# The site at BASE as the release's is at https://OWNER.github.io/REPOSITORY; the guest reaches
# the host's loopback as 10.0.2.2 through qemu's user network
BASE=http://10.0.2.2:$PORT/roundclock
GNUPGHOME=$WORK/gnupg "$REPO/scripts/apt-repo" --site "$WORK/serve/roundclock" --base-url "$BASE" "$CLOCK_DEB" "$GATEWAY_DEB" \
  > "$LOGS/cloud-init-vm-publish.log" 2>&1 || { cat "$LOGS/cloud-init-vm-publish.log" >&2; die "scripts/apt-repo failed"; }
URL=$("$REPO/scripts/apt-repo" --print-url "$BASE")
USER_DATA=$WORK/serve/roundclock/${URL#"$BASE"/}/user-data
[ -s "$USER_DATA" ] || die "scripts/apt-repo wrote no user-data beside the repository"
grep -q "$FINGERPRINT" "$USER_DATA" || die "the user-data does not name the key's fingerprint $FINGERPRINT"
echo "repository $URL (signed by $FINGERPRINT): $(basename "$CLOCK_DEB") $(basename "$GATEWAY_DEB"); user-data from scripts/apt-repo"

# The card, as Imager leaves it: Raspberry Pi OS's boot files (config.txt with I2C off, as the
# image ships it), meta-data, Imager's network-config (a Wi-Fi network), the release's
# user-data in place of Imager's, and the owner's roundclock.toml.
CARD=$WORK/card.img
CARD_DIR=$HERE/cloud-init-vm/card
# (the label is lowercase, as Raspberry Pi OS's, which mkfs.fat warns about)
"${NICE[@]}" mkfs.vfat -F 32 -n bootfs -C "$CARD" 65536 > /dev/null 2>&1 || die "mkfs.vfat failed"
mcopy -i "$CARD" "$CARD_DIR/config.txt" "$CARD_DIR/meta-data" "$CARD_DIR/network-config" "$CARD_DIR/roundclock.toml" ::/
mcopy -i "$CARD" "$USER_DATA" ::/user-data

# ---- the share: the checks and what they need to know --------------------------------------
SHARE=$CVM/share
rm -rf "$SHARE"; mkdir -p "$SHARE"
cp "$HERE/guest/cloud-init-checks.sh" "$SHARE/"
[ $RASPI_CONFIG = 1 ] && cp "$HERE/cloud-init-vm/raspi-config" "$SHARE/"
{
  printf 'URL=%q\n' "$URL"
  printf 'VERSION=%q\n' "$VERSION"
  printf 'GATEWAY_VERSION=%q\n' "$GATEWAY_VERSION"
  printf 'KEYRING_SHA256=%q\n' "$(sha256sum < "$(dirname "$USER_DATA")/roundclock-archive-keyring.gpg" | cut -d' ' -f1)"
  printf 'RASPI_CONFIG=%q\n' "$RASPI_CONFIG"
  sed -n 's/^hostname *= *"\(.*\)"/CARD_HOSTNAME=\1/p; s/^timezone *= *"\(.*\)"/CARD_TIMEZONE=\1/p; s/^program *= *"\(.*\)"/CARD_PROGRAM=\1/p;
          s/^pin *= *"\(.*\)"/CARD_PIN=\1/p; s/^ssid *= *"\(.*\)"/CARD_SSID=\1/p' "$CARD_DIR/roundclock.toml"
} > "$SHARE/config.sh"
. "$SHARE/config.sh"

# ---- boot (twice, when the first boot enables I2C); the host's half of check 6 --------------
stage vm
ACCEL=${ACCEL:-tcg}
if [ "$ACCEL" = kvm ]; then A=(-accel kvm -cpu "${KVM_CPU:-host}"); else A=(-accel tcg -cpu max); fi
CONSOLE=$LOGS/cloud-init-vm-console.log
GW_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rm -f "$CONSOLE" "$LOGS/cloud-init-vm-details.log" "$LOGS/cloud-init-vm-curl.log"
echo "qemu: accel=$ACCEL smp=${VM_SMP:-2} mem=${VM_MEM:-1024}M nice ${VM_NICE:-19} timeout=${VM_TIMEOUT:-1200}s; card $CARD (bootfs);" \
  "guest port 80 on 127.0.0.1:$GW_PORT (console: $CONSOLE)"
# check 6, the host's: once the guest's gateway is up, log in with the card's PIN (and with
# another, which must be refused) and read /api/state through the forwarded port
host_login() {
  local base=http://127.0.0.1:$GW_PORT jar wrong login body code program
  [ -f "$SHARE/gateway-ready" ] && [ ! -f "$SHARE/api-result" ] || return 0
  jar=$WORK/cookies
  wrong=$(curl -sS -m 60 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
          -d '{"pin": "000000"}' "$base/api/login" 2>> "$LOGS/cloud-init-vm-curl.log")
  login=$(curl -sS -m 60 -o /dev/null -w '%{http_code}' -c "$jar" -H 'Content-Type: application/json' \
          -d "{\"pin\": \"$CARD_PIN\"}" "$base/api/login" 2>> "$LOGS/cloud-init-vm-curl.log")
  body=$(curl -sS -m 60 -b "$jar" -w '\n%{http_code}' "$base/api/state" 2>> "$LOGS/cloud-init-vm-curl.log")
  code=${body##*$'\n'} body=${body%$'\n'*}
  program=$(printf '%s' "$body" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("program", ""))' 2>/dev/null || true)
  echo "host: POST /api/login with the card's PIN $login, with another $wrong; GET /api/state $code, program '$program'"
  printf 'API_WRONG=%q\nAPI_LOGIN=%q\nAPI_CODE=%q\nAPI_PROGRAM=%q\n' "$wrong" "$login" "$code" "$program" > "$SHARE/api-result.tmp"
  mv "$SHARE/api-result.tmp" "$SHARE/api-result"
}
set +e
# no -no-reboot: the guest reboots once when the user-data enabled I2C, as a Pi does; the
# overlays (-snapshot) and the card live as long as qemu
nice -n "${VM_NICE:-19}" timeout --kill-after=10 "${VM_TIMEOUT:-1200}" qemu-system-x86_64 "${A[@]}" -m "${VM_MEM:-1024}" -smp "${VM_SMP:-2}" \
  -nographic -nodefaults -serial stdio -monitor none \
  -nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$GW_PORT-:80" \
  -kernel "$KDIR/boot/vmlinuz-$KV" -initrd "$INITRD" \
  -append "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init systemd.show_status=0" \
  -drive "file=$IMAGE,format=raw,if=virtio,snapshot=on" \
  -drive "file=$CARD,format=raw,if=virtio" \
  -virtfs local,path="$SHARE",mount_tag=share,security_model=none \
  </dev/null > "$CONSOLE" 2>&1 &
QEMU=$!
vm_watch "$QEMU" "$CONSOLE" host_login
status=$?
set -e
[ $status = 124 ] || [ $status = 137 ] && echo "qemu killed after ${VM_TIMEOUT:-1200}s (timeout)"
stage done

# ---- results --------------------------------------------------------------------------------
SUMMARY_DONE=1
mcopy -n -i "$CARD" ::/roundclock.toml "$LOGS/cloud-init-vm-card-roundclock.toml" 2>/dev/null || true
echo "HTTP log: $LOGS/cloud-init-vm-http.log ($(grep -cE 'GET [^ ]*/pool/[^ ]*\.deb HTTP[^"]*" 200' "$LOGS/cloud-init-vm-http.log" || true) packages fetched)"
. "$HERE/vm-results.sh"
vm_results cloud-init-vm cloud-init-vm
