#!/usr/bin/env bash
# usage: scripts/setup.sh [--test | --deb | --gateway | --ci]
# Installs the Debian packages the build needs (libgpiod, libi2c and ALSA headers), if missing;
# with --test also what the test suite uses (systemd-analyze for the unit's checks, groff for the man pages; Xvfb,
# xterm, tmux, ImageMagick and a font for the simulator's screenshot in a real terminal), with
# --deb what scripts/build-deb.sh uses (dpkg-buildpackage, debhelper, lintian), with
# --gateway what the gateway's build and end-to-end checks use (Debian's chromium and
# chromium-driver, a font for the screenshots, and Selenium from PyPI; for MQTT:
# libmosquitto-dev to build, the mosquitto broker and its clients, paho-mqtt and Jinja2 for
# mqtt_check.py; Debian 12 ships Mosquitto 2.0.11, paho-mqtt 1.6.1, Jinja2 3.1.2), with --ci
# all of these and what the VM tests and the trixie check use (qemu, a kernel's headers,
# busybox, mmdebstrap, rsync; for scripts/release and its checks apt-ftparchive, gpg, PyYAML (the workflow's check) and
# qemu-user with binfmt for arm64), in one apt-get run: .ci/run's stages then install nothing, so
# they can run side by side.
# Selenium drives Debian's chromedriver by its path and never downloads a driver
# (Gateway/Tests/e2e/browser_check.py).
# Swift itself comes with the machine image (see docs/install.md).
set -euo pipefail
packages=(libgpiod-dev libi2c-dev libasound2-dev libespeak-ng-dev pkg-config)
test_packages=(systemd groff-base xvfb xterm tmux imagemagick fonts-dejavu-core)
deb_packages=(dpkg-dev debhelper lintian)
gateway_packages=(systemd chromium chromium-driver fonts-dejavu-core libmosquitto-dev mosquitto mosquitto-clients
    python3-paho-mqtt python3-jinja2 python3-venv)
vm_packages=(qemu-system-x86 busybox-static gpiod i2c-tools linux-headers-amd64 gcc make libc6-dev kmod cpio gzip
    xz-utils alsa-utils python3 python3-pip mmdebstrap e2fsprogs help2man rsync iproute2
    apt-utils gnupg qemu-user-static binfmt-support arch-test python3-yaml)
selenium=0
case "${1:-}" in
  --test) packages+=("${test_packages[@]}") ;;
  --deb) packages+=("${deb_packages[@]}") ;;
  --gateway) packages+=("${gateway_packages[@]}"); selenium=1 ;;
  --ci) packages+=("${test_packages[@]}" "${deb_packages[@]}" "${gateway_packages[@]}" "${vm_packages[@]}"); selenium=1 ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--test | --deb | --gateway | --ci]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ $selenium = 1 ] && ! python3 -c 'import selenium' 2>/dev/null; then
    echo "installing: selenium (PyPI)" >&2
    python3 -m pip install --quiet selenium
fi
