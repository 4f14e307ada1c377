#!/bin/bash
# The arm64 system VM's five checks, run as root by vm-checks.service once the guest's
# systemd reaches multi-user.target (see ../README.md, "arm64 system VM"). Lays out i2c-stub
# and gpio-sim like a Pi, installs both packages with apt from the share, writes
# "PASS n text" or "FAIL n text" per check to /mnt/share/results, the details to
# /mnt/share/details, and powers the guest off.
set -u
SHARE=/mnt/share
. "$SHARE/config.sh"            # DEB GATEWAY_DEB VERSION WITHOUT
RESULTS=$SHARE/results DETAILS=$SHARE/details
U=roundclock.service G=roundclock-gateway.service
SOCK=/run/roundclock/control.sock CONFIG=/etc/roundclock/config.toml

log() { echo "[$(cut -d' ' -f1 /proc/uptime)s] $*" | tee -a "$DETAILS" > /dev/console; }
result() { echo "$1 $2 $3" | tee -a "$RESULTS" >> "$DETAILS"; echo "$1 $2 $3" > /dev/console; }
pass() { result PASS "$1" "$2"; }
fail() { result FAIL "$1" "$2"; }
trap 'log "checks done"; sync; systemctl poweroff' EXIT
now_s() { local t=$EPOCHREALTIME; echo "${t%.*}"; }
# wait_true SECONDS COMMAND...: until COMMAND succeeds (every 0.5 s); false at the deadline
wait_true() { local end=$(( $(now_s) + $1 )); shift; until "$@"; do [ "$(now_s)" -gt "$end" ] && return 1; sleep 0.5; done; }
is_active() { [ "$(systemctl is-active "$1")" = active ]; }
# read_ram ADDRESS: the chip's 16 display RAM bytes on bus 1, as hex
read_ram() { local v; v=$(i2cget -y 1 "$1" 0x00 i 16 2>/dev/null) || { echo unreadable; return; }; v=${v//0x/}; v=${v// /}; echo "${v,,}"; }
# socket_state: the "state" member of the clock's current state line on its control socket
socket_state() {
  printf '{"command": "subscribe"}\n' | timeout 10 socat -t 2 - "UNIX-CONNECT:$SOCK" 2>/dev/null | head -1 |
    grep -o '"state": "[a-z]*"' | head -1 | cut -d'"' -f4
}
socket_running() { [ "$(socket_state)" = running ]; }

log "arm64 checks: kernel $(uname -r), $(uname -m), systemd $(systemctl --version | head -1 | cut -d' ' -f2), without: ${WITHOUT:-nothing}"
: > "$RESULTS"

# ---- the Pi's layout: panels 0x70-0x72 on /dev/i2c-1, buttons on lines named GPIO17/27/22 ---
# (this i2c-stub is built to take bus 1; gpio-sim's lines get the Pi's names, buttons released)
modprobe i2c-dev
[ "$WITHOUT" = i2c-stub ] || modprobe i2c-stub chip_addr=0x70,0x71,0x72
SYS=""
if [ "$WITHOUT" != gpio-sim ]; then
  modprobe configfs; modprobe gpio-sim
  . "$SHARE/pi-gpio-sim.sh"
  SYS=$(pi_gpio_sim)
fi
udevadm settle
log "i2c: $(i2cdetect -l | tr '\t' ' ' | tr '\n' ';') gpio-sim: ${SYS:-none}"

# ---- 1. apt installs both packages; the service is active with READY sent --------------------
log "apt-get install $DEB $GATEWAY_DEB"
DEBIAN_FRONTEND=noninteractive apt-get install -y "$DEB" "$GATEWAY_DEB" >> "$DETAILS" 2>&1; apt_rc=$?
wait_true 120 is_active "$U"
act=$(systemctl is-active "$U") status=$(systemctl show -p StatusText --value "$U")
type=$(systemctl show -p Type --value "$U") v=$(roundclock --version 2>&1)
log "1: apt rc $apt_rc; $U $act (Type=$type) StatusText '$status'; --version '$v'; $(dpkg --print-architecture) on $(uname -m)"
journalctl -u "$U" -b --no-pager -o short-monotonic >> "$DETAILS" 2>&1
if [ $apt_rc = 0 ] && [ "$act" = active ] && [ "$type" = notify ] && [[ $status == *"(ready)"* ]] &&
   [ "$v" = "$VERSION" ] && [ "$(uname -m)" = aarch64 ]; then
  pass 1 "apt installed both arm64 packages offline; $U active after READY=1 (Type=notify), STATUS '$status'; roundclock --version $v on $(uname -m)"
else
  fail 1 "apt rc $apt_rc; $U '$act' Type=$type STATUS '$status'; --version '$v' (want $VERSION); $(uname -m)"
fi

# ---- 2. the panels hold the clock's picture: i2c-stub's RAM = the simulator's ready frame ----
# The installed binary's own simulator, the package's config (board "simulator", boxing):
# the ready picture, then START at 1 s; "panel|state|ram" per frame.
roundclock simulate --program boxing --ready --events 1:start --virtual --until 40 --frames /run/sim.jsonl \
  > /dev/null 2>> "$DETAILS"
sed -n 's/^{"t": [0-9.]*, "panel": "\([a-z]*\)", .*"state": "\([a-z]*\)", "ram": "\([0-9a-f]*\)".*/\1|\2|\3/p' \
  /run/sim.jsonl > /run/pictures.txt
declare -A READY
while IFS='|' read -r panel state ram; do
  [ "$state" = ready ] && [ -z "${READY[$panel]:-}" ] && READY[$panel]=$ram
done < /run/pictures.txt
ram_ok=1 rams=""
for a in 0x70:time 0x71:round 0x72:phase; do
  r=$(read_ram "${a%%:*}"); rams="$rams ${a#*:}@${a%%:*}=$r"
  [ -n "${READY[${a#*:}]:-}" ] && [ "$r" = "${READY[${a#*:}]}" ] || ram_ok=0
done
log "2: RAM:$rams; simulator's ready picture: time=${READY[time]:-?} round=${READY[round]:-?} phase=${READY[phase]:-?}"
if [ $ram_ok = 1 ]; then
  pass 2 "i2c-stub's chips 0x70, 0x71, 0x72 on bus 1 hold the simulator's ready picture of time, round and phase"
else
  fail 2 "panels' RAM:$rams; want time=${READY[time]:-?} round=${READY[round]:-?} phase=${READY[phase]:-?}"
fi

# ---- 3. START on gpio-sim: the control socket's state goes to running, the panel counts ------
before=$(socket_state)
if [ -n "$SYS" ]; then
  echo pull-down > "$SYS/sim_gpio17/pull"; sleep 0.2; echo pull-up > "$SYS/sim_gpio17/pull"
fi
wait_true 20 socket_running; after=$(socket_state)
# the time panel now shows one of the simulator's running pictures (prep or work), not ready's
sleep 2; time_ram=$(read_ram 0x70)
running_pic=0
grep -q "^time|running|$time_ram\$" /run/pictures.txt && [ "$time_ram" != "${READY[time]:-}" ] && running_pic=1
log "3: socket state before the press '$before', after '$after'; time panel $time_ram (a running picture: $running_pic)"
if [ "$before" = ready ] && [ "$after" = running ] && [ $running_pic = 1 ]; then
  pass 3 "a press on gpio-sim's GPIO17 started the round: control socket state ready -> running, the time panel shows the simulator's running picture"
else
  fail 3 "press on GPIO17 (gpio-sim ${SYS:-absent}): socket state '$before' -> '$after', time panel $time_ram running picture: $running_pic"
fi

# ---- 4. the gateway: active, and the host reads /api/state through the forwarded port -------
listening() { journalctl -u "$G" -b --no-pager -o cat | grep -q 'listening on'; }
wait_true 60 is_active "$G"; wait_true 60 listening
g_act=$(systemctl is-active "$G") g_en=$(systemctl is-enabled "$G" 2>&1)
pin=$(roundclock-gateway --show-pin --config "$CONFIG" 2>> "$DETAILS")
printf 'PIN=%s\n' "$pin" > "$SHARE/gateway-ready.tmp" && mv "$SHARE/gateway-ready.tmp" "$SHARE/gateway-ready"
log "4: $G $g_act/$g_en; waiting for the host's curl"
wait_true 300 test -f "$SHARE/api-result"
API_LOGIN="" API_CODE="" API_STATE=""
[ -f "$SHARE/api-result" ] && . "$SHARE/api-result"
journalctl -u "$G" -b --no-pager -o short-monotonic >> "$DETAILS" 2>&1
log "4: host: login $API_LOGIN, /api/state $API_CODE, state '$API_STATE'"
if [ "$g_act" = active ] && [ "$g_en" = enabled ] && [ "$API_LOGIN" = 200 ] && [ "$API_CODE" = 200 ] &&
   [ "$API_STATE" = running ]; then
  pass 4 "$G active and enabled; from the host through qemu's hostfwd: POST /api/login 200, GET /api/state 200 with state running (the clock's, over its socket)"
else
  fail 4 "$G $g_act/$g_en; host: login '$API_LOGIN', /api/state '$API_CODE', state '$API_STATE'"
fi

# ---- 5. systemd-analyze verify of both installed units ---------------------------------------
# (--man=no: the minimal root has no man-db; the units' man pages are not what this checks)
verify=$(systemd-analyze verify --man=no "$U" "$G" 2>&1); v_rc=$?
log "5: systemd-analyze verify rc $v_rc: ${verify:-no output}"
if [ $v_rc = 0 ] && [ -z "$verify" ]; then
  pass 5 "systemd-analyze verify $U $G: exit 0, no warnings"
else
  fail 5 "systemd-analyze verify: rc $v_rc: $(printf '%s' "$verify" | tr '\n' ' ' | cut -c1-300)"
fi
