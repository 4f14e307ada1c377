# Sourced by ../arm64-system-vm.sh and ../image-vm.sh: Debian trixie's arm64 kernel, unpacked
# (KDIR, KV, HV), and i2c-stub and gpio-sim built out of tree for it (MODS), both cached and
# sealed under AVM. Needs from the caller: REPO, AVM, LOGS, NICE, the functions die and stage,
# and cache-lib.sh. A64VM_KERNEL_PACKAGE and A64VM_KERNEL_VERSION (e.g.
# linux-image-6.12.117+deb13-arm64 and 6.12.117-1) pick that kernel instead of what
# linux-image-arm64 names today.
# ---- trixie's arm64 archive, for apt-get download on this host (a private apt state) ----
APTDIR=$AVM/apt
mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial" "$APTDIR/prefs.d" "$APTDIR/dl"
echo "deb [arch=arm64] http://deb.debian.org/debian trixie main" > "$APTDIR/sources.list"
: > "$APTDIR/status"
APT_OPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/nonexistent
          -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR" -o "Dir::State::status=$APTDIR/status"
          -o "Dir::Etc::PreferencesParts=$APTDIR/prefs.d" -o APT::Architecture=arm64
          -o APT::Architectures::=arm64 -o APT::Sandbox::User=root)
trixie_download() {   # PACKAGE[=VERSION]...: into $APTDIR/dl
  (cd "$APTDIR/dl" && apt-get "${APT_OPTS[@]}" download -q "$@") > "$LOGS/arm64-vm-download.log" 2>&1 ||
    { tail -20 "$LOGS/arm64-vm-download.log" >&2; die "apt-get download $* (trixie arm64) failed"; }
}

