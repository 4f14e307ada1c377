# Sourced by run-vm-tests.sh and ../system-vm/run-system-vm.sh: Debian's kernel image
# (unpacked, not installed) and gpio-sim built out of tree for it, both cached in $CACHE.
# Needs from the caller: CACHE, LOGS, the functions stage and die. Sets KV (kernel ABI),
# HV (its package version), KDIR (the unpacked linux-image) and MODDIR (its module tree,
# gpio-sim.ko in extra/, depmod run). See Tests/kernel-vm/README.md, "What happens", steps 2 and 3.
# apt-get download as root would warn that the _apt sandbox user cannot write here
APT_DL=(apt-get download -q)
[ "$(id -u)" = 0 ] && APT_DL+=(-o APT::Sandbox::User=root)
apt_download() {   # package [version]: into $CACHE/debs unless a .deb of it is there
  local pkg=$1 ver=${2:-}
  (cd "$CACHE/debs" && ls "${pkg}"_*.deb >/dev/null 2>&1) && return 0
  if [ -n "$ver" ] && (cd "$CACHE/debs" && "${APT_DL[@]}" "$pkg=$ver" > "$LOGS/apt-download-$pkg.log" 2>&1); then
    return 0
  fi
  [ -n "$ver" ] && echo "warning: $pkg=$ver is not downloadable; taking the candidate version"
  (cd "$CACHE/debs" && "${APT_DL[@]}" "$pkg" > "$LOGS/apt-download-$pkg.log" 2>&1) ||
    { cat "$LOGS/apt-download-$pkg.log" >&2; die "apt-get download $pkg failed"; }
}

# ---- 2. kernel image (unpacked, not installed) ------------------------------------------
stage kernel
if [ -n "${VM_KERNEL:-}" ]; then KV=$VM_KERNEL
else
  KV=$(for d in /usr/src/linux-headers-*-amd64; do [ -d "$d" ] && echo "${d#/usr/src/linux-headers-}"; done | sort -V | tail -1)
fi
[ -n "$KV" ] || die "no /usr/src/linux-headers-*-amd64 (apt-get install linux-headers-amd64)"
[ -e "/lib/modules/$KV/build/Makefile" ] || die "/lib/modules/$KV/build is missing (apt-get install linux-headers-$KV)"
KDIR=$CACHE/kernel-$KV
# the headers' package version: the image and the gpio-sim sources are taken at the same one
HV=$(dpkg-query -W -f='${Version}' "linux-headers-$KV" 2>/dev/null || true)
if ! cache_reuse "$KDIR" "the unpacked kernel $KV"; then
  apt_download "linux-image-$KV" "$HV"
  rm -rf "$KDIR.tmp"
  dpkg-deb -x "$(ls "$CACHE/debs/linux-image-${KV}"_*.deb | head -1)" "$KDIR.tmp"
  [ -f "$KDIR.tmp/boot/vmlinuz-$KV" ] || die "linux-image-$KV has no boot/vmlinuz-$KV"
  rm -rf "$KDIR"; mv "$KDIR.tmp" "$KDIR"
  rm -f "$CACHE/debs/linux-image-${KV}"_*.deb
  depmod -b "$KDIR" "$KV"
  cache_seal "$KDIR"
fi
MODDIR=$KDIR/lib/modules/$KV
echo "kernel $KV (headers ${HV:-?})"

# ---- 3. gpio-sim, built out of tree from linux-source ------------------------------------
stage gpio-sim
# keyed by the kernel and this script (its patch of irq_sim.c)
GKEY=$( { echo "$KV $HV"; sed -n '/^# ---- 3\./,$p' "${BASH_SOURCE[0]}"; } | sha256sum | cut -c1-12)
GDIR=$CACHE/gpio-sim-$KV-$GKEY
if ! cache_reuse "$GDIR/gpio-sim.ko" "gpio-sim.ko"; then
  SRCVER=$(echo "$KV" | cut -d. -f1,2)
  apt_download "linux-source-$SRCVER" "$HV"
  SRCDEB=$(ls "$CACHE/debs/linux-source-${SRCVER}"_*.deb | head -1)
  echo "gpio-sim from $(basename "$SRCDEB") for headers ${HV:-?}"
  rm -rf "$GDIR"; mkdir -p "$GDIR/build"
  dpkg-deb --fsys-tarfile "$SRCDEB" | tar -xO "./usr/src/linux-source-$SRCVER.tar.xz" | xz -dc |
    tar -x --strip-components=3 -C "$GDIR/build" \
      "linux-source-$SRCVER/drivers/gpio/gpio-sim.c" "linux-source-$SRCVER/drivers/gpio/gpiolib.h" \
      "linux-source-$SRCVER/kernel/irq/irq_sim.c" ||
    die "could not extract gpio-sim.c, gpiolib.h, irq_sim.c from $SRCDEB"
  mv "$GDIR/build/gpio-sim.c" "$GDIR/build/gpio-sim-main.c"
  # irq_to_desc() is not exported to modules; generic_handle_irq() does the same here
  grep -q 'handle_simple_irq(irq_to_desc(irqnum));' "$GDIR/build/irq_sim.c" ||
    die "irq_sim.c in $SRCDEB changed: 'handle_simple_irq(irq_to_desc(irqnum))' not found, update the patch here"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$GDIR/build/irq_sim.c"
  printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' > "$GDIR/build/Kbuild"
  make -C "/lib/modules/$KV/build" M="$GDIR/build" -j"$(nproc)" modules > "$LOGS/gpio-sim-build.log" 2>&1 ||
    { grep -v 'Skipping BTF' "$LOGS/gpio-sim-build.log" | tail -30 >&2; die "building gpio-sim.ko failed"; }
  cp "$GDIR/build/gpio-sim.ko" "$GDIR/gpio-sim.ko"
  rm -f "$SRCDEB"     # ~140 MB; the built module is what is cached
  rm -rf "$GDIR/build"
  cache_seal "$GDIR/gpio-sim.ko"
fi
# the module joins the kernel's tree, which is sealed again with it
if ! cmp -s "$GDIR/gpio-sim.ko" "$MODDIR/extra/gpio-sim.ko"; then
  mkdir -p "$MODDIR/extra"
  cp "$GDIR/gpio-sim.ko" "$MODDIR/extra/gpio-sim.ko"
  depmod -b "$KDIR" "$KV"
  cache_seal "$KDIR"
fi
