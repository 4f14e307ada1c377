#!/usr/bin/env bash
# The signed apt repository, as an owner uses it: boots a minimal Debian 13 trixie with
# systemd in qemu (TCG), serves over HTTP from the host the Pages site that the release
# workflow's own steps make (Tests/release/workflow-site.py), at the same path under its
# address as GitHub Pages serves it, and in the guest adds the repository, installs both
# packages, refuses a tampered and a wrongly signed repository, upgrades both packages while a
# round runs (with a stale Packages beside the new InRelease, as a cache serves it), and
# removes, reinstalls, purges and reinstalls them. See README.md here.
#
# usage: Tests/release/apt-repo-vm.sh --debs DIR --upgrade-debs DIR
#        Tests/release/apt-repo-vm.sh --prepare-only
#   --debs DIR          the packages of the release: roundclock_*_amd64.deb and
#                       roundclock-gateway_*_amd64.deb at least; every roundclock*.deb in DIR
#                       (arm64 ones too) goes into the repository
#   --upgrade-debs DIR  roundclock_*_amd64.deb of a higher version, for the upgrade (and
#                       roundclock-gateway_*_amd64.deb, else the release's gateway is repacked
#                       at a higher version: the same files, for its maintainer scripts)
#   --prepare-only      make the caches only: kernel, root filesystem, initramfs
# Environment: VM_CACHE (default <repo>/.build-vm), VM_TIMEOUT (seconds, default 900),
#   VM_STALL (seconds without a byte on the console after which the VM is taken as frozen and
#   booted once more, default 240), VM_SMP, VM_MEM, ACCEL (as Tests/kernel-vm/boot-vm.sh),
#   VM_NO_INSTALL=1 (never apt-get install on the host), RELEASE_WORKFLOW (another workflow
#   file than .github/workflows/release.yml, to see the checks fail on it).
# Output: "PASS|FAIL <n> <text>" per check 1-6 (1-5 the guest's, 6 the workflow's site, made on
# the host), then "apt-repo-vm: N passed, M failed" (a check not reported counts as failed).
# Exit status 0 only if all six passed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KVM_DIR=$REPO/Tests/kernel-vm
SVM_DIR=$REPO/Tests/system-vm
export DEBIAN_FRONTEND=noninteractive
die() { echo "apt-repo-vm: error: $*" >&2; exit 2; }

DEBS="" UPGRADE_DEBS="" PREPARE_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --debs) DEBS=$(readlink -f "${2:?--debs needs a directory}"); shift 2 ;;
    --upgrade-debs) UPGRADE_DEBS=$(readlink -f "${2:?--upgrade-debs needs a directory}"); shift 2 ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    -h|--help) sed -n '8,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[ $PREPARE_ONLY = 1 ] || { [ -d "$DEBS" ] && [ -d "$UPGRADE_DEBS" ]; } ||
  die "--debs DIR and --upgrade-debs DIR are needed (see --help)"

CACHE=${VM_CACHE:-$REPO/.build-vm}
mkdir -p "$CACHE/debs" "$CACHE/logs" "$CACHE/apt-repo-vm"
CACHE=$(cd "$CACHE" && pwd)
LOGS=$CACHE/logs
AVM=$CACHE/apt-repo-vm

CHECKS=6
VM_LABEL=apt-repo-vm PREP_FAILED_SUMMARY="apt-repo-vm: 0 passed, $CHECKS failed"
. "$KVM_DIR/host-lib.sh"
. "$HERE/vm-lib.sh"

# ---- host packages -------------------------------------------------------------------------
stage install
PKGS=(qemu-system-x86 busybox-static mmdebstrap e2fsprogs linux-headers-amd64 gcc make libc6-dev
      kmod cpio gzip xz-utils apt-utils gnupg python3)
install_host_packages "${PKGS[@]}"

# ---- kernel and gpio-sim (shared with Tests/kernel-vm and Tests/system-vm) -----------------
. "$KVM_DIR/kernel-prep.sh"