# ---- 1. the kernel: linux-image-arm64's image, unpacked (cached per version) -------------
stage kernel
A64VM_KM=${BASH_SOURCE[0]}
# (without the archive, the lists of the last run name the cached kernel)
if ! apt-get "${APT_OPTS[@]}" update -q > "$LOGS/arm64-vm-apt-update.log" 2>&1; then
  ls "$APTDIR"/lists/*_Packages* > /dev/null 2>&1 ||
    { tail -20 "$LOGS/arm64-vm-apt-update.log" >&2; die "apt-get update (trixie arm64) failed"; }
  echo "warning: apt-get update (trixie arm64) failed; using the lists of the last run"
fi
IMAGE_PKG=${A64VM_KERNEL_PACKAGE:-$(apt-cache "${APT_OPTS[@]}" depends linux-image-arm64 | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -1)}
KV=${IMAGE_PKG#linux-image-}
HV=${A64VM_KERNEL_VERSION:-$(apt-cache "${APT_OPTS[@]}" show "$IMAGE_PKG" | sed -n 's/^Version: //p' | head -1)}
[ -n "$KV" ] && [ -n "$HV" ] || die "no linux-image-arm64 in trixie's arm64 index"
KDIR=$AVM/kernel-$KV-$HV
if ! cache_reuse "$KDIR" "the unpacked arm64 kernel $KV"; then
  rm -rf "$AVM"/kernel-* "$APTDIR"/dl/*.deb
  trixie_download "$IMAGE_PKG=$HV" busybox-static
  rm -rf "$KDIR.tmp"; mkdir -p "$KDIR.tmp/lib"
  dpkg-deb -x "$APTDIR/dl/${IMAGE_PKG}_"*.deb "$KDIR.tmp"
  [ -f "$KDIR.tmp/boot/vmlinuz-$KV" ] || die "$IMAGE_PKG has no boot/vmlinuz-$KV"
  # trixie ships its modules in /usr/lib/modules; depmod -b wants DIR/lib/modules
  mv "$KDIR.tmp/usr/lib/modules" "$KDIR.tmp/lib/modules"
  # the initramfs's busybox, static, for arm64
  dpkg-deb --fsys-tarfile "$APTDIR"/dl/busybox-static_*.deb | tar -xO ./usr/bin/busybox > "$KDIR.tmp/busybox"
  [ -s "$KDIR.tmp/busybox" ] || die "busybox-static (trixie arm64) has no usr/bin/busybox"
  rm -rf "$KDIR.tmp/usr/share" "$APTDIR"/dl/*.deb
  mv "$KDIR.tmp" "$KDIR"
  cache_seal "$KDIR"
fi
echo "kernel $KV ($IMAGE_PKG $HV)"

# ---- 2. i2c-stub and gpio-sim: neither is in trixie's arm64 kernel, so both are built -----
# out of tree from linux-source with trixie's gcc-aarch64-linux-gnu and the kernel's own
# headers, in a throw-away trixie amd64 root; only the two modules are cached.
stage modules
MKEY=$( { echo "$KV $HV"; sed -n '/^# ---- 2\./,/^# ---- 3\./p' "$A64VM_KM"; } | sha256sum | cut -c1-12)
MODS=$AVM/modules-$KV-$MKEY
if ! cache_reuse "$MODS" "the arm64 i2c-stub and gpio-sim"; then
  rm -rf "$AVM"/modules-*
  KBASE=${KV%-arm64} SRCVER=$(echo "$KV" | cut -d. -f1,2)
  BROOT=$AVM/buildroot.tmp
  rm -rf "$BROOT"
  echo "mmdebstrap trixie amd64 with gcc-aarch64-linux-gnu, linux-kbuild-$KBASE (log: $LOGS/arm64-vm-buildroot.log)"
  "${NICE[@]}" mmdebstrap --variant=apt --architectures=amd64 \
    --include="gcc-aarch64-linux-gnu,make,xz-utils,linux-kbuild-$KBASE,linux-headers-$KBASE-common" \
    trixie "$BROOT" http://deb.debian.org/debian > "$LOGS/arm64-vm-buildroot.log" 2>&1 ||
    { tail -30 "$LOGS/arm64-vm-buildroot.log" >&2; die "mmdebstrap of the module build root failed"; }
  trixie_download "linux-headers-$KV=$HV" "linux-source-$SRCVER=$HV"
  dpkg-deb -x "$APTDIR/dl/linux-headers-${KV}_"*.deb "$BROOT"
  W=$BROOT/work
  mkdir -p "$W/gpio-sim" "$W/i2c-stub" "$BROOT/opt/swift-packages"
  dpkg-deb --fsys-tarfile "$APTDIR/dl/linux-source-${SRCVER}_"*.deb | tar -xO "./usr/src/linux-source-$SRCVER.tar.xz" |
    xz -dc | tar -x --strip-components=3 -C "$W" "linux-source-$SRCVER/drivers/gpio/gpio-sim.c" \
      "linux-source-$SRCVER/kernel/irq/irq_sim.c" "linux-source-$SRCVER/drivers/i2c/i2c-stub.c" ||
    die "could not extract gpio-sim.c, irq_sim.c, i2c-stub.c from linux-source-$SRCVER"
  rm -f "$APTDIR"/dl/*.deb
  # gpio-sim with the interrupt simulator it needs (CONFIG_IRQ_SIM is off too);
  # irq_to_desc() is not exported to modules, generic_handle_irq() does the same here
  mv "$W/gpio-sim.c" "$W/gpio-sim/gpio-sim-main.c"; mv "$W/irq_sim.c" "$W/gpio-sim/"
  grep -q 'handle_simple_irq(irq_to_desc(irqnum));' "$W/gpio-sim/irq_sim.c" ||
    die "irq_sim.c of linux-source-$SRCVER changed: update the patch in $A64VM_KM"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$W/gpio-sim/irq_sim.c"
  printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' > "$W/gpio-sim/Kbuild"
  # i2c-stub as bus 1, the Pi's header bus (the virt machine has no I2C adapter of its own to
  # be bus 0, as the PC's SMBus is in the amd64 system VM)
  mv "$W/i2c-stub.c" "$W/i2c-stub/"
  grep -q 'ret = i2c_add_adapter(&stub_adapter);' "$W/i2c-stub/i2c-stub.c" ||
    die "i2c-stub.c of linux-source-$SRCVER changed: update the patch in $A64VM_KM"
  sed -i 's/ret = i2c_add_adapter(&stub_adapter);/stub_adapter.nr = 1;\n\tret = i2c_add_numbered_adapter(\&stub_adapter);/' "$W/i2c-stub/i2c-stub.c"
  echo 'obj-m := i2c-stub.o' > "$W/i2c-stub/Kbuild"
  # the headers' Makefile sets CROSS_COMPILE=aarch64-linux-gnu- and gcc-14
  "${NICE[@]}" bash -c '. "$1/scripts/trixie-rootfs.sh"; SWIFT_PACKAGE_MIRROR=$2/opt/swift-packages trixie_chroot "$2" "$2/work" "$3"' _ \
    "$REPO" "$BROOT" "for m in gpio-sim i2c-stub; do make -C /usr/src/linux-headers-$KV M=/cache/\$m modules || exit 1; done" \
    > "$LOGS/arm64-vm-modules.log" 2>&1 ||
    { tail -30 "$LOGS/arm64-vm-modules.log" >&2; die "building gpio-sim.ko and i2c-stub.ko for $KV failed"; }
  mkdir -p "$MODS.tmp"; cp "$W/gpio-sim/gpio-sim.ko" "$W/i2c-stub/i2c-stub.ko" "$MODS.tmp/"
  rm -rf "$BROOT" "$MODS"; mv "$MODS.tmp" "$MODS"
  cache_seal "$MODS"
fi
# the modules join the kernel's tree (sealed again with them)
if ! cmp -s "$MODS/gpio-sim.ko" "$KDIR/lib/modules/$KV/extra/gpio-sim.ko" ||
   ! cmp -s "$MODS/i2c-stub.ko" "$KDIR/lib/modules/$KV/extra/i2c-stub.ko"; then
  mkdir -p "$KDIR/lib/modules/$KV/extra"
  cp "$MODS"/*.ko "$KDIR/lib/modules/$KV/extra/"
  depmod -b "$KDIR" "$KV"
  cache_seal "$KDIR"
fi
echo "modules $(basename "$MODS"): gpio-sim.ko, i2c-stub.ko"
# ---- 3. (the caller's) ----
