#!/bin/bash
# Runs inside the test VM (PID 1 = guest/init), chrooted into the host's read-only root;
# /tmp is a tmpfs, /tmp/work is the host's writable share (config.sh, helpers, results).
# Each check appends "PASS|FAIL|SKIP <id> <text>" to /tmp/work/results; the last line is END.
# Exit code: 0 if nothing failed.
set -u
W=/tmp/work
# shellcheck source=/dev/null
. "$W/config.sh"          # BINARY (may be empty), BINARY_NOTE, LIBGPIOD
RES=$W/results
ART=$W/artifacts
: > "$RES"
mkdir -p "$ART"
FAILS=0

# Under TCG every exec costs 0.3-1 s (binaries and libraries come over 9p), so the timed
# parts below use only bash builtins: $EPOCHREALTIME, read, echo, and snooze (read -t on a
# FIFO nobody writes) instead of date, cat, grep and sleep.
now() { echo "$EPOCHREALTIME"; }
us() { local t=${1/./}; echo $((10#$t)); }               # seconds.micros -> micros
secs() { local d=$(( $(us "$2") - $(us "$1") )) s=""; [ $d -lt 0 ] && { s=-; d=$((-d)); }; printf '%s%d.%02d' "$s" $((d / 1000000)) $((d % 1000000 / 10000)); }
mkfifo /tmp/snooze.fifo && exec {SNOOZE_FD}<>/tmp/snooze.fifo
snooze() { read -r -t "$1" -u "$SNOOZE_FD" _ || :; }
T0=$(now)
elapsed() { secs "$T0" "$(now)"; }
log() { echo "guest [$(elapsed)s]: $*"; }
result() {
  local status=$1 id=$2; shift 2
  echo "$status $id $*" >> "$RES"
  echo "==== $status $id $*"
  [ "$status" = FAIL ] && FAILS=$((FAILS + 1))
  return 0
}
pass() { result PASS "$@"; }
fail() { result FAIL "$@"; }
skip() { result SKIP "$@"; }
ok_if() { local rc=$1 id=$2; shift 2; if [ "$rc" -eq 0 ]; then pass "$id" "$@"; else fail "$id" "$*"; fi; }
indent() { sed 's/^/    /'; }
# i2c block read of display RAM at register 0x00 as 32 lower-case hex digits
read_ram() { local v; v=$(i2cget -y "$BUS" "$1" 0x00 i 16 2>/dev/null) || return 0; v=${v//0x/}; v=${v// /}; echo "${v,,}"; }
# last "ram" of a panel in a frames file (bash only: each exec is slow under TCG)
last_ram() {
  local line r=""
  [ -f "$1" ] || return 0
  while IFS= read -r line; do
    [[ $line == *"\"panel\": \"$2\""* && $line =~ \"ram\":\ \"([0-9a-fA-F]+)\" ]] && r=${BASH_REMATCH[1]}
  done < "$1"
  echo "${r,,}"
}

# the board file of the VM: the stub bus, the three panels, buttons and buzzer on gpio-sim
write_board() {
  cat > "$1" <<EOF
# Board of the test VM: i2c-stub and gpio-sim (written by Tests/kernel-vm/guest/guest-tests.sh)
name = "kernel-vm"
description = "qemu VM: i2c-stub at 0x70-0x72, gpio-sim lines GPIO17/27/22/18"

[i2c]
bus = $BUS

[[panels]]
role = "time"
kind = "seg7x4"
address = 0x70

[[panels]]
role = "round"
kind = "seg7x4"
address = 0x71

[[panels]]
role = "phase"
kind = "seg14x4"
address = 0x72

[buttons]
start = "GPIO17"
stop = "GPIO27"
mode = "GPIO22"
active_low = true
bias = "pull-up"

[buzzer]
line = "GPIO18"
EOF
}

log "kernel $(uname -r), libgpiod mode $LIBGPIOD, binary ${BINARY:-none}"

# ---------------------------------------------------------------------------------------
# a. kernel simulators: i2c-stub with three HT16K33 addresses, gpio-sim with named lines
# ---------------------------------------------------------------------------------------
BUS=""
if modprobe i2c-dev && modprobe i2c-stub chip_addr=0x70,0x71,0x72; then
  BUS=$(i2cdetect -l | awk -F'\t' '/SMBus stub driver/ { sub("i2c-", "", $1); print $1; exit }')
fi
if [ -n "$BUS" ]; then
  scan=$(i2cdetect -y "$BUS" 0x70 0x77 2>&1)
  echo "$scan" | indent
  echo "$scan" | grep -qE '^70: 70 71 72 -- -- -- -- --'
  ok_if $? a1 "i2c-stub chip_addr=0x70,0x71,0x72 on /dev/i2c-$BUS: i2cdetect sees exactly 0x70 0x71 0x72"
else
  fail a1 "i2c-stub did not load or its bus was not found (i2cdetect -l: $(i2cdetect -l 2>&1 | tr '\t\n' ' '))"
fi

SYS="" CHIP="" GPIOSIM_OK=1
C=/sys/kernel/config/gpio-sim/roundclock
modprobe configfs 2>/dev/null   # a module in Debian's kernel; gpio-sim needs it mounted
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
if ! modprobe gpio-sim; then
  GPIOSIM_OK=0
  fail a2 "modprobe gpio-sim failed (out-of-tree module missing from /lib/modules/$(uname -r)/extra?)"
else
  # bank0: an unnamed 8-line chip first, so that lookup by name has to search across chips;
  # bank1: a Pi-like 28-line header with the board's lines named at their BCM offsets.
  { mkdir "$C" "$C/bank0" "$C/bank1" &&
    echo 8 > "$C/bank0/num_lines" && echo vm-other > "$C/bank0/label" &&
    echo 28 > "$C/bank1/num_lines" && echo vm-pi-header > "$C/bank1/label" &&
    for n in 17 27 22 18; do mkdir "$C/bank1/line$n" && echo "GPIO$n" > "$C/bank1/line$n/name" || exit 1; done &&
    echo 1 > "$C/live"; } 2>&1 | indent
  if [ "$(cat "$C/live" 2>/dev/null)" = 1 ]; then
    CHIP=$(cat "$C/bank1/chip_name")
    SYS=/sys/devices/platform/$(cat "$C/dev_name")/$CHIP
    gpiodetect | indent
    [ -d "$SYS/sim_gpio17" ] && [ -d "$SYS/sim_gpio18" ]
    ok_if $? a2 "gpio-sim chip live via configfs: $CHIP (28 lines) after $(cat "$C/bank0/chip_name") (8 lines), sysfs $SYS"
  else
    GPIOSIM_OK=0
    fail a2 "gpio-sim configfs chip did not go live"
  fi
fi
if [ $GPIOSIM_OK = 1 ]; then
  a3=0
  for n in 17 27 22 18; do
    got=$(gpiofind "GPIO$n" 2>&1)
    echo "    gpiofind GPIO$n -> $got"
    [ "$got" = "$CHIP $n" ] || a3=1
    gpioinfo "$CHIP" | grep -qE "^[[:space:]]+line[[:space:]]+$n:[[:space:]]+\"GPIO$n\"" || { a3=1; echo "    gpioinfo $CHIP does not name line $n GPIO$n"; }
  done
  gpioinfo "$CHIP" | grep -E '"GPIO' | indent
  ok_if $a3 a3 "gpiofind/gpioinfo find GPIO17 GPIO27 GPIO22 GPIO18 by name on $CHIP"
  # idle state of the buttons: released (active-low: pull-up)
  for n in 17 27 22; do echo pull-up > "$SYS/sim_gpio$n/pull"; done
else
  fail a3 "no gpio-sim chip, so no named lines"
fi

# ---------------------------------------------------------------------------------------
# raw libgpiod / libi2c C checks (built on the host against libgpiod $LIBGPIOD and libi2c)
# ---------------------------------------------------------------------------------------
if [ $GPIOSIM_OK = 1 ]; then
  "$W/gpio_check" GPIO17 GPIO18 2>&1 | indent
  ok_if "${PIPESTATUS[0]}" r1 "libgpiod $LIBGPIOD C check: find by name, bias pull-up, active-low edges, output line"
  echo pull-up > "$SYS/sim_gpio17/pull"
else
  fail r1 "libgpiod $LIBGPIOD C check not run: no gpio-sim chip"
fi
if [ -n "$BUS" ]; then
  "$W/i2c_check" "/dev/i2c-$BUS" 0x70 0x71 0x72 2>&1 | indent
  ok_if "${PIPESTATUS[0]}" r2 "libi2c C check: HT16K33 commands and 16-byte RAM block write/read at 0x70 0x71 0x72"
else
  fail r2 "libi2c C check not run: no i2c-stub bus"
fi

# ---------------------------------------------------------------------------------------
# b. the roundclock binary in the VM: runs, probe
# ---------------------------------------------------------------------------------------
has_subcommand() { "$BINARY" help "$1" 2>/dev/null | grep -q "USAGE: roundclock $1"; }
HAVE_BIN=0
if [ -z "$BINARY" ]; then
  skip b1 "roundclock binary: none ($BINARY_NOTE)"
else
  missing=$(ldd "$BINARY" 2>&1 | grep 'not found')
  [ -n "$missing" ] && echo "$missing" | indent
  t=$(now)
  "$BINARY" --help > "$ART/help.txt" 2>&1
  rc=$?
  log "first start of the binary took $(secs "$t" "$(now)") s"
  if [ $rc -eq 0 ] && [ -z "$missing" ]; then
    HAVE_BIN=1
    pass b1 "roundclock runs in the VM (Swift runtime from the host's /opt/swift over 9p): $BINARY"
  else
    fail b1 "roundclock does not run in the VM (exit $rc): $(head -3 "$ART/help.txt" | tr '\n' ' ')"
  fi
fi

if [ $HAVE_BIN = 1 ] && has_subcommand probe; then
  if [ -z "$BUS" ] || [ $GPIOSIM_OK = 0 ]; then
    fail b2 "probe not run: simulators missing (see a1-a3)"
  else
    log "roundclock probe --bus $BUS"
    timeout 60 "$BINARY" probe --bus "$BUS" > "$ART/probe.txt" 2>&1
    rc=$?
    indent < "$ART/probe.txt"
    # addresses that answer; a range like "0x70-0x77" in a heading does not count
    found=$(sed 's/0x7[0-7] *[-–] *0x7[0-7]//g' "$ART/probe.txt" | grep -oiE '0x7[0-7]' | tr 'A-F' 'a-f' | sort -u | tr '\n' ' ')
    [ $rc -eq 0 ] && [ "$found" = "0x70 0x71 0x72 " ]
    ok_if $? b2 "roundclock probe --bus $BUS lists the HT16K33 chips 0x70 0x71 0x72 and no others (exit $rc, found: ${found:-none})"
    # the lines are listed for a board (probe --board): the VM's board file names them
    write_board /tmp/board.toml
    log "roundclock probe --bus $BUS --board /tmp/board.toml"
    timeout 60 "$BINARY" probe --bus "$BUS" --board /tmp/board.toml > "$ART/probe-board.txt" 2>&1
    rc=$?
    indent < "$ART/probe-board.txt"
    miss=""
    for n in GPIO17 GPIO27 GPIO22 GPIO18; do grep -qw "$n" "$ART/probe-board.txt" || miss="$miss $n"; done
    [ $rc -eq 0 ] && [ -z "$miss" ]
    ok_if $? b3 "roundclock probe --bus $BUS --board lists the gpio-sim lines GPIO17 GPIO27 GPIO22 GPIO18 (exit $rc${miss:+, missing:$miss})"
  fi
elif [ $HAVE_BIN = 1 ]; then
  skip b2 "roundclock has no 'probe' subcommand yet ('roundclock help probe' shows no USAGE for it)"
  skip b3 "roundclock has no 'probe' subcommand yet"
fi

# ---------------------------------------------------------------------------------------
# c. scripted session on the real kernel paths, compared with the simulator
# ---------------------------------------------------------------------------------------
if [ $HAVE_BIN = 1 ] && has_subcommand run; then
  if [ -z "$BUS" ] || [ $GPIOSIM_OK = 0 ]; then
    fail c1 "run not started: simulators missing (see a1-a3)"
  else
    write_board /tmp/board.toml
    cp /tmp/board.toml "$ART/board.toml"
    # power-up garbage in display RAM: the driver must clear it (i2c-stub starts zeroed)
    for a in 0x70 0x71 0x72; do
      i2cset -y "$BUS" $a 0x00 0xa5 0x5a 0xff 0x81 0x42 0x24 0x18 0xe7 0xa5 0x5a 0xff 0x81 0x42 0x24 0x18 0xe7 i
    done
    for n in 17 27 22; do echo pull-up > "$SYS/sim_gpio$n/pull"; done
    rm -f /tmp/run.jsonl
    # Hermetic service settings, if run has them (it became a service): a config of our own
    # instead of the host's /etc/roundclock/config.toml, keeping the last frame lit on exit
    # (the default "blank" would clear the RAM we compare), and a fresh state directory
    # instead of the host's read-only /var/lib/roundclock (no stale session restored).
    RUN_EXTRA=()
    help_run=$("$BINARY" help run 2>&1)
    if [[ $help_run == *--config* ]]; then
      printf '# kernel-VM test config\n[display]\non_shutdown = "last"\n' > /tmp/config.toml
      cp /tmp/config.toml "$ART/config.toml"
      RUN_EXTRA+=(--config /tmp/config.toml)
    fi
    if [[ $help_run == *--state-dir* ]]; then
      mkdir -p /tmp/roundclock-state
      RUN_EXTRA+=(--state-dir /tmp/roundclock-state)
    fi
    log "starting: roundclock run --board /tmp/board.toml --program countdown:0:05 --frames /tmp/run.jsonl --until 10 ${RUN_EXTRA[*]}"
    # debugfs lists requested GPIO lines with their consumers: readable with a builtin
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
    LAUNCH=$(now)
    timeout 60 "$BINARY" run --board /tmp/board.toml --program countdown:0:05 --frames /tmp/run.jsonl --until 10 \
      "${RUN_EXTRA[@]}" > "$ART/run.out" 2>&1 &
    RUN=$!
    # buzzer line sampler (information only)
    ( while kill -0 $RUN 2>/dev/null; do read -r v < "$SYS/sim_gpio18/value"; echo "$EPOCHREALTIME $v"; snooze 0.05; done ) > /tmp/buzzer.log 2>&1 &
    SAMPLER=$!
    # READY: the first time-panel frame is written and START's line is requested
    SEEN="" USED=0 frames="" START_USED='[(]GPIO17 *[|]roundclock'   # " gpio-529 (GPIO17   |roundclock-start) in hi ..."
    for _ in $(seq 600); do
      [ -f /tmp/run.jsonl ] && frames=$(< /tmp/run.jsonl)
      if [[ $frames == *'"panel": "time"'* ]]; then
        [ -n "$SEEN" ] || SEEN=$(now)
        [[ $(< /sys/kernel/debug/gpio) =~ $START_USED ]] && { USED=1; break; }
      fi
      kill -0 $RUN 2>/dev/null || break
      snooze 0.05
    done
    if [ -n "$SEEN" ] && [ $USED = 1 ]; then
      # press START at about t = 1 s of the run's own clock (the simulator's "1:start"):
      # its first frame has t = T1 and was written before SEEN, so t = 1 s comes at or
      # before SEEN + 1 - T1 (process start-up under TCG takes seconds before t = 0)
      T1=0.0
      [[ $frames =~ ^\{\"t\":\ ([0-9]+\.[0-9]+) ]] && T1=${BASH_REMATCH[1]}
      frac=${T1#*.}000000; T1=${T1%.*}.${frac:0:6}           # 6 decimals, like $EPOCHREALTIME
      wait_us=$(( $(us "$SEEN") + 1000000 - $(us "$T1") - $(us "$(now)") ))
      [ $wait_us -gt 0 ] && snooze "$((wait_us / 1000000)).$(printf '%06d' $((wait_us % 1000000)))"
      frames=$(< /tmp/run.jsonl)
      BEFORE=0
      [[ $frames == *'"state": "running"'* || $frames == *'"text": " 0:04"'* ]] && BEFORE=1
      PRESS=$(now)
      echo pull-down > "$SYS/sim_gpio17/pull"
      snooze 0.2
      echo pull-up > "$SYS/sim_gpio17/pull"
      pass c1 "run is up and READY $(secs "$LAUNCH" "$SEEN") s after launch: first frame written, GPIO17 requested"
      log "pressed START $(secs "$LAUNCH" "$PRESS") s after launch, $(secs "$SEEN" "$PRESS") s after READY was seen (held 0.2 s)"
      grep -E 'GPIO(17|27|22|18)' /sys/kernel/debug/gpio | indent
    else
      BEFORE=0 PRESS=""
      fail c1 "run did not reach READY within 30 s (first frame written: $([ -n "$SEEN" ] && echo yes || echo no), GPIO17 requested: $([ $USED = 1 ] && echo yes || echo no))"
    fi
    wait $RUN
    rc=$?
    kill $SAMPLER 2>/dev/null; wait $SAMPLER 2>/dev/null
    log "run exited $rc after $(secs "$LAUNCH" "$(now)") s; its output:"
    indent < "$ART/run.out"
    cp /tmp/run.jsonl "$ART/run.jsonl" 2>/dev/null
    cp /tmp/buzzer.log "$ART/buzzer.log" 2>/dev/null
    buzz="" prev="" n=0
    while read -r _ v; do
      if [ "$v" = "$prev" ]; then n=$((n + 1)); else [ -n "$prev" ] && buzz="$buzz $prev x$n,"; prev=$v n=1; fi
    done < /tmp/buzzer.log
    echo "    buzzer GPIO18 (sim value sampled every 50 ms):$buzz $prev x$n"
    errors=""
    while IFS= read -r line; do [[ ${line,,} == error:* || ${line,,} == *": error:"* ]] && errors="$errors${errors:+; }$line"; done < "$ART/run.out"
    if [ $rc -eq 0 ] && [ -z "$errors" ]; then pass c2 "run --until 10 exited 0 and logged no errors"
    elif [ $rc -eq 0 ]; then fail c2 "run --until 10 exited 0 but logged errors: $errors"
    elif [ $rc -eq 124 ]; then fail c2 "run --until 10 was still running after 60 s (killed by timeout)"
    else fail c2 "run --until 10 exited $rc"; fi

    # expected: the same script through the simulator (virtual time)
    timeout 60 "$BINARY" simulate --program countdown:0:05 --ready --events 1:start --virtual --frames /tmp/sim.jsonl --until 10 \
      > "$ART/simulate.out" 2>&1
    src=$?
    cp /tmp/sim.jsonl "$ART/sim.jsonl" 2>/dev/null
    [ $src -eq 0 ] || { echo "    simulate exited $src:"; indent < "$ART/simulate.out"; }
    declare -A ADDR=([time]=0x70 [round]=0x71 [phase]=0x72)
    i=3
    for p in time round phase; do
      got=$(read_ram "${ADDR[$p]}")
      want=$(last_ram /tmp/sim.jsonl $p)
      frames=$(last_ram /tmp/run.jsonl $p)
      echo "    $p ${ADDR[$p]}: i2c-stub $got"
      echo "    $p ${ADDR[$p]}: simulate $want"
      echo "    $p ${ADDR[$p]}: run frames $frames (last ram the run recorded; information)"
      [ -n "$want" ] && [ ${#got} -eq 32 ] && [ "$got" = "$want" ]
      ok_if $? c$i "final display RAM of the $p panel (${ADDR[$p]}) read from i2c-stub equals the simulator's (${want:-no simulator frame})"
      i=$((i + 1))
    done

    # the time panel: " 0:05" while READY, then " 0:04" ... " 0:00", first change after the press
    seq_texts="" last="" t0="" t4="" line=""
    while IFS= read -r line; do
      [[ $line == *'"panel": "time"'* && $line =~ ^\{\"t\":\ ([0-9]+\.[0-9]+),.*\"text\":\ \"([^\"]*)\" ]] || continue
      t=${BASH_REMATCH[1]} text=${BASH_REMATCH[2]}
      frac=${t#*.}000000; t=${t%.*}.${frac:0:6}
      echo "      t=$t \"$text\""
      [ -n "$t0" ] || t0=$t
      [ "$text" = " 0:04" ] && [ -z "$t4" ] && t4=$t
      [ "$text" != "$last" ] && seq_texts="$seq_texts$text|"
      last=$text
    done < "$( [ -f /tmp/run.jsonl ] && echo /tmp/run.jsonl || echo /dev/null)"
    echo "    time panel texts: $seq_texts"
    if [ -z "$PRESS" ]; then verdict="no press"
    elif [ "$BEFORE" != 0 ]; then verdict="the time panel changed before the press"
    elif [ -z "$t4" ]; then verdict="no \" 0:04\" frame"
    else
      # wall(t0) <= SEEN, so the change at t4 is after the press if t4 - t0 >= PRESS - SEEN + 1 s
      pt=$(( $(us "$t0") + $(us "$PRESS") - $(us "$SEEN") ))            # press on the run's clock, at least
      pt=$((pt / 1000000)).$(printf '%06d' $((pt % 1000000)))
      if [ $(( $(us "$t4") - $(us "$pt") )) -ge 980000 ]; then
        verdict="ok: first change at t=$t4 s, >= press (t >= $pt) + 1 s"
      else
        verdict="first change at t=$t4 s, but the press was at t >= $pt, so it came less than 1 s after the press"
      fi
    fi
    echo "    $verdict"
    [ "$seq_texts" = " 0:05| 0:04| 0:03| 0:02| 0:01| 0:00|" ] && [ "${verdict#ok}" != "$verdict" ]
    ok_if $? c6 "run frames: time panel \" 0:05\" -> \" 0:04\" ... \" 0:00\", first change after the START press (${verdict})"
  fi
elif [ $HAVE_BIN = 1 ]; then
  skip c1 "roundclock has no 'run' subcommand yet ('roundclock help run' shows no USAGE for it): scripted session skipped"
fi

# ---------------------------------------------------------------------------------------
# d. button latency on real kernel edges: gpio-sim line -> libgpiod edge event with its
#    kernel timestamp -> ButtonReader thread -> render loop -> display commit
# ---------------------------------------------------------------------------------------
if [ $HAVE_BIN = 1 ] && "$BINARY" bench buttons --help 2>/dev/null | grep -q -- "--gpio-sim"; then
  if [ $GPIOSIM_OK = 0 ]; then
    fail d1 "bench buttons --gpio-sim not run: no gpio-sim chip (see a2)"
  else
    for n in 17 27 22; do echo pull-up > "$SYS/sim_gpio$n/pull"; done
    log "roundclock bench buttons --presses 40 --gpio-sim $SYS"
    timeout 180 "$BINARY" bench buttons --presses 40 --gpio-sim "$SYS" --start-line 17 --stop-line 27 \
      > "$ART/bench-buttons-gpio-sim.txt" 2>&1
    rc=$?
    indent < "$ART/bench-buttons-gpio-sim.txt"
    summary=$(grep -m1 "^buttons: 40 presses on gpio-sim $CHIP lines 27 (STOP), 17 (START), kernel edge timestamps, event instant -> display commit: p50 " "$ART/bench-buttons-gpio-sim.txt")
    [ $rc -eq 0 ] && [ -n "$summary" ] && grep -q "kernel edge timestamp -> posted by the reader thread: p50" "$ART/bench-buttons-gpio-sim.txt"
    ok_if $? d1 "bench buttons on real edges: 40 gpio-sim presses, each read with its kernel timestamp and shown (exit $rc; ${summary#*display commit: })"
  fi
elif [ $HAVE_BIN = 1 ]; then
  skip d1 "roundclock bench buttons has no --gpio-sim yet"
fi

if [ $FAILS -gt 0 ]; then
  echo "guest: kernel log (last 25 lines):"
  dmesg | tail -25 | indent
fi
log "done, $FAILS failed"
echo END >> "$RES"
sync
[ $FAILS -eq 0 ]