# ---- root filesystem: Debian 13 with systemd and the packages' run-time libraries (cached) --
stage rootfs
# What both packages depend on, without versions (checked against their Depends below), so
# that the guest needs nothing but the repository; i2c-tools for the simulators' set-up (and
# the clock's Recommends); python3 talks to the control socket. No other apt source is left.
ROOTFS_PACKAGES=systemd,systemd-sysv,udev,kmod,procps,i2c-tools,python3,libc6,libgcc-s1,libstdc++6,libasound2t64,libgpiod3,libi2c0,libmosquitto1
KEY=$( { echo "$ROOTFS_PACKAGES"; echo "$KV"; cat "$SVM_DIR/rootfs-setup.sh"; sed -n '/^# ---- root filesystem/,/^# ---- initramfs/p' "$0"
         md5sum "$MODDIR/extra/gpio-sim.ko"; } | sha256sum | cut -c1-12)
IMAGE=$AVM/rootfs-trixie-$KEY.img
if ! { cache_reuse "$IMAGE" "the trixie root filesystem" && [ -s "$IMAGE.packages" ]; }; then
  rm -f "$AVM"/rootfs-trixie-*.img "$AVM"/rootfs-trixie-*.img.*
  ROOT=$AVM/rootfs.tmp
  rm -rf "$ROOT"
  echo "mmdebstrap trixie --variant=minbase --include=$ROOTFS_PACKAGES"
  mmdebstrap --variant=minbase --include="$ROOTFS_PACKAGES" trixie "$ROOT" > "$LOGS/apt-repo-vm-mmdebstrap.log" 2>&1 ||
    { tail -30 "$LOGS/apt-repo-vm-mmdebstrap.log" >&2; die "mmdebstrap failed"; }
  # the system VM's set-up: modules, i2c-stub and gpio-sim at boot, networkd with the address
  # of qemu's user network, the synchronized-clock marker, vm-checks.service; here that unit
  # runs this test's checks
  "$SVM_DIR/rootfs-setup.sh" "$ROOT" "$KDIR" "$KV" > "$LOGS/apt-repo-vm-rootfs-setup.log" 2>&1 ||
    { tail -30 "$LOGS/apt-repo-vm-rootfs-setup.log" >&2; die "$SVM_DIR/rootfs-setup.sh failed"; }
  mkdir -p "$ROOT/etc/systemd/system/vm-checks.service.d"
  printf '[Service]\nExecStart=\nExecStart=/bin/bash /mnt/share/apt-repo-checks.sh\n' \
    > "$ROOT/etc/systemd/system/vm-checks.service.d/apt-repo.conf"
  # Debian's archive is not a source: apt sees the RoundClock repository only
  rm -rf "$ROOT/etc/apt/sources.list" "$ROOT"/etc/apt/sources.list.d/* "$ROOT"/var/lib/apt/lists/*
  chroot "$ROOT" dpkg-query -W -f='${Package}\n' > "$IMAGE.packages"
  mke2fs -q -t ext4 -L rootfs -d "$ROOT" "$IMAGE.tmp" 1G || die "mke2fs -d $ROOT failed"
  mv "$IMAGE.tmp" "$IMAGE"
  rm -rf "$ROOT"
  cache_seal "$IMAGE"
fi
echo "root filesystem $(basename "$IMAGE") ($(du -h "$IMAGE" | cut -f1) used of 1G)"

# ---- initramfs: the system VM's, which mounts /dev/vda and hands over to systemd ------------
vm_initramfs "$AVM" apt-repo-vm

# ---- the packages ---------------------------------------------------------------------------
stage packages
CLOCK_DEB=$(vm_one_deb "$DEBS" 'roundclock_*_amd64.deb')
GATEWAY_DEB=$(vm_one_deb "$DEBS" 'roundclock-gateway_*_amd64.deb')
UPGRADE_DEB=$(vm_one_deb "$UPGRADE_DEBS" 'roundclock_*_amd64.deb')
RELEASE_DEBS=("$DEBS"/roundclock*.deb)
VERSION=$(dpkg-deb -f "$CLOCK_DEB" Version) UPGRADE_VERSION=$(dpkg-deb -f "$UPGRADE_DEB" Version)
GATEWAY_VERSION=$(dpkg-deb -f "$GATEWAY_DEB" Version)
dpkg --compare-versions "$UPGRADE_VERSION" gt "$VERSION" || die "$UPGRADE_DEB ($UPGRADE_VERSION) is not newer than $CLOCK_DEB ($VERSION)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/apt-repo-vm.XXXXXX")
trap 'rc=$?; vm_stop_serving; rm -rf "$WORK"; (exit $rc); on_exit' EXIT
# the gateway's upgrade: the one in --upgrade-debs, else the release's own files repacked at the
# next patch version, which is what the maintainer scripts' upgrade path needs
UPGRADE_GATEWAY_DEB=$(ls "$UPGRADE_DEBS"/roundclock-gateway_*_amd64.deb 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$UPGRADE_GATEWAY_DEB" ]; then
  v=$(echo "$GATEWAY_VERSION" | awk -F. -v OFS=. '{ $NF = $NF + 1; print }')
  dpkg-deb -R "$GATEWAY_DEB" "$WORK/gateway-repack"
  sed -i "s/^Version: .*/Version: $v/" "$WORK/gateway-repack/DEBIAN/control"
  UPGRADE_GATEWAY_DEB=$WORK/roundclock-gateway_${v}_amd64.deb
  dpkg-deb -b "$WORK/gateway-repack" "$UPGRADE_GATEWAY_DEB" > /dev/null
  rm -rf "$WORK/gateway-repack"
