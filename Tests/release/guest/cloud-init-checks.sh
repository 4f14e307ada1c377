#!/bin/bash
# The cloud-init VM's checks, run by vm-checks.service at each boot of the guest, as root. The
# first boot is cloud-init's: when the user-data enabled I2C it reboots once it is done, and
# the checks wait for that; on the boot after, or when no reboot is due, they check what the
# owner gets. Each check writes "PASS n text" or "FAIL n text" to /mnt/share/results; the
# logs go to /mnt/share/details. See ../README.md.
set -u
SHARE=/mnt/share
. "$SHARE/config.sh"   # URL VERSION GATEWAY_VERSION KEYRING_SHA256 RASPI_CONFIG CARD_*
RESULTS=$SHARE/results DETAILS=$SHARE/details
U=roundclock.service G=roundclock-gateway.service C=roundclock-card.service
REBOOT=/run/roundclock-first-boot.reboot OUTPUT=/var/log/cloud-init-output.log

log() { echo "[$(cut -d' ' -f1 /proc/uptime)s] $*" | tee -a "$DETAILS" > /dev/console; }
check() {   # check N CONDITION-STATUS TEXT: PASS when the status is 0
  local word=FAIL; [ "$2" = 0 ] && word=PASS
  echo "$word $1 $3" | tee -a "$RESULTS" >> "$DETAILS"; echo "$word $1 $3" > /dev/console
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds (every second); false at the deadline
wait_for() { local n=$1; shift; until "$@"; do n=$((n - 1)); [ $n -le 0 ] && return 1; sleep 1; done; }
section() { printf '== %s\n' "$1" >> "$DETAILS"; shift; "$@" >> "$DETAILS" 2>&1; }
boots() { journalctl --list-boots --no-pager -q 2>/dev/null | wc -l; }

log "cloud-init checks: boot $(boots), $(cat /proc/sys/kernel/random/boot_id), kernel $(uname -r), $(. /etc/os-release; echo "$PRETTY_NAME"), cloud-init $(cloud-init --version 2>&1)"
# cloud-init's status of the boot that ran the user-data, kept for the checks: the next boot's
# status is its own. Kept once cloud-init is done, or when the reboot stops this script first
# (the waits run in the background, so that the signal is taken at once).
FIRST=/var/lib/vm-checks/first-boot
keep_first_status() {
  [ -e "$FIRST.json" ] && return 0
  mkdir -p /var/lib/vm-checks
  cloud-init status --long > "$FIRST.long" 2>&1; echo $? > "$FIRST.rc"
  cloud-init status --format json > "$FIRST.json.tmp" 2>&1 && mv "$FIRST.json.tmp" "$FIRST.json"
  sync
}
trap 'keep_first_status; log "stopped by the reboot; cloud-init: $(head -1 "$FIRST.long")"; exit 0' TERM
timeout 1200 cloud-init status --wait > /dev/null 2>&1 & wait $!
log "cloud-init: $(cloud-init status 2>&1 | tr '\n' ' ')"
keep_first_status
if [ -e "$REBOOT" ]; then
  # the user-data's power_state reboots the guest now: the checks run on the next boot
  section "boot $(boots): cloud-init-output.log" cat "$OUTPUT"
  log "the user-data asked for a reboot ($REBOOT): waiting for it"
  sleep 300 & wait $!
  log "no reboot 300 s after cloud-init was done"
fi
trap - TERM
trap 'log "checks done"; sync; systemctl poweroff' EXIT
: > "$RESULTS"

# ---- 1. cloud-init finished without errors, from the card's files -------------------------
# in the boot that ran the user-data, and in this one
status=$(cat "$FIRST.long") rc=$(cat "$FIRST.rc")
now=$(cloud-init status --long 2>&1); now_rc=$?
schema=$(cloud-init schema --system 2>&1); schema_rc=$?
section "cloud-init status --long, first boot (exit $rc)" cat "$FIRST.long"
section "cloud-init status --format json, first boot" cat "$FIRST.json"
section "cloud-init status --long, this boot (exit $now_rc)" printf '%s\n' "$now"
section "cloud-init schema --system (exit $schema_rc)" printf '%s\n' "$schema"
errors=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(len(d.get("errors", [])) + sum(len(v) for v in d.get("recoverable_errors", {}).values()))' "$FIRST.json" 2>&1)
datasource=$(printf '%s\n' "$status" | sed -n 's/^detail: *//p; s/^ *DataSource/DataSource/p' | head -1)
[ "$rc" = 0 ] && printf '%s\n' "$status" | grep -qx 'status: done' && [ "$errors" = 0 ] && [ $now_rc = 0 ] &&
  [ $schema_rc = 0 ] && printf '%s\n' "$status" | grep -q 'file:///boot/firmware'
check 1 $? "cloud-init status --long: exit $rc, $(printf '%s\n' "$status" | grep -m1 '^status:'), $errors errors and warnings (this boot: exit $now_rc); '$datasource'; schema: $(printf '%s\n' "$schema" | grep -o 'Valid schema [a-z-]*' | paste -sd, -)"

# ---- 2. the repository added, both packages installed from it -----------------------------
# from_repository PACKAGE VERSION: apt-cache policy shows VERSION installed, and from URL
from_repository() {
  apt-cache policy "$1" | awk -v v="$2" -v url="$URL" '
    $1 == "***" { mine = ($2 == v); next } /^     [^ ]/ { mine = 0; next }
    mine && index($0, url) { found = 1 } END { exit !found }'
}
section "apt-cache policy" apt-cache policy roundclock roundclock-gateway
section "roundclock.sources" cat /etc/apt/sources.list.d/roundclock.sources
keyring=$(sha256sum < /usr/share/keyrings/roundclock-archive-keyring.gpg 2>/dev/null | cut -d' ' -f1)
installed=$(dpkg-query -W -f='${Package}=${Version} ' roundclock roundclock-gateway 2>&1)
grep -qx "URIs: $URL" /etc/apt/sources.list.d/roundclock.sources && [ "$keyring" = "$KEYRING_SHA256" ] &&
  [ "$installed" = "roundclock=$VERSION roundclock-gateway=$GATEWAY_VERSION " ] &&
  from_repository roundclock "$VERSION" && from_repository roundclock-gateway "$GATEWAY_VERSION"
check 2 $? "roundclock.sources names $URL, the keyring is the repository's ($([ "$keyring" = "$KEYRING_SHA256" ] && echo same || echo "another: $keyring")); installed: $installed; apt-cache policy: $(apt-cache policy roundclock roundclock-gateway | grep -A1 '\*\*\*' | grep -v -e '\*\*\*' -e '^--' | sed 's/^ *//' | sort -u | paste -sd';' -)"

# ---- 3. I2C: enabled with one reboot, or skipped with the reason --------------------------
steps=$(grep '^roundclock-first-boot: ' "$OUTPUT" 2>/dev/null)
section "roundclock-first-boot's lines" printf '%s\n' "$steps"
i2c_line=$(printf '%s\n' "$steps" | grep -m1 'I2C: ')
dtparam=$(grep -c '^dtparam=i2c_arm=on' /boot/firmware/config.txt)
if [ "$RASPI_CONFIG" = 1 ]; then
  printf '%s\n' "$i2c_line" | grep -q 'I2C: enabled by raspi-config' && [ "$dtparam" = 1 ] &&
    grep -q '^i2c-dev' /etc/modules && [ "$(boots)" = 2 ]
  check 3 $? "with raspi-config (the test's stand-in): '${i2c_line#roundclock-first-boot: }'; config.txt: $dtparam line(s) dtparam=i2c_arm=on, /etc/modules: $(grep -c '^i2c-dev' /etc/modules) i2c-dev; $(boots) boots (one reboot)"
else
  printf '%s\n' "$i2c_line" | grep -q 'I2C: skipped: no raspi-config' && [ "$dtparam" = 0 ] && [ "$(boots)" = 1 ]
  check 3 $? "without raspi-config: '${i2c_line#roundclock-first-boot: }'; config.txt: $dtparam line(s) dtparam=i2c_arm=on; $(boots) boot(s)"
fi

# ---- 4. the services: the card's first, then the clock and the phone remote ---------------
wait_for 120 systemctl is-active --quiet "$U"; wait_for 120 systemctl is-active --quiet "$G"
prop() { systemctl show -P "$2" "$1"; }
card_end=$(prop "$C" ExecMainExitTimestampMonotonic) clock_start=$(prop "$U" ExecMainStartTimestampMonotonic)
gateway_start=$(prop "$G" ExecMainStartTimestampMonotonic)
section "systemctl status" systemctl status --no-pager "$C" "$U" "$G"
section "journal of $C" journalctl -u "$C" --no-pager -o short-monotonic
[ "$(prop "$C" Result)" = success ] && [ "$(systemctl is-enabled "$C")" = enabled ] &&
  [ "${card_end:-0}" -gt 0 ] && [ "$card_end" -le "$clock_start" ] && [ "$card_end" -le "$gateway_start" ] &&
  systemctl is-active --quiet "$U" && systemctl is-active --quiet "$G" &&
  [ "$(systemctl is-enabled "$U" "$G" | sort -u)" = enabled ]
check 4 $? "$C: $(prop "$C" Result), $(systemctl is-enabled "$C"), done at ${card_end}µs; $U $(systemctl is-active "$U") (started at ${clock_start}µs), $G $(systemctl is-active "$G") (at ${gateway_start}µs), both $(systemctl is-enabled "$U" "$G" | sort -u | tr '\n' ' ')"

# ---- 5. the card's roundclock.toml applied ------------------------------------------------
CONFIG=/etc/roundclock/config.toml
check_config=$(roundclock check-config "$CONFIG" 2>&1); cc_rc=$?
program=$(sed -n 's/^program *= *"\(.*\)"/\1/p' "$CONFIG" | head -1)
zone=$(timedatectl show -p Timezone --value 2>/dev/null || readlink /etc/localtime)
wifi=$(grep -ls "^ssid=$CARD_SSID\$" /etc/NetworkManager/system-connections/* 2>/dev/null | head -1)
# the applied file is recorded as it is on the card now, its passphrase removed
recorded=$(cmp -s /var/lib/roundclock-card/applied.toml /boot/firmware/roundclock.toml && echo "the card's" || echo "another than the card's")
error=$(cat /run/roundclock-card/error 2>/dev/null)
section "roundclock check-config (exit $cc_rc)" printf '%s\n' "$check_config"
section "$CONFIG" cat "$CONFIG"
section "the card's roundclock.toml now" cat /boot/firmware/roundclock.toml
section "NetworkManager's connections" ls -l /etc/NetworkManager/system-connections/
section "/var/lib/roundclock-card/applied.toml" cat /var/lib/roundclock-card/applied.toml
[ "$(hostname)" = "$CARD_HOSTNAME" ] && [ "$(cat /etc/hostname)" = "$CARD_HOSTNAME" ] && [ "$zone" = "$CARD_TIMEZONE" ] &&
  [ $cc_rc = 0 ] && [ "$program" = "$CARD_PROGRAM" ] && [ -n "$wifi" ] && [ -z "$error" ] &&
  ! grep -q '^passphrase' /boot/firmware/roundclock.toml && [ "$recorded" = "the card's" ]
check 5 $? "host name $(hostname) (/etc/hostname $(cat /etc/hostname)), time zone $zone; $CONFIG: program '$program', check-config exit $cc_rc; Wi-Fi '$CARD_SSID': ${wifi:-no NetworkManager connection}; the card's passphrase $(grep -q '^passphrase' /boot/firmware/roundclock.toml && echo 'still on it' || echo removed); recorded as applied: $recorded; /run/roundclock-card/error: ${error:-none}"

# ---- 6. the phone remote with the card's PIN, from the host through qemu's hostfwd ---------
wait_for 60 sh -c "journalctl -u $G -b --no-pager -o cat | grep -q 'listening on'"
touch "$SHARE/gateway-ready"
log "6: waiting for the host's curl"
wait_for 300 test -f "$SHARE/api-result"
API_WRONG="" API_LOGIN="" API_CODE="" API_PROGRAM=""
[ -f "$SHARE/api-result" ] && . "$SHARE/api-result"
section "journal of $G" journalctl -u "$G" -b --no-pager -o short-monotonic
[ "$API_LOGIN" = 200 ] && [ "${API_WRONG#4}" != "$API_WRONG" ] && [ "$API_CODE" = 200 ] && [ "$API_PROGRAM" = "$CARD_PROGRAM" ]
check 6 $? "from the host: POST /api/login with the card's PIN ${API_LOGIN:-no answer}, with another ${API_WRONG:-no answer}; GET /api/state ${API_CODE:-no answer}, program '$API_PROGRAM'"

section "cloud-init-output.log" cat "$OUTPUT"
section "cloud-init.log: warnings and errors" grep -E 'WARNING|ERROR|Traceback' /var/log/cloud-init.log
