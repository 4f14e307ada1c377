#!/bin/sh
# Installs RoundClock as a systemd service.
#
#   scripts/install.sh [--dry-run] [--prefix DIR] [--binary FILE]
#
#   --binary FILE  the roundclock binary (default .build/release/roundclock; build it with
#                  swift build -c release -Xswiftc -static-stdlib)
#   --prefix DIR   default /usr/local: DIR/bin/roundclock, DIR/share/roundclock/boards/,
#                  DIR/share/doc/roundclock/, DIR/share/man/
#   --dry-run      print what would be done, change nothing
#   DESTDIR=DIR    (environment) stage everything under DIR for packaging; then no user
#                  is created and systemd is not touched (the sysusers.d file does that
#                  when the package is installed).
#
# Installs: the binary; board files; /etc/roundclock/config.example.toml, and
# /etc/roundclock/config.toml only if there is none yet; the units
# /etc/systemd/system/roundclock.service and roundclock-card.service (the SD card's
# roundclock.toml at boot); a sysusers.d file for the system user
# `roundclock` in groups i2c, gpio and audio; /etc/modules-load.d/roundclock.conf (ALSA's
# core at boot); the man pages roundclock(1) and roundclock.toml(5);
# README.md with docs/. It does not enable or start the
# service: run `systemctl enable --now roundclock roundclock-card` afterwards.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
prefix=/usr/local
binary="$here/.build/release/roundclock"
dry=false
destdir=${DESTDIR:-}

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) dry=true ;;
        --prefix) prefix=${2:?--prefix needs a directory}; shift ;;
        --prefix=*) prefix=${1#--prefix=} ;;
        --binary) binary=${2:?--binary needs a file}; shift ;;
        --binary=*) binary=${1#--binary=} ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done

run() {
    if $dry; then echo "+ $*"; else "$@"; fi
}

[ -x "$binary" ] || { echo "install.sh: no executable binary at $binary; build it first: swift build -c release -Xswiftc -static-stdlib" >&2; exit 66; }
if [ -z "$destdir" ] && ! $dry && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root (sudo), or set DESTDIR to stage the files, or use --dry-run" >&2; exit 77
fi

case "$prefix" in
    /usr) sysusers_dir=/usr/lib/sysusers.d ;;
    *) sysusers_dir=/etc/sysusers.d ;;
esac
bindir="$prefix/bin"
boards="$prefix/share/roundclock/boards"
docdir="$prefix/share/doc/roundclock"
mandir="$prefix/share/man"

run install -D -m 0755 "$binary" "$destdir$bindir/roundclock"
for board in "$here"/boards/*.toml; do
    run install -D -m 0644 "$board" "$destdir$boards/$(basename "$board")"
done
run install -D -m 0644 "$here/systemd/config.example.toml" "$destdir/etc/roundclock/config.example.toml"
if [ -e "$destdir/etc/roundclock/config.toml" ]; then
    echo "keeping the existing $destdir/etc/roundclock/config.toml"
else
    run install -D -m 0644 "$here/systemd/config.example.toml" "$destdir/etc/roundclock/config.toml"
fi
run install -D -m 0644 "$here/README.md" "$destdir$docdir/README.md"
for page in "$here"/docs/*.md "$here"/docs/images/*; do
    run install -D -m 0644 "$page" "$destdir$docdir/${page#"$here/"}"
done
run install -D -m 0644 "$here/man/roundclock.1" "$destdir$mandir/man1/roundclock.1"
run install -D -m 0644 "$here/man/roundclock.toml.5" "$destdir$mandir/man5/roundclock.toml.5"
# ALSA's core at boot (systemd-modules-load reads /etc/modules-load.d)
run install -D -m 0644 "$here/systemd/roundclock-modules.conf" "$destdir/etc/modules-load.d/roundclock.conf"

unit="$destdir/etc/systemd/system/roundclock.service"
if $dry; then
    echo "+ install $here/systemd/roundclock.service -> $unit (ExecStart=$bindir/roundclock)"
else
    install -d "$(dirname "$unit")"
    sed -e "s|/usr/local/bin/roundclock|$bindir/roundclock|g" \
        -e "s|/usr/local/share/doc/roundclock|$docdir|g" "$here/systemd/roundclock.service" > "$unit"
    chmod 0644 "$unit"
fi

# The card's roundclock.toml at boot (roundclock apply-card), enabled with the clock.
card_unit="$destdir/etc/systemd/system/roundclock-card.service"
if $dry; then
    echo "+ install $here/systemd/roundclock-card.service -> $card_unit (ExecStart=$bindir/roundclock)"
else
    sed -e "s|/usr/local/bin/roundclock|$bindir/roundclock|g" \
        -e "s|/usr/local/share/doc/roundclock|$docdir|g" "$here/systemd/roundclock-card.service" > "$card_unit"
    chmod 0644 "$card_unit"
fi

sysusers="$destdir$sysusers_dir/roundclock.conf"
if $dry; then
    echo "+ write $sysusers (user roundclock, groups i2c, gpio, audio and roundclock-remote)"
else
    install -d "$(dirname "$sysusers")"
    cat > "$sysusers" <<'CONF'
# RoundClock service user (systemd-sysusers, see sysusers.d(5)).
g i2c - -
g gpio - -
g roundclock-remote - -
u roundclock - "RoundClock round clock" /var/lib/roundclock /usr/sbin/nologin
m roundclock i2c
m roundclock gpio
m roundclock audio
CONF
    chmod 0644 "$sysusers"
fi

if [ -n "$destdir" ]; then
    echo "staged under $destdir"
    exit 0
fi

# A real install: create the user and groups, reload systemd.
if command -v systemd-sysusers >/dev/null 2>&1; then
    run systemd-sysusers "$sysusers"
else
    for group in i2c gpio roundclock-remote; do
        getent group "$group" >/dev/null || run groupadd --system "$group"
    done
    getent passwd roundclock >/dev/null || run useradd --system --user-group --no-create-home \
        --home-dir /var/lib/roundclock --shell /usr/sbin/nologin --comment "RoundClock round clock" roundclock
    getent group audio >/dev/null || run groupadd --system audio
    run usermod --append --groups i2c,gpio,audio roundclock
fi
if [ -d /run/systemd/system ]; then
    run systemctl daemon-reload
fi
echo "installed. Next: edit /etc/roundclock/config.toml, check it with '$bindir/roundclock check-config',"
echo "then: systemctl enable --now roundclock roundclock-card; journalctl -u roundclock -f"
