#!/bin/bash
# The service's nine checks, the phone remote's two (10 and 11) and the man pages' one
# (gateway-checks.sh), the speaker's (13, sound-checks.sh) and the card's (14,
# card-checks.sh), run by vm-checks.service
# inside the system VM, as root, under the VM's own systemd. Boot 1: install, checks 1-8 up
# to the reboot; boot 2: the rest of 8, then 9, 10, 11, 12 and 13. Each check writes
# "PASS n text" or "FAIL n text" to /mnt/share/results; the details go to
# /mnt/share/details. See ../README.md.
set -u
SHARE=/mnt/share
. "$SHARE/config.sh"            # DEB UPGRADE_DEB VERSION UPGRADE_VERSION GATEWAY_DEB BENCH
PHASE_FILE=/var/lib/vm-checks/phase
mkdir -p /var/lib/vm-checks
RESULTS=$SHARE/results DETAILS=$SHARE/details
U=roundclock.service STATE=/var/lib/roundclock/state CONFIG=/etc/roundclock/config.toml

log() { echo "[$(cut -d' ' -f1 /proc/uptime)s] $*" | tee -a "$DETAILS" > /dev/console; }
result() { echo "$1 $2 $3" | tee -a "$RESULTS" >> "$DETAILS"; echo "$1 $2 $3" > /dev/console; }
pass() { result PASS "$1" "$2"; }
fail() { result FAIL "$1" "$2"; }
REBOOTING=0
finish() { trap - EXIT; log "checks done (phase $(cat "$PHASE_FILE" 2>/dev/null))"; sync; systemctl poweroff; exit 0; }
trap '[ $REBOOTING = 1 ] || { log "system-checks.sh ended early (line $LINENO)"; finish; }' EXIT
# snooze SECONDS: a pause without exec (read -t on a FIFO nobody writes), so that the checks'
# waiting costs the emulated CPUs nothing while the service starts
mkfifo /run/vm-checks-snooze 2>/dev/null; exec {SNOOZE_FD}<> /run/vm-checks-snooze
snooze() { read -r -t "$1" -u "$SNOOZE_FD" _ || true; }
# main_pid: the service's process, from its cgroup with a builtin read (0 if none)
main_pid() { local p=0; [ -r /sys/fs/cgroup/system.slice/roundclock.service/cgroup.procs ] && read -r p < /sys/fs/cgroup/system.slice/roundclock.service/cgroup.procs; echo "${p:-0}"; }
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }
prop() { systemctl show -p "$1" --value "$U"; }

. /run/vm-sim.env                # BUS SYS (vm-sim-setup)

