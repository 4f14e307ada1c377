#!/bin/sh
# Checks systemd/roundclock.service, or the unit given as the argument
# (Gateway/systemd/roundclock-gateway.service, the phone remote's):
#  1. `systemd-analyze security --offline=true` exposure is at most $MAX_EXPOSURE (2.0 for
#     the clock, 1.5 for the gateway, which keeps the network);
#  2. `systemd-analyze verify` prints nothing (no unknown keys, bad values, bad sections).
#     verify checks that ExecStart= is executable, so it runs on a copy whose ExecStart
#     points at /bin/true (the real binary is not installed where the test runs);
#  3. the sandbox and restart settings of docs/service.md are present, and those of the
#     control socket: the runtime directory it lives in, its group, and still no network;
#     for the gateway's unit, its user, groups and sandbox, and a LimitNOFILE= that holds its
#     --max-connections and the 64 more files the gateway needs.
# Needs systemd-analyze (Debian: apt-get install --no-install-recommends systemd); works
# without systemd running as PID 1 (containers, CI).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
unit=${1:-$here/systemd/roundclock.service}
name=$(basename "$unit")
case $name in
  roundclock.service) max=${MAX_EXPOSURE:-2.0} ;;
  roundclock-gateway.service) max=${MAX_EXPOSURE:-1.5} ;;
  *) echo "FAIL: unknown unit $name"; exit 1 ;;
esac

command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze not installed"; exit 77; }

security=$(systemd-analyze security --offline=true "$unit" 2>&1)
exposure=$(printf '%s\n' "$security" | sed -n "s/.*Overall exposure level for $name: \\([0-9.]*\\).*/\\1/p")
[ -n "$exposure" ] || { printf '%s\n' "$security"; echo "FAIL: no exposure level in the output"; exit 1; }
if awk -v e="$exposure" -v m="$max" 'BEGIN { exit !(e <= m) }'; then
    echo "ok: exposure $exposure (at most $max)"
else
    printf '%s\n' "$security" | grep '✗' || true
    echo "FAIL: exposure $exposure is above $max"; exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's|^ExecStart=[^ ]*|ExecStart=/bin/true|' "$unit" > "$tmp/$name"
verify=$(systemd-analyze verify --man=no "$tmp/$name" 2>&1) || { printf '%s\n' "$verify"; echo "FAIL: verify exited non-zero"; exit 1; }
if [ -n "$verify" ]; then
    printf '%s\n' "$verify"; echo "FAIL: systemd-analyze verify reported problems"; exit 1
fi
echo "ok: systemd-analyze verify is clean"

if [ "$name" = roundclock-gateway.service ]; then
    required="User=roundclock-gateway SupplementaryGroups=roundclock-remote StateDirectory=roundclock-gateway
              PrivateDevices=yes DevicePolicy=closed NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes
              CapabilityBoundingSet=CAP_NET_BIND_SERVICE RestrictRealtime=yes MemoryDenyWriteExecute=yes
              Restart=on-failure RestartPreventExitStatus=78 SystemCallFilter=@system-service"
    for line in $required "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"; do
        grep -qxF "$line" "$unit" || { echo "FAIL: missing '$line'"; exit 1; }
    done
    echo "ok: required settings present"
    caps=$(sed -n 's/^ExecStart=.*--max-connections \([0-9]*\) --max-connections-per-address \([0-9]*\).*/\1 \2/p' "$unit")
    files=$(sed -n 's/^LimitNOFILE=\([0-9]*\)$/\1/p' "$unit")
    [ -n "$caps" ] && [ -n "$files" ] || { echo "FAIL: ExecStart= without --max-connections and --max-connections-per-address, or no LimitNOFILE=N"; exit 1; }
    set -- $caps
    [ "$files" -ge $(( $1 + 64 )) ] || { echo "FAIL: LimitNOFILE=$files cannot hold --max-connections $1 and 64 more"; exit 1; }
    echo "ok: connection caps $1 in all, $2 per address; LimitNOFILE=$files"
    exit 0
fi
for line in Type=notify NotifyAccess=main WatchdogSec=10s Restart=on-failure RestartPreventExitStatus=78 \
            StateDirectory=roundclock User=roundclock "SupplementaryGroups=i2c gpio audio" DevicePolicy=closed \
            "DeviceAllow=char-i2c rw" "DeviceAllow=char-gpiochip rw" "DeviceAllow=char-alsa rw" NoNewPrivileges=yes ProtectSystem=strict \
            ProtectHome=yes PrivateTmp=yes RestrictAddressFamilies=AF_UNIX SystemCallFilter=@system-service \
            CapabilityBoundingSet= ProtectClock=yes ProtectKernelTunables=yes ProtectKernelModules=yes \
            ProtectKernelLogs=yes LockPersonality=yes MemoryDenyWriteExecute=yes RestrictRealtime=yes \
            PrivateNetwork=yes IPAddressDeny=any RuntimeDirectory=roundclock RuntimeDirectoryMode=0711 \
            SupplementaryGroups=roundclock-remote "SystemCallFilter=chown fchownat"; do
    grep -qxF "$line" "$unit" || { echo "FAIL: missing '$line'"; exit 1; }
done
echo "ok: required settings present"