fi
UPGRADE_GATEWAY_VERSION=$(dpkg-deb -f "$UPGRADE_GATEWAY_DEB" Version)
dpkg --compare-versions "$UPGRADE_GATEWAY_VERSION" gt "$GATEWAY_VERSION" ||
  die "$UPGRADE_GATEWAY_DEB ($UPGRADE_GATEWAY_VERSION) is not newer than $GATEWAY_DEB ($GATEWAY_VERSION)"
echo "release: $(cd "$DEBS" && echo roundclock*.deb); upgrade: $(basename "$UPGRADE_DEB") $(basename "$UPGRADE_GATEWAY_DEB")"
vm_check_depends "$IMAGE.packages" "$CLOCK_DEB" "$UPGRADE_DEB" "$GATEWAY_DEB"
# whether dpkg could ask about /etc/roundclock/config.toml at all: the packaged one changed
conffile_sum() { dpkg-deb --fsys-tarfile "$1" | tar -xO ./etc/roundclock/config.toml | sha256sum; }
CONFFILE_CHANGED=no; [ "$(conffile_sum "$CLOCK_DEB")" = "$(conffile_sum "$UPGRADE_DEB")" ] || CONFFILE_CHANGED=yes

# ---- the repositories: throwaway keys, an HTTP server on the host --------------------------
stage repository
for who in project other; do
  vm_throwaway_key "$WORK/gnupg-$who" "RoundClock test ($who) <test@localhost>" "$LOGS/apt-repo-vm-gpg.log"