# ---- pictures: what the simulator of the same binary shows, per panel ----------------------
# BYSEC[s]: the time panel's frames with t in [s, s+1) seconds, as "t:ram:text" words
declare -a BYSEC ; declare -A READY
while IFS='|' read -r t panel text state ram; do
  if [ "$panel" = time ]; then t=$((10#$t)); BYSEC[t / 1000]+="$t:$ram:${text// /_} "; fi
  [ -z "${READY[$panel]:-}" ] && [ "$state" = ready ] && READY[$panel]=$ram
done < "$SHARE/pictures.txt"
read_ram() { local v; v=$(i2cget -y "$BUS" "$1" 0x00 i 16 2>/dev/null) || { echo unreadable; return; }; v=${v//0x/}; v=${v// /}; echo "${v,,}"; }
anchor_us() { local a; a=$(sed -n 's/^anchor_realtime_ns=//p' "$STATE" 2>/dev/null); [ -n "$a" ] && echo $((a / 1000)); }
state_of() { sed -n 's/^state=//p' "$STATE" 2>/dev/null; }
# time_ok: the time panel shows what the simulator shows for the round's own time, taken
# from the saved anchor (START was pressed at t = 1 s of the simulation). The RAM is read
# between two clock readings; any picture of that interval (widened by 150 ms for the
# i2cget under TCG) is right.
TIME_SEEN="" TIME_WANT="" TIME_TEXT=""
time_ok() {
  local anchor=$1 t0 t1 ram lo hi s e r want="" before=""
  t0=$(now_us); ram=$(read_ram 0x70); t1=$(now_us)
  lo=$(( (t0 - anchor) / 1000 + 1000 - 150 )); hi=$(( (t1 - anchor) / 1000 + 1000 + 150 ))
  # the last frame at or before lo (searching back at most a minute), then those up to hi
  for ((s = lo / 1000; s >= 0 && s > lo / 1000 - 60; s--)); do
    for e in ${BYSEC[s]:-}; do [ "${e%%:*}" -le "$lo" ] && before=$e; done
    [ -n "$before" ] && break
  done
  want=$before
  for ((s = lo / 1000; s <= hi / 1000; s++)); do
    for e in ${BYSEC[s]:-}; do [ "${e%%:*}" -gt "$lo" ] && [ "${e%%:*}" -le "$hi" ] && want="$want $e"; done
  done
  TIME_SEEN=$ram TIME_WANT=$want TIME_TEXT=""
  for e in $want; do r=${e#*:}; r=${r%%:*}; [ "$r" = "$ram" ] && TIME_TEXT="'${e##*:}'" && return 0; done
  return 1
}
# wait_true SECONDS COMMAND...: until COMMAND succeeds (every 0.2 s), false at the deadline
wait_true() { local end=$(( $(now_us) + $1 * 1000000 )); shift; until "$@"; do [ "$(now_us)" -gt "$end" ] && return 1; snooze 0.2; done; }
active() { [ "$(systemctl is-active "$U")" = active ]; }
pid_changed() { local p; p=$(prop MainPID); [ "$p" != 0 ] && [ "$p" != "$1" ]; }
# shows_true_second ANCHOR SECONDS: polls until the time panel is right; sets SHOWN_AT (µs)
shows_true_second() { local end=$(( $(now_us) + $2 * 1000000 )); while :; do time_ok "$1" && { SHOWN_AT=$(now_us); return 0; }; [ "$(now_us)" -gt "$end" ] && return 1; done; }
secs() { printf '%d.%03d s' $(( $1 / 1000000 )) $(( ($1 % 1000000) / 1000 )); }

PHASE=$(cat "$PHASE_FILE" 2>/dev/null || echo 1)
log "system-checks phase $PHASE, boot $(cat /proc/sys/kernel/random/boot_id), kernel $(uname -r), bus $BUS, gpio-sim $SYS"

if [ "$PHASE" = 1 ]; then
  : > "$RESULTS"
  # ---- 1. install: enabled, active, READY with the picture, user and groups, chips' RAM ----
  log "apt install $DEB"
  if ! apt-get install -y "$DEB" >> "$DETAILS" 2>&1; then
    fail 1 "apt install ./$(basename "$DEB") failed (see details)"; echo 9 > "$PHASE_FILE"; finish
  fi
  wait_true 60 active
  enabled=$(systemctl is-enabled "$U" 2>&1) act=$(systemctl is-active "$U" 2>&1)
  status=$(prop StatusText) pid=$(prop MainPID)
  uid=$(id -u roundclock 2>/dev/null) gid=$(id -g roundclock 2>/dev/null)
  i2c=$(getent group i2c | cut -d: -f3) gpio=$(getent group gpio | cut -d: -f3) remote=$(getent group roundclock-remote | cut -d: -f3)
  audio=$(getent group audio | cut -d: -f3)
  puid=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' /proc/"$pid"/status 2>/dev/null)
  pgid=$(awk '/^Gid:/ { print $2, $3, $4, $5 }' /proc/"$pid"/status 2>/dev/null)
  pgroups=$(awk '/^Groups:/ { $1 = ""; print }' /proc/"$pid"/status 2>/dev/null | xargs -n1 | sort -n | xargs)
  # its own group roundclock (systemd adds the user's groups from getgrouplist) and the unit's
  # SupplementaryGroups=i2c gpio audio and roundclock-remote (the control socket's group); nothing else
  wgroups=$(printf '%s\n' "$gid" "$i2c" "$gpio" "$audio" "$remote" | sort -n | xargs)
  ram_ok=1 rams=""
  for a in 0x70:time 0x71:round 0x72:phase; do
    r=$(read_ram "${a%%:*}"); rams="$rams ${a#*:}=$r"
    [ "$r" = "${READY[${a#*:}]}" ] || ram_ok=0
  done
  v=$(roundclock --version 2>&1)
  log "1: memory of the service: $(awk '/^Vm(RSS|HWM)/ { printf "%s %s kB ", $1, $2 }' /proc/"$pid"/status)"
  log "1: enabled=$enabled active=$act StatusText='$status' pid=$pid Uid=$puid Gid=$pgid Groups=$pgroups (want roundclock,i2c,gpio,audio,roundclock-remote = $wgroups) RAM:$rams ready pictures: time=${READY[time]} round=${READY[round]} phase=${READY[phase]} version=$v"
  journalctl -u "$U" -b --no-pager -o short-monotonic >> "$DETAILS" 2>&1
  if [ "$enabled" = enabled ] && [ "$act" = active ] && [[ $status == showing*"(ready)"* ]] &&
     [ "$puid" = "$uid $uid $uid $uid" ] && [ "$pgid" = "$gid $gid $gid $gid" ] && [ "$uid" != 0 ] &&
     [ "$pgroups" = "$wgroups" ] && [ $ram_ok = 1 ] && [ "$v" = "$VERSION" ]; then
    pass 1 "installed $VERSION: enabled, active, READY with STATUS '$status', runs as roundclock (uid $uid) with the groups roundclock, i2c, gpio and roundclock-remote only, chips 0x70-0x72 hold the ready picture"
  else
    fail 1 "after install: enabled=$enabled active=$act STATUS='$status' Uid=$puid Gid=$pgid Groups='$pgroups' (want '$wgroups') ready RAM $([ $ram_ok = 1 ] && echo right || echo wrong:$rams) --version '$v'"
  fi

  # ---- 2. START on the gpio-sim line: the session runs, the RAM counts down -----------------
  press=$(now_us)
  echo pull-down > "$SYS/sim_gpio17/pull"; snooze 0.2; echo pull-up > "$SYS/sim_gpio17/pull"
  wait_true 10 bash -c "grep -q '^state=running' $STATE"
  ANCHOR=$(anchor_us)
  if [ -z "$ANCHOR" ]; then
    fail 2 "no running session in $STATE after the START press"
  else
    off=$(( ANCHOR - press )); good=0 bad=""
    seen=()
    for i in 1 2 3 4 5 6; do
      if time_ok "$ANCHOR"; then good=$((good + 1)); seen+=("${TIME_TEXT//_/ }"); else bad="$bad [$TIME_SEEN, want one of:$TIME_WANT]"; fi
      snooze 0.9
    done
    log "2: press at $press us, anchor $ANCHOR us (anchor - press = $((off / 1000)) ms); pictures seen: ${seen[*]}; wrong:$bad"
    if [ $good = 6 ] && [ $off -gt -500000 ] && [ $off -lt 1500000 ]; then
      pass 2 "START by gpio-sim pull: session running, anchor $((off / 1000)) ms after the press, 6 of 6 time-panel RAM reads over 6 s match the simulator's countdown at the round's time"
    else
      fail 2 "START: anchor - press = $((off / 1000)) ms, $good of 6 reads right;$bad"
    fi
  fi

  # ---- 3. kill -9 mid-round: systemd restarts it, the panels show the true second -----------
  # The service sends READY=1 after its first display commit, i.e. with the restored picture on
  # the panels, so systemd's own stamps give the time from the new process's start to that
  # picture: ActiveEnterTimestampMonotonic - ExecMainStartTimestampMonotonic. The RAM read
  # afterwards proves the picture is the true second.
  pid=$(prop MainPID) n0=$(prop NRestarts)
  read -r up _ < /proc/uptime; killed_mono=$(( ${up/./} * 10000 ))
  systemctl kill -s KILL "$U"
  # no exec while systemd restarts it: the new process in the cgroup, then 6 s of quiet
  for ((i = 0; i < 150; i++)); do snooze 0.2; p=$(main_pid); [ "$p" != 0 ] && [ "$p" != "$pid" ] && break; done
  snooze 6
  if wait_true 30 pid_changed "$pid" && wait_true 30 active && shows_true_second "$ANCHOR" 20; then
    start_mono=$(prop ExecMainStartTimestampMonotonic) ready_mono=$(prop ActiveEnterTimestampMonotonic)
    journalctl -u "$U" -b --no-pager -o short-monotonic | tail -12 >> "$DETAILS"
    log "3: kill at monotonic $killed_mono us (/proc/uptime), new process started +$(secs $((start_mono - killed_mono))), READY (picture on the panels) $(secs $((ready_mono - start_mono))) after its start, +$(secs $((ready_mono - killed_mono))) after the kill; RAM read right: $TIME_TEXT; NRestarts $n0 -> $(prop NRestarts)"
    if [ $((ready_mono - start_mono)) -le 3000000 ] && [ "$(prop NRestarts)" -gt "$n0" ]; then
      pass 3 "kill -9: restarted by systemd, the true second ($TIME_TEXT) on the panels $(secs $((ready_mono - start_mono))) after the new process started ($(secs $((ready_mono - killed_mono))) after the kill, RestartSec=2s included)"
    else
      fail 3 "kill -9: the true second ($TIME_TEXT) on the panels $(secs $((ready_mono - start_mono))) after the new process started (limit 3 s; $(secs $((ready_mono - killed_mono))) after the kill), NRestarts $n0 -> $(prop NRestarts)"
    fi
  else
    fail 3 "kill -9: no restart, or the time panel not right within 20 s (seen $TIME_SEEN, want one of:$TIME_WANT)"
  fi

  # ---- 4. watchdog: SIGSTOP; systemd kills and restarts it after WatchdogSec ---------------
  pid=$(prop MainPID) n0=$(prop NRestarts)
  stopped=$(now_us); kill -STOP "$pid"
  if wait_true 60 pid_changed "$pid" && shows_true_second "$ANCHOR" 20; then
    journalctl -u "$U" -b --no-pager -o short-monotonic | tail -12 >> "$DETAILS"
    wd=$(journalctl -u "$U" -b --no-pager -o cat | grep -c 'Watchdog timeout')
    log "4: SIGSTOP at $stopped, restart after $(secs $(( $(date -d "$(prop ExecMainStartTimestamp)" +%s%6N) - stopped ))), round resumed at +$(secs $((SHOWN_AT - stopped))); 'Watchdog timeout' lines: $wd"
    if [ "$wd" -ge 1 ]; then
      pass 4 "watchdog: frozen process killed after WatchdogSec=10s and restarted, round resumed $(secs $((SHOWN_AT - stopped))) after the freeze"
    else
      fail 4 "restarted, but systemd logged no watchdog timeout"
    fi
  else
    fail 4 "watchdog: no restart within 60 s of SIGSTOP, or the round not resumed"
    kill -CONT "$pid" 2>/dev/null
  fi

  # ---- 5. a bad config: exit 78, the key logged, not restarted; fixed, it recovers -----------
  systemctl reset-failed "$U"          # the start limit (5 in 120 s) is not what this checks
  cp "$CONFIG" /root/config.good
  sed -i 's/^day = 15$/day = 16/' "$CONFIG"
  systemctl restart "$U" >> "$DETAILS" 2>&1
  wait_true 20 bash -c "[ \"\$(systemctl is-active $U)\" = failed ]"
  n0=$(prop NRestarts) st=$(prop ExecMainStatus) res=$(prop Result)
  snooze 6                   # 3 x RestartSec: a restart would have happened by now
  n1=$(prop NRestarts) act=$(systemctl is-active "$U")
  line=$(journalctl -u "$U" -b --no-pager -o cat | grep -m1 'brightness.day')
  cp /root/config.good "$CONFIG"
  systemctl restart "$U" >> "$DETAILS" 2>&1
  log "5: bad config: status $st result $res, NRestarts $n0 -> $n1 after 6 s, state $act; logged: $line"
  if [ "$st" = 78 ] && [ "$n1" = "$n0" ] && [ "$act" = failed ] && [ -n "$line" ] && active && shows_true_second "$ANCHOR" 20; then
    pass 5 "bad config: exit 78, '$line' in the journal, not restarted; fixed and 'systemctl restart': active, the round still running"
  else
    fail 5 "bad config: exit $st, NRestarts $n0 -> $n1, state $act, logged '$line', recovered: $(systemctl is-active "$U")"
  fi

  # ---- 6. journal: each line at its priority, nothing per second ----------------------------
  # A warning of the service's own: a damaged state file is set aside with one warning
  # (docs/service.md, "A round survives restarts and reboots"). The running session is kept aside meanwhile and put back.
  systemctl stop "$U"; cp -p "$STATE" /root/state.good
  echo 'not a state file' > "$STATE"
  systemctl reset-failed "$U"; systemctl start "$U"; wait_true 30 active
  systemctl stop "$U"; cp -p /root/state.good "$STATE"
  healthy() { journalctl -u "$U" -b --no-pager -o cat _COMM=roundclock | grep -c 'render loop healthy' || true; }
  h0=$(healthy)
  systemctl start "$U"; wait_true 30 active
  # Nothing per second: with the round running again and its start-up logged (the watchdog
  # feeder's "healthy" line comes last), the service's own lines over a steady 15 s window
  # (one line per second would be ~15; a phase change may log one).
  shows_true_second "$ANCHOR" 20 || true
  wait_true 60 test "$(healthy)" -gt "$h0" || log "6: no 'render loop healthy' line after the start"
  since=$(( $(now_us) / 1000000 )); snooze 15
  steady=$(journalctl -u "$U" -b --no-pager -o cat _COMM=roundclock --since "@$since" | grep -vc 'Failed to set thread priority' || true)
  j() { journalctl -u "$U" -b --no-pager -o cat _COMM=roundclock "$@"; }
  for p in 0 1 2 3 4 5 6 7; do j -p "$p..$p" | sed "s/^/    priority $p: /"; done >> "$DETAILS"
  warn=$(j -p warning) all=$(j | wc -l) info=$(( $(j -p info | wc -l) - $(j -p warning | wc -l) ))
  err_config=$(j -p err..err | grep -c 'brightness.day')
  warn_state=$(j -p warning..warning | grep -c 'set aside as')
  info_in_warn=$(printf '%s\n' "$warn" | grep -c 'running boxing on board')
  dispatch=$(j | grep -c 'Failed to set thread priority')
  first=$(journalctl -u "$U" -b --no-pager -o short-unix | awk 'NR == 1 { print int($1) }')
  up=$(( $(now_us) / 1000000 - first ))
  log "6: $all lines from roundclock in $up s (of them $dispatch from libdispatch: 'Failed to set thread priority'); -p warning: $(printf '%s\n' "$warn" | grep -c .) lines; info lines hidden by it: $info; config error at err: $err_config; damaged state at warning: $warn_state; info lines in -p warning: $info_in_warn"
  # The lines logged at each start (libdispatch's counted apart) depend on how many starts
  # the checks made; "nothing per second" is judged on the steady window alone.
  own=$((all - dispatch))
  log "6: $steady lines of the service's own in a steady 15 s window with the round running"
  if [ "$err_config" -ge 1 ] && [ "$warn_state" -ge 1 ] && [ "$info" -ge 1 ] && [ "$info_in_warn" = 0 ] && [ "$steady" -le 3 ]; then
    pass 6 "journal: -p warning shows the damaged-state warning (priority 4) and the config error (3) and hides $info info lines; $steady lines in a steady 15 s of running, nothing per second ($own of the service's own in $up s with its starts, + $dispatch of libdispatch's at starts)"
  else
    fail 6 "journal: config error at err: $err_config, damaged state at warning: $warn_state, info hidden: $info, info shown at warning: $info_in_warn, $steady lines in a steady 15 s window, $all lines ($dispatch of libdispatch's) in $up s"
  fi
  active && shows_true_second "$ANCHOR" 20 || log "6: the round was not shown right after putting the session back"

  # ---- 7. systemd-analyze security (online) <= 2.0; the sandbox holds -----------------------
  exposure=$(systemd-analyze security "$U" 2>&1 | sed -n 's/.*Overall exposure level for roundclock.service: \([0-9.]*\).*/\1/p')
  mkdir -p /run/systemd/system/$U.d
  printf '[Service]\nExecStartPost=/bin/bash %s/sandbox-probe.sh\n' "$SHARE" > /run/systemd/system/$U.d/50-vm-sandbox-probe.conf
  systemctl daemon-reload; systemctl reset-failed "$U"; systemctl restart "$U"
  probe=$(journalctl -u "$U" -b --no-pager -o cat | grep '^sandbox-probe:' | tail -20)
  rm -r /run/systemd/system/$U.d; systemctl daemon-reload
  log "7: exposure $exposure; probe (ExecStartPost= in the unit's sandbox):"; printf '%s\n' "$probe" | sed 's/^/    /' | tee -a "$DETAILS" > /dev/console
  leaks=$(printf '%s\n' "$probe" | grep -c 'ALLOWED' || true)
  if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' && [ "$leaks" = 0 ] &&
     printf '%s\n' "$probe" | grep -q 'sandbox-probe: done' && printf '%s\n' "$probe" | grep -q 'state directory: writable'; then
    pass 7 "systemd-analyze security roundclock: $exposure (<= 2.0); in the unit's sandbox /etc/shadow, writes outside /var/lib/roundclock and AF_INET/AF_INET6 sockets (TCP, UDP) are refused"
  else
    fail 7 "exposure '$exposure', $leaks sandbox leaks (see details)"
  fi
  active && shows_true_second "$ANCHOR" 20 || log "7: the round was not shown right after the probe's restart"

  # ---- 8a. stop: panels blank, state saved (the same anchor: each save maps it through
  # CLOCK_BOOTTIME again, so it may move by microseconds; 5 ms as in Tests/kernel-vm e2); reboot -------------------------------------
  systemctl stop "$U"
  blank=1; for a in 0x70 0x71 0x72; do [ "$(read_ram $a)" = 00000000000000000000000000000000 ] || blank=0; done
  saved=$(state_of) anchor_after=$(anchor_us)
  log "8a: after stop: RAM blank=$blank, state=$saved, anchor $anchor_after (before: $ANCHOR)"
  printf 'BLANK=%s\nSAVED=%s\nANCHOR=%s\nANCHOR_AFTER=%s\nBOOT1=%s\n' "$blank" "$saved" "$ANCHOR" "$anchor_after" \
    "$(cat /proc/sys/kernel/random/boot_id)" > /var/lib/vm-checks/boot1.env
  echo 2 > "$PHASE_FILE"; sync
  log "rebooting"
  REBOOTING=1
  systemctl reboot
  exit 0
fi

if [ "$PHASE" = 2 ]; then
  . /var/lib/vm-checks/boot1.env
  # ---- 8b. after the reboot: the round resumes by wall time ----------------------------------
  wait_true 60 active
  if [ "$BOOT1" != "$(cat /proc/sys/kernel/random/boot_id)" ] && [ "$BLANK" = 1 ] && [ "$SAVED" = running ] &&
     [ -n "$ANCHOR_AFTER" ] && [ $(( ANCHOR_AFTER - ANCHOR )) -le 5000 ] && [ $(( ANCHOR - ANCHOR_AFTER )) -le 5000 ] &&
     active && shows_true_second "$ANCHOR" 30; then
    how=$(journalctl -u "$U" -b --no-pager -o cat | grep -m1 -i 'resum\|restor')
    pass 8 "stop: RAM of 0x70-0x72 all zero, running session saved; after the reboot (synchronized marker present) the round resumed by wall time ('$how')"
  else
    fail 8 "stop/reboot: blank=$BLANK saved=$SAVED anchor $ANCHOR_AFTER vs $ANCHOR, new boot: $([ "$BOOT1" != "$(cat /proc/sys/kernel/random/boot_id)" ] && echo yes || echo no), active: $(systemctl is-active "$U"), time panel $TIME_SEEN want one of:$TIME_WANT"
    journalctl -u "$U" -b --no-pager -o short-monotonic >> "$DETAILS" 2>&1
  fi

  log "8: memory of the service after the reboot, running: $(awk '/^Vm(RSS|HWM)/ { printf "%s %s kB ", $1, $2 }' /proc/"$(prop MainPID)"/status)"
  # ---- 9. upgrade keeps the edited config and the session; purge removes everything ---------
  sed -i 's/^day = 15$/day = 14/' "$CONFIG"; echo '# edited by the system VM test' >> "$CONFIG"
  sum=$(md5sum < "$CONFIG"); pid=$(prop MainPID)
  apt-get install -y "$UPGRADE_DEB" >> "$DETAILS" 2>&1; up_rc=$?
  wait_true 30 active
  ver=$(dpkg-query -W -f='${Version}' roundclock) bin=$(roundclock --version 2>&1) newpid=$(prop MainPID)
  kept=0; [ "$(md5sum < "$CONFIG")" = "$sum" ] && kept=1
  shows_true_second "$ANCHOR" 20; survived=$?
  log "9a: upgrade rc $up_rc, version $ver, --version $bin, config kept=$kept, MainPID $pid -> $newpid, round shown right: $([ $survived = 0 ] && echo yes || echo no)"
  apt-get purge -y roundclock >> "$DETAILS" 2>&1; purge_rc=$?
  left=""
  for f in /usr/bin/roundclock /usr/lib/systemd/system/roundclock.service /etc/systemd/system/multi-user.target.wants/roundclock.service \
           /etc/roundclock /var/lib/roundclock /usr/share/roundclock /usr/lib/sysusers.d/roundclock.conf /usr/lib/udev/rules.d/60-roundclock.rules \
           /usr/lib/systemd/system/roundclock-card.service /var/lib/roundclock-card; do
    [ -e "$f" ] && left="$left $f"
  done
  unit=$(systemctl list-unit-files "$U" --no-legend 2>&1 | grep -c roundclock)
  blank=1; for a in 0x70 0x71 0x72; do [ "$(read_ram $a)" = 00000000000000000000000000000000 ] || blank=0; done
  user=$(getent passwd roundclock | cut -d: -f1,3,7)
  log "9b: purge rc $purge_rc, left:${left:- nothing}, unit files: $unit, RAM blank=$blank, user: ${user:-removed}"
  if [ $up_rc = 0 ] && [ "$ver" = "$UPGRADE_VERSION" ] && [ "$bin" = "$UPGRADE_VERSION" ] && [ $kept = 1 ] &&
     [ "$newpid" != "$pid" ] && [ $survived = 0 ] && [ $purge_rc = 0 ] && [ -z "$left" ] && [ "$unit" = 0 ] && [ $blank = 1 ]; then
    pass 9 "upgrade $VERSION -> $ver: edited config kept, service restarted with the session running; purge: unit, files and state gone, panels blank, user kept (${user})"
  else
    fail 9 "upgrade rc $up_rc to '$ver' (--version '$bin'), config kept=$kept, restarted $pid -> $newpid, session shown: $survived; purge rc $purge_rc, left:$left, unit files $unit, blank $blank"
  fi
  # ---- 10, 11. the phone remote: both packages, the page drives the clock; 12. the man pages
  # of both (gateway-checks.sh)
  . "$SHARE/gateway-checks.sh"
  # ---- 13. the speaker: the service plays into ALSA's loopback card (sound-checks.sh)
  . "$SHARE/sound-checks.sh"
  # ---- 14. the card's roundclock.toml: refused and shown, then applied (card-checks.sh)
  . "$SHARE/card-checks.sh"
  echo 9 > "$PHASE_FILE"
fi
finish