done
# the project's throwaway key as the workflow's secret RELEASE_GPG_KEY holds it
GNUPGHOME=$WORK/gnupg-project gpg --batch --armor --export-secret-keys > "$WORK/release-gpg-key.asc"
SERVE=$WORK/serve
vm_serve "$SERVE" "$LOGS/apt-repo-vm-http.log"
# qemu's user network shows the host's loopback to the guest as 10.0.2.2. The site is served at
# BASE as GitHub Pages serves the Pages artifact at https://OWNER.github.io/REPOSITORY; the
# repository's address in it is scripts/apt-repo's, the one the workflow names.
BASE=http://10.0.2.2:$PORT/roundclock
SITE=$SERVE/roundclock
URL=$("$REPO/scripts/apt-repo" --print-url "$BASE")
INDEX=$SITE/${URL#"$BASE"/}/dists/trixie/main/binary-amd64
UPGRADE_SET=("${RELEASE_DEBS[@]}" "$UPGRADE_DEB" "$UPGRADE_GATEWAY_DEB")
HOST_RESULTS=$WORK/host-results
# publish NAME: what the host serves at BASE from now on
publish() {
  local packages sum rc
  case $1 in
    release)
      # the release workflow's own steps make the site from the release's packages (check 6);
      # it is served as they made it, whatever the checks say, as Pages would serve it
      rc=0
      python3 "$HERE/workflow-site.py" ${RELEASE_WORKFLOW:+--workflow "$RELEASE_WORKFLOW"} --debs "$DEBS" --pages-url "$BASE" --secret-key "$WORK/release-gpg-key.asc" \
        --out "$SITE" > "$WORK/workflow-site.log" 2>&1 || rc=$?
      cat "$WORK/workflow-site.log"
      [ $rc -le 1 ] || { echo "FAIL 6 the release workflow's job made no Pages site (exit $rc)" > "$HOST_RESULTS"; return 1; }
      if [ $rc = 0 ]; then
        echo "PASS 6 the release workflow's repository job, run here with $BASE for its Pages address: $(grep -c '^PASS workflow' "$WORK/workflow-site.log") checks passed; $(sed -n 's/^PASS workflow site: //p' "$WORK/workflow-site.log")" > "$HOST_RESULTS"
      else
        echo "FAIL 6 the release workflow: $(grep '^FAIL workflow' "$WORK/workflow-site.log" | sed 's/^FAIL workflow //' | tr '\n' ' ')" > "$HOST_RESULTS"
      fi
      # the release's indices, as a cache keeps serving them after the next release
      mkdir -p "$WORK/stale"; cp "$INDEX/Packages" "$INDEX/Packages.gz" "$WORK/stale/" 2>/dev/null || true ;;
    upgrade)
      GNUPGHOME=$WORK/gnupg-project "$REPO/scripts/apt-repo" --site "$SITE" --base-url "$BASE" "${UPGRADE_SET[@]}" || return 1
      # served as a cache serves it right after the release: the new InRelease, and at the
      # indices' own names the release's (apt fetches them by hash, so it never sees them)
      cp "$WORK/stale/Packages" "$WORK/stale/Packages.gz" "$INDEX/" || return 1
      echo "upgrade: $INDEX/Packages{,.gz} are the release's (stale), by-hash/ and InRelease the upgrade's" ;;
    wrong-key) GNUPGHOME=$WORK/gnupg-other "$REPO/scripts/apt-repo" --site "$SITE" --base-url "$BASE" "${UPGRADE_SET[@]}" ;;
    tampered)
      # the upgrade, signed; then one byte of the new clock's SHA256 in Packages (and the
      # Packages.gz made from it), at their names and at their signed hashes' names in
      # by-hash/; InRelease as signed
      GNUPGHOME=$WORK/gnupg-project "$REPO/scripts/apt-repo" --site "$SITE" --base-url "$BASE" "${UPGRADE_SET[@]}" || return 1
      packages=$INDEX/Packages
      cp "$packages" "$WORK/Packages.signed"; sha256sum "$SITE"/*/dists/trixie/InRelease > "$WORK/InRelease.sha256"
      awk -v v="$UPGRADE_VERSION" '
        /^Package: / { p = $2 } /^Version: / { ver = $2 }
        /^SHA256: / && p == "roundclock" && ver == v && !done { c = substr($2, 1, 1); $2 = (c == "0" ? "1" : "0") substr($2, 2); done = 1 }
        { print }' "$WORK/Packages.signed" > "$packages"
      [ "$(cmp -l "$WORK/Packages.signed" "$packages" | wc -l)" = 1 ] || { echo "tampering changed not exactly one byte"; return 1; }
      sum=$(sha256sum < "$packages.gz" | cut -d' ' -f1)
      gzip -9n < "$packages" > "$packages.gz"
      cp "$packages.gz" "$INDEX/by-hash/SHA256/$sum"
      cp "$packages" "$INDEX/by-hash/SHA256/$(sha256sum < "$WORK/Packages.signed" | cut -d' ' -f1)"
      sha256sum --quiet -c "$WORK/InRelease.sha256" || return 1
      echo "tampered: one byte of roundclock $UPGRADE_VERSION's SHA256 in $packages{,.gz} and their by-hash copies, InRelease unchanged" ;;
    *) echo "no repository $1"; return 1 ;;
  esac
}
: > "$LOGS/apt-repo-vm-publish.log"

# ---- the share: the checks, what they need to know -----------------------------------------
SHARE=$AVM/share
rm -rf "$SHARE"; mkdir -p "$SHARE"
cp "$HERE/guest/apt-repo-checks.sh" "$HERE/guest/control.py" "$SHARE/"
{
  printf 'URL=%q\n' "$URL"
  printf 'VERSION=%q\n' "$VERSION"
  printf 'UPGRADE_VERSION=%q\n' "$UPGRADE_VERSION"
  printf 'GATEWAY_VERSION=%q\n' "$GATEWAY_VERSION"
  printf 'UPGRADE_GATEWAY_VERSION=%q\n' "$UPGRADE_GATEWAY_VERSION"
  printf 'OTHER_KEY=%q\n' "$(GNUPGHOME=$WORK/gnupg-other gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')"
  printf 'CONFFILE_CHANGED=%q\n' "$CONFFILE_CHANGED"
} > "$SHARE/config.sh"

# ---- boot; the guest asks for each repository in turn -------------------------------------
stage vm
ACCEL=${ACCEL:-tcg}
if [ "$ACCEL" = kvm ]; then A=(-accel kvm -cpu "${KVM_CPU:-host}"); else A=(-accel tcg -cpu max); fi
CONSOLE=$LOGS/apt-repo-vm-console.log
rm -f "$CONSOLE" "$CONSOLE.froze" "$LOGS/apt-repo-vm-details.log"
echo "qemu: accel=$ACCEL smp=${VM_SMP:-2} mem=${VM_MEM:-1024}M timeout=${VM_TIMEOUT:-900}s, site $BASE = http://127.0.0.1:$PORT/roundclock, repository $URL (console: $CONSOLE)"
# serve_publish: publishes the repository the guest asks for (the share's publish file)
serve_publish() {
  local name status
  [ -f "$SHARE/publish" ] || return 0
  name=$(cat "$SHARE/publish"); rm -f "$SHARE/publish"
  echo "[apt-repo-vm $(date +%T)] publishing $name"
  if publish "$name" >> "$LOGS/apt-repo-vm-publish.log" 2>&1; then status="ok $name"
  else status="error: publishing $name failed (see $LOGS/apt-repo-vm-publish.log)"; fi
  echo "$status" > "$SHARE/published.tmp" && mv "$SHARE/published.tmp" "$SHARE/published"
}
# boot: the guest's checks from the release's repository on; false if the VM froze (nothing
# on its console for VM_STALL seconds, as TCG now and then does: see Tests/kernel-vm/boot-vm.sh)
boot() {
  local qemu status
  rm -f "$SHARE/results" "$SHARE/details" "$SHARE/publish" "$SHARE/published"
  publish release >> "$LOGS/apt-repo-vm-publish.log" 2>&1 ||
    { cat "$HOST_RESULTS" 2>/dev/null; die "the release's site could not be made (see $LOGS/apt-repo-vm-publish.log)"; }
  # -snapshot: the guest writes to a throw-away overlay, so the cached image stays pristine
  timeout --kill-after=10 "${VM_TIMEOUT:-900}" qemu-system-x86_64 "${A[@]}" -m "${VM_MEM:-1024}" -smp "${VM_SMP:-2}" \
    -nographic -nodefaults -no-reboot -serial stdio -monitor none \
    -nic user,model=virtio-net-pci \
    -kernel "$KDIR/boot/vmlinuz-$KV" -initrd "$INITRD" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init systemd.show_status=0" \
    -drive "file=$IMAGE,format=raw,if=virtio,snapshot=on" \
    -virtfs local,path="$SHARE",mount_tag=share,security_model=none \
    </dev/null > "$CONSOLE" 2>&1 &
  qemu=$!
  vm_watch "$qemu" "$CONSOLE" serve_publish; status=$?
  [ $status = 125 ] && return 1
  if [ $status -eq 124 ] || [ $status -eq 137 ]; then echo "qemu killed after ${VM_TIMEOUT:-900}s (timeout)"; fi
  return 0
}
set +e
if ! boot; then mv "$CONSOLE" "$CONSOLE.froze"; echo "booting once more"; boot; fi
set -e
stage done

# ---- results --------------------------------------------------------------------------------
SUMMARY_DONE=1
echo "HTTP log: $LOGS/apt-repo-vm-http.log ($(grep -c 'GET [^ ]*/by-hash/SHA256/' "$LOGS/apt-repo-vm-http.log" || true) indices fetched by hash, $(grep -cE 'GET [^ ]*/binary-[a-z0-9]+/Packages(\.[a-z]+)? ' "$LOGS/apt-repo-vm-http.log" || true) by name)"
cat "$HOST_RESULTS" >> "$SHARE/results" 2>/dev/null || true
. "$HERE/vm-results.sh"
vm_results apt-repo-vm apt-repo-vm
