#!/bin/bash
# Runs inside the test VM (PID 1 = guest/init), chrooted into the host's read-only root;
# /tmp is a tmpfs, /tmp/work is the host's writable share (config.sh, helpers, results).
# Each check appends "PASS|FAIL|SKIP <id> <text>" to /tmp/work/results; the last line is END.
# Exit code: 0 if nothing failed.
set -u
W=/tmp/work
# shellcheck source=/dev/null
. "$W/config.sh"          # BINARY (may be empty), BINARY_NOTE, BENCH_BINARY (may be empty), LIBGPIOD
RES=$W/results
ART=$W/artifacts
: > "$RES"
mkdir -p "$ART"
FAILS=0

# Under TCG every exec is slow (binaries and libraries come over 9p), so the timed
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
  wanted "$id" || { echo "(not reported in this run: $status $id $*)"; return 0; }
  echo "$status $id $*" >> "$RES"
  echo "==== $status $id $*"
  [ "$status" = FAIL ] && FAILS=$((FAILS + 1))
  return 0
}
# CHECKS=libgpiod (config.sh): only the checks that depend on the libgpiod API the binary was
# built against (the list in Tests/kernel-vm/checks); the others ran in the libgpiod v1 run
# already. Their set-up still runs.
LIBGPIOD_CHECKS=" $(sed -n 's/^libgpiod: //p' "$W/checks") "
wanted() { [ "${CHECKS:-all}" = all ] || [[ $LIBGPIOD_CHECKS == *" $1 "* ]]; }
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

# the board file of the VM: boards/simulator.toml (the built-in board, copied into the share by
# run-vm-tests.sh) on the stub's bus, with the buzzer, stack light and horn on gpio-sim
write_board() {
  sed "s/^bus = .*/bus = $BUS/" "$W/simulator.toml" > "$1"
  cat >> "$1" <<EOF

[buzzer]
line = "GPIO18"

[lights]
work = "GPIO23"
rest = "GPIO24"
warn = "GPIO25"
active_low = false

[horn]
line = "GPIO26"
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
# the named header lines: buttons 17 27 22, buzzer 18, stack light 23 24 25, horn 26
SIM_LINES="17 27 22 18 23 24 25 26"
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
    for n in $SIM_LINES; do mkdir "$C/bank1/line$n" && echo "GPIO$n" > "$C/bank1/line$n/name" || exit 1; done &&
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
  for n in $SIM_LINES; do
    got=$(gpiofind "GPIO$n" 2>&1)
    echo "    gpiofind GPIO$n -> $got"
    [ "$got" = "$CHIP $n" ] || a3=1
    gpioinfo "$CHIP" | grep -qE "^[[:space:]]+line[[:space:]]+$n:[[:space:]]+\"GPIO$n\"" || { a3=1; echo "    gpioinfo $CHIP does not name line $n GPIO$n"; }
  done
  gpioinfo "$CHIP" | grep -E '"GPIO' | indent
  ok_if $a3 a3 "gpiofind/gpioinfo find GPIO17 GPIO27 GPIO22 GPIO18 GPIO23 GPIO24 GPIO25 GPIO26 by name on $CHIP"
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

if [ $HAVE_BIN = 1 ]; then
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
    for n in $SIM_LINES; do grep -qw "GPIO$n" "$ART/probe-board.txt" || miss="$miss GPIO$n"; done
    for role in light-work light-rest light-warn horn; do grep -q "^  $role: GPIO" "$ART/probe-board.txt" || miss="$miss $role"; done
    [ $rc -eq 0 ] && [ -z "$miss" ]
    ok_if $? b3 "roundclock probe --bus $BUS --board lists the lines of the buttons and the buzzer, the stack light's GPIO23-25 and the horn's GPIO26 (exit $rc${miss:+, missing:$miss})"
  fi
fi

# ---------------------------------------------------------------------------------------
# c. scripted session on the real kernel paths, compared with the simulator
# ---------------------------------------------------------------------------------------
if [ $HAVE_BIN = 1 ]; then
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
    # Hermetic service settings: a config of our own instead of the host's
    # /etc/roundclock/config.toml, keeping the last frame lit on exit (the default "blank"
    # would clear the RAM we compare), and a fresh state directory instead of the host's
    # read-only /var/lib/roundclock (no stale session restored).
    printf '# kernel-VM test config\n[display]\non_shutdown = "last"\n' > /tmp/config.toml
    cp /tmp/config.toml "$ART/config.toml"
    mkdir -p /tmp/roundclock-state
    RUN_EXTRA=(--config /tmp/config.toml --state-dir /tmp/roundclock-state)
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
fi

# ---------------------------------------------------------------------------------------
# d. button latency on real kernel edges: gpio-sim line -> libgpiod edge event with its
#    kernel timestamp -> ButtonReader thread -> render loop -> display commit
# ---------------------------------------------------------------------------------------
if [ $HAVE_BIN = 1 ] && [ -z "$BENCH_BINARY" ]; then
  fail d1 "no roundclock-bench next to $BINARY (swift build builds both; the benchmarks are their own executable)"
elif [ $HAVE_BIN = 1 ]; then
  if [ $GPIOSIM_OK = 0 ]; then
    fail d1 "bench buttons --gpio-sim not run: no gpio-sim chip (see a2)"
  else
    for n in 17 27 22; do echo pull-up > "$SYS/sim_gpio$n/pull"; done
    log "roundclock-bench buttons --presses 40 --gpio-sim $SYS"
    timeout 180 "$BENCH_BINARY" buttons --presses 40 --gpio-sim "$SYS" --start-line 17 --stop-line 27 \
      > "$ART/bench-buttons-gpio-sim.txt" 2>&1
    rc=$?
    indent < "$ART/bench-buttons-gpio-sim.txt"
    summary=$(grep -m1 "^buttons: 40 presses on gpio-sim $CHIP lines 27 (STOP), 17 (START), kernel edge timestamps, event instant -> display commit: p50 " "$ART/bench-buttons-gpio-sim.txt")
    [ $rc -eq 0 ] && [ -n "$summary" ] && grep -q "kernel edge timestamp -> posted by the reader: p50" "$ART/bench-buttons-gpio-sim.txt"
    ok_if $? d1 "bench buttons on real edges: 40 gpio-sim presses, each read with its kernel timestamp and shown (exit $rc; ${summary#*display commit: })"
  fi
fi

# ---------------------------------------------------------------------------------------
# e. kill -9 mid-round and restart (persistence on the real kernel paths), then SIGTERM
#    with on_shutdown = "blank"
# ---------------------------------------------------------------------------------------
# Follows a frames file with builtins only. Each new complete line goes to FL_LINE, and the
# wall time ($EPOCHREALTIME in µs, read after the line was read) to FL_SEEN. A line cannot
# be seen before it is written, so FL_SEEN[i] - t[i] is an upper bound on the wall time of
# the run's t = 0; the smallest over all lines of a run is its estimate (see e2).
fl_open() { FL_FILE=$1 FL_FD="" FL_PART="" FL_TTEXT=""; FL_LINE=(); FL_SEEN=(); }
fl_poll() {
  local line w
  if [ -z "$FL_FD" ]; then
    [ -f "$FL_FILE" ] || return 0
    exec {FL_FD}< "$FL_FILE"
  fi
  while :; do
    line=""
    if IFS= read -r -u "$FL_FD" line; then
      w=${EPOCHREALTIME/./}
      line=$FL_PART$line FL_PART=""
      FL_LINE+=("$line"); FL_SEEN+=($((10#$w)))
      [[ $line =~ \"panel\":\ \"time\",\ \"text\":\ \"([^\"]*)\" ]] && FL_TTEXT=${BASH_REMATCH[1]}
    else
      FL_PART+=$line
      return 0
    fi
  done
}
fl_close() { [ -n "$FL_FD" ] && exec {FL_FD}<&-; FL_FD=""; }
# polls the frames file every 10 ms for $1 seconds (or until process $2 is gone)
fl_follow() {
  local w=${EPOCHREALTIME/./} s=${1%.*} f=${1#*.}
  [ "$f" = "$1" ] && f=0
  f=${f}000000
  local end=$((10#$w + 10#$s * 1000000 + 10#${f:0:6}))
  while fl_poll; w=${EPOCHREALTIME/./}; [ $((10#$w)) -lt $end ]; do
    [ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null && return 0
    snooze 0.01
  done
}
# " 0:27" -> VAL=27 (seconds shown), else VAL=-1
val_of() { if [[ $1 =~ ^\ *([0-9]+):([0-9][0-9])$ ]]; then VAL=$((10#${BASH_REMATCH[1]} * 60 + 10#${BASH_REMATCH[2]})); else VAL=-1; fi; }
# frames "t" (seconds, up to 6 decimals) -> TUS in µs
t_us() { local s=${1%.*} f=${1#*.}000000; TUS=$((10#$s * 1000000 + 10#${f:0:6})); }
ms() { local v=$1 s=""; [ "$v" -lt 0 ] && { s=-; v=$((-v)); }; printf '%s%d.%d' "$s" $((v / 1000)) $((v % 1000 / 100)); }   # µs -> ms, 1 decimal
# Analyses a followed run (arrays of lines and seen times): AN_S = wall time (µs) of its
# t = 0 (the smallest seen - t); AN_T0, AN_TEXT0, AN_STATE0 = its first time-panel frame;
# AN_V[k], AN_C[k] = each later change of the time panel: value shown, and t in µs.
analyse_run() {
  local -n lines=$1 seen=$2
  local i line prev="" first=1 d
  AN_S="" AN_T0="" AN_TEXT0="" AN_STATE0="" AN_V=() AN_C=() AN_TEXTS=""
  for i in "${!lines[@]}"; do
    line=${lines[$i]}
    [[ $line =~ ^\{\"t\":\ ([0-9]+\.[0-9]+) ]] || continue
    t_us "${BASH_REMATCH[1]}"
    d=$((seen[i] - TUS))
    { [ -z "$AN_S" ] || [ $d -lt "$AN_S" ]; } && AN_S=$d
    [[ $line =~ \"panel\":\ \"time\",\ \"text\":\ \"([^\"]*)\".*\"state\":\ \"([a-z]+)\" ]] || continue
    local text=${BASH_REMATCH[1]} state=${BASH_REMATCH[2]}
    # an all-blank time panel is the shutdown picture (on_shutdown = "blank", recorded in
    # the frames file since run commits it like any frame), not a change of the countdown
    [[ $text =~ ^\ *$ ]] && continue
    if [ $first = 1 ]; then
      first=0 AN_T0=$TUS AN_TEXT0=$text AN_STATE0=$state
    elif [ "$text" != "$prev" ]; then
      val_of "$text"; AN_V+=("$VAL"); AN_C+=("$TUS")
    fi
    [ "$text" != "$prev" ] && AN_TEXTS="$AN_TEXTS$text|"
    prev=$text
  done
}

if [ $HAVE_BIN = 1 ] && wanted e1; then
  if [ -z "$BUS" ] || [ $GPIOSIM_OK = 0 ]; then
    fail e1 "restart after kill -9 not run: simulators missing (see a1-a3)"
  else
    write_board /tmp/board.toml
    E_STATE=/tmp/e-state E_CFG=/tmp/e-config.toml E1=/tmp/e-run1.jsonl E2=/tmp/e-run2.jsonl
    rm -rf "$E_STATE" "$E1" "$E2"; mkdir -p "$E_STATE"
    printf '# kernel-VM test config (e1-e3)\n[display]\non_shutdown = "blank"\n' > "$E_CFG"
    cp "$E_CFG" "$ART/e-config.toml"
    E_RUN=(run --board /tmp/board.toml --program countdown:0:30 --config "$E_CFG" --state-dir "$E_STATE")
    for n in 17 27 22; do echo pull-up > "$SYS/sim_gpio$n/pull"; done
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
    START_USED='[(]GPIO17 *[|]roundclock'
    TOL=50000 LATE_MAX=250000 ANCHOR_TOL=5000   # µs; see Tests/kernel-vm/README.md (e1, e2)

    # --- first run: READY, START, a few seconds shown, then kill -9 ------------------------
    log "e: starting roundclock ${E_RUN[*]} --frames $E1"
    LAUNCH1=$(now)
    "$BINARY" "${E_RUN[@]}" --frames "$E1" > "$ART/e-run1.out" 2>&1 &
    P1=$!
    fl_open "$E1"
    ready=0
    for ((i = 0; i < 3000; i++)); do
      fl_poll
      if [ -n "$FL_TTEXT" ]; then
        read -r -d '' dbg < /sys/kernel/debug/gpio
        [[ $dbg =~ $START_USED ]] && { ready=1; break; }
      fi
      kill -0 $P1 2>/dev/null || break
      snooze 0.02
    done
    rc1="" KILL1="" E_NOTE=""
    if [ $ready = 1 ]; then
      log "e: first run READY $(secs "$LAUNCH1" "$(now)") s after launch, showing \"$FL_TTEXT\"; pressing START"
      echo pull-down > "$SYS/sim_gpio17/pull"
      fl_follow 0.2
      echo pull-up > "$SYS/sim_gpio17/pull"
      # four changes (0:30 -> 0:26), then 0.4 s more, so that the kill comes mid-second
      for ((i = 0; i < 2000; i++)); do
        fl_poll; val_of "$FL_TTEXT"
        [ "$VAL" -ge 0 ] && [ "$VAL" -le 26 ] && break
        kill -0 $P1 2>/dev/null || break
        snooze 0.01
      done
      fl_follow 0.4 $P1
      KILL1=$(now)
      kill -9 $P1 2>/dev/null
      wait $P1; rc1=$?
      log "e: kill -9 of the first run at \"$FL_TTEXT\", $(secs "$LAUNCH1" "$KILL1") s after launch (exit $rc1)"
    else
      kill -9 $P1 2>/dev/null; wait $P1
      E_NOTE="the first run did not reach READY (first frame: ${FL_TTEXT:-none})"
    fi
    fl_poll; fl_close
    # shellcheck disable=SC2034 # read through namerefs in analyse_run
    R1_LINE=("${FL_LINE[@]}") R1_SEEN=("${FL_SEEN[@]}")
    STATE1=""; [ -f "$E_STATE/state" ] && read -r -d '' STATE1 < "$E_STATE/state"

    # --- second run: same config and state directory, then SIGTERM -------------------------
    rc2="" TERM2=""
    if [ -n "$KILL1" ]; then
      LAUNCH2=$(now)
      "$BINARY" "${E_RUN[@]}" --frames "$E2" > "$ART/e-run2.out" 2>&1 &
      P2=$!
      fl_open "$E2"
      for ((i = 0; i < 3000; i++)); do
        fl_poll; [ -n "$FL_TTEXT" ] && break
        kill -0 $P2 2>/dev/null || break
        snooze 0.01
      done
      val_of "$FL_TTEXT"; v0=$VAL
      log "e: second run shows \"$FL_TTEXT\" $(secs "$LAUNCH2" "$(now)") s after launch, $(secs "$KILL1" "$(now)") s after the kill"
      # four changes, then 0.4 s more; at most 10 s (a run that did not resume stays at 0:30)
      for ((i = 0; i < 1000; i++)); do
        fl_poll; val_of "$FL_TTEXT"
        [ "$v0" -ge 0 ] && [ "$VAL" -ge 0 ] && [ "$VAL" -le $((v0 - 4)) ] && break
        kill -0 $P2 2>/dev/null || break
        snooze 0.01
      done
      fl_follow 0.4 $P2
      TERM2=$(now)
      kill -TERM $P2 2>/dev/null
      for ((i = 0; i < 3000; i++)); do kill -0 $P2 2>/dev/null || break; snooze 0.01; done
      STOPPED2=$(now)
      kill -0 $P2 2>/dev/null && { kill -9 $P2; E_NOTE="the second run was still running 30 s after SIGTERM (killed)"; }
      wait $P2; rc2=$?
      fl_poll; fl_close
      log "e: SIGTERM at \"$FL_TTEXT\"; the second run exited $rc2 after $(secs "$TERM2" "$STOPPED2") s"
    else
      fl_open "$E2"
    fi
    # shellcheck disable=SC2034 # read through namerefs in analyse_run
    R2_LINE=("${FL_LINE[@]}") R2_SEEN=("${FL_SEEN[@]}")
    declare -A E_RAM=()
    for a in 0x70 0x71 0x72; do E_RAM[$a]=$(read_ram $a); done
    STATE2=""; [ -f "$E_STATE/state" ] && read -r -d '' STATE2 < "$E_STATE/state"
    cp "$E1" "$ART/e-run1.jsonl" 2>/dev/null; cp "$E2" "$ART/e-run2.jsonl" 2>/dev/null
    echo "    first run's output:"; indent < "$ART/e-run1.out"
    echo "    state file after the kill -9:"; echo -n "$STATE1" | indent
    [ -f "$ART/e-run2.out" ] && { echo "    second run's output:"; indent < "$ART/e-run2.out"; }
    echo "    state file after SIGTERM:"; echo -n "$STATE2" | indent

    # --- analysis ---------------------------------------------------------------------------
    # Both runs count t from their own start; the wall time of each run's t = 0 (S1, S2) is
    # estimated from when the test saw the lines (upper bound, see fl_open). A change to the
    # value v at wall time S + t lies on the boundary "end of the round - v s"; so
    # S + t + v s is the same for every change, up to the lateness of that change.
    analyse_run R1_LINE R1_SEEN
    S1=$AN_S V1=("${AN_V[@]}") C1=("${AN_C[@]}") TEXTS1=$AN_TEXTS
    analyse_run R2_LINE R2_SEEN
    S2=$AN_S V2=("${AN_V[@]}") C2=("${AN_C[@]}") TEXTS2=$AN_TEXTS T20=$AN_T0 TEXT20=$AN_TEXT0 STATE20=$AN_STATE0
    val_of "$TEXT20"; V20=$VAL
    echo "    first run, time panel: $TEXTS1"
    echo "    second run, time panel: $TEXTS2"
    # the first run's boundaries: END1 = the wall time its round ends (µs), from its least
    # late change; the others' lateness relative to that one
    END1="" late1=""
    for k in "${!V1[@]}"; do
      [ "${V1[$k]}" -ge 0 ] || continue
      b=$((S1 + C1[k] + V1[k] * 1000000))
      { [ -z "$END1" ] || [ $b -lt "$END1" ]; } && END1=$b
    done
    for k in "${!V1[@]}"; do [ "${V1[$k]}" -ge 0 ] && late1="$late1 $(ms $((S1 + C1[k] + V1[k] * 1000000 - END1)))"; done
    echo "    first run: ${#V1[@]} changes; each one's offset from the least late, ms:${late1:- none}"
    # information: the anchor in the state file (CLOCK_REALTIME) + 30 s against END1
    if [[ $STATE1 =~ anchor_realtime_ns=([0-9]+) ]] && [ -n "$END1" ]; then
      a=${BASH_REMATCH[1]}
      echo "    state file: anchor_realtime + 0:30 - END1 = $(ms $((a / 1000 + 30000000 - END1))) ms (information)"
    fi
    # information: the estimates of S against the frames files' mtime (coarse kernel time of
    # the last write, at most one tick behind it)
    for r in 1 2; do
      f=/tmp/e-run$r.jsonl; [ -f "$f" ] || continue
      mt=$(date -r "$f" +%s%N 2>/dev/null) || continue
      last=""; while IFS= read -r line; do [[ $line =~ ^\{\"t\":\ ([0-9]+\.[0-9]+) ]] && last=${BASH_REMATCH[1]}; done < "$f"
      [ -n "$last" ] || continue
      t_us "$last"; sv=S$r
      echo "    run $r: t = 0 estimated from the polling minus from the file's mtime: $(ms $(( ${!sv} - (mt / 1000 - TUS) ))) ms (information)"
    done

    # e1: the second run's first picture shows the right second
    verdict1=""
    if [ -n "$E_NOTE" ]; then verdict1=$E_NOTE
    elif [ "$rc1" != 137 ]; then verdict1="the first run exited $rc1 on kill -9, not 137"
    elif [ -z "$END1" ] || [ ${#V1[@]} -lt 3 ]; then verdict1="the first run showed fewer than 3 changes: $TEXTS1"
    elif [[ $STATE1 != *state=running* ]]; then verdict1="the state file after the kill is not a running session"
    elif [ -z "$T20" ]; then verdict1="the second run wrote no time-panel frame"
    elif ! grep -q "resumed exactly (same boot)" "$ART/e-run2.out"; then verdict1="the second run did not log \"resumed exactly (same boot)\""
    else
      W2=$((S2 + T20)) rem=$((END1 - S2 - T20))
      n=$((rem / 1000000)) frac=$((rem % 1000000))
      want=$n; [ $frac -gt 0 ] && want=$((n + 1))
      # t is read when the commit returns, and the picture is computed at the start of the
      # turn: a first turn that a boundary passes through (cold code under TCG) shows the
      # second before it, a late picture, bounded like e2's late changes
      ok="$want" why=""
      [ $frac -lt $TOL ] && ok="$n $((n + 1))" why="within 50 ms of a boundary"
      [ $frac -ge $((1000000 - LATE_MAX)) ] && ok="$((n + 1)) $((n + 2))" why="a boundary passed $(ms $((1000000 - frac))) ms before"
      info="first frame \"$TEXT20\" ($STATE20) at t=$(ms $((T20 / 1000)))s, $(ms $(( (W2 - ${KILL1/./}) ))) ms after the kill; the first run's round has $(ms $((rem / 1000)))s left then, so $want expected"
      [ "$ok" != "$want" ] && info="$info ($why: $ok accepted)"
      if [ "$STATE20" = running ] && [[ " $ok " == *" $V20 "* ]]; then verdict1="ok: $info"
      else verdict1="$info"; fi
    fi
    echo "    e1: $verdict1"
    [ "${verdict1#ok}" != "$verdict1" ]
    ok_if $? e1 "restart after kill -9 mid-round: the second run's first picture shows the right second (${verdict1#ok: })"

    # e2: the second run's changes land on the first run's boundaries
    verdict2="" deltas="" dmin="" dmax="" seq_ok=1 prev=""
    for k in "${!V2[@]}"; do
      [ -n "$prev" ] && [ "${V2[$k]}" -ne $((prev - 1)) ] && seq_ok=0
      prev=${V2[$k]}
      [ -n "$END1" ] || continue
      d=$((S2 + C2[k] + V2[k] * 1000000 - END1))
      deltas="$deltas $(ms $d)"
      { [ -z "$dmin" ] || [ $d -lt "$dmin" ]; } && dmin=$d
      { [ -z "$dmax" ] || [ $d -gt "$dmax" ]; } && dmax=$d
    done
    # the anchor (CLOCK_BOOTTIME) the first run saved at START against the one the second
    # run saved on SIGTERM from its restored session: the same instant, up to the gap between
    # the clock readings paired in save and restore (µs; a few ms under TCG at most)
    anchor_d=""
    [[ $STATE1 =~ anchor_boottime_ns=([0-9]+) ]] && a1=${BASH_REMATCH[1]} &&
      [[ $STATE2 =~ anchor_boottime_ns=([0-9]+) ]] && anchor_d=$(( (BASH_REMATCH[1] - a1) / 1000 ))
    if [ -n "$E_NOTE" ] || [ -z "$END1" ]; then verdict2="${E_NOTE:-no boundaries from the first run}"
    elif [ -z "$anchor_d" ]; then verdict2="no anchor_boottime_ns in the state file after the kill or after SIGTERM"
    elif [ "${anchor_d#-}" -gt $ANCHOR_TOL ]; then verdict2="the anchor saved after the restart differs from the first run's by $(ms "$anchor_d") ms"
    elif [ ${#V2[@]} -lt 3 ]; then verdict2="the second run showed fewer than 3 changes: $TEXTS2"
    elif [ $seq_ok = 0 ] || [ "${V2[0]}" -ne $((V20 - 1)) ]; then verdict2="the second run's changes skip or repeat a second: $TEXTS2"
    elif [ "$dmin" -lt -$TOL ] || [ "$dmin" -gt $TOL ]; then verdict2="${#V2[@]} changes, offsets from the first run's boundaries$deltas ms: the least late is outside +-50 ms"
    elif [ "$dmax" -gt $LATE_MAX ]; then verdict2="${#V2[@]} changes, offsets from the first run's boundaries$deltas ms: one is later than $((LATE_MAX / 1000)) ms"
    else verdict2="ok: ${#V2[@]} changes, offsets from the first run's boundaries$deltas ms (least late within +-50 ms, none later than $((LATE_MAX / 1000)) ms); saved anchors differ by $(ms "$anchor_d") ms"; fi
    echo "    e2: $verdict2"
    [ "${verdict2#ok}" != "$verdict2" ]
    ok_if $? e2 "after the restart each change lands on the first run's whole-second boundaries (${verdict2#ok: })"

    # e3: SIGTERM with on_shutdown = "blank": exit 0, all three chips' RAM zero
    zeros=00000000000000000000000000000000 lit=0
    for line in "${R2_LINE[@]}"; do [[ $line =~ \"ram\":\ \"([0-9a-f]+)\" ]] && [ "${BASH_REMATCH[1]}" != $zeros ] && lit=1; done
    errors=""
    [ -f "$ART/e-run2.out" ] && while IFS= read -r line; do [[ ${line,,} == error:* || ${line,,} == *": error:"* ]] && errors="$errors${errors:+; }$line"; done < "$ART/e-run2.out"
    for a in 0x70 0x71 0x72; do echo "    $a after SIGTERM: i2c-stub ${E_RAM[$a]:-no answer}"; done
    if [ -z "$TERM2" ]; then verdict3="${E_NOTE:-no second run}"
    elif [ "$rc2" != 0 ]; then verdict3="exit $rc2 after SIGTERM"
    elif [ -n "$errors" ]; then verdict3="exit 0 but logged errors: $errors"
    elif [ $lit = 0 ]; then verdict3="the panels were never lit, so blank proves nothing"
    elif [ "${E_RAM[0x70]}" != $zeros ] || [ "${E_RAM[0x71]}" != $zeros ] || [ "${E_RAM[0x72]}" != $zeros ]; then verdict3="exit 0, but the RAM is not all zero"
    else verdict3="ok: exit 0 $(secs "$TERM2" "$STOPPED2") s after SIGTERM, RAM of 0x70 0x71 0x72 all zero"; fi
    [ "${verdict3#ok}" != "$verdict3" ]
    ok_if $? e3 "SIGTERM with on_shutdown = \"blank\": run exits 0 and leaves all three panels blank (${verdict3#ok: })"
  fi
fi

# ---------------------------------------------------------------------------------------
# f. a chip that loses power between two writes: its RAM turns to garbage while nothing is
#    written (ready state); the periodic power check must find it and rewrite it
#    (docs/design.md: within 2 s of the chip answering; +1 s here for TCG and i2cget)
# ---------------------------------------------------------------------------------------
if [ $HAVE_BIN = 1 ] && wanted f1; then
  if [ -z "$BUS" ] || [ $GPIOSIM_OK = 0 ]; then
    fail f1 "power-loss check not run: simulators missing (see a1-a3)"
  else
    write_board /tmp/board.toml
    F_FR=/tmp/f-run.jsonl F_STATE=/tmp/f-state
    rm -rf "$F_STATE" "$F_FR"
    for n in 17 27 22; do echo pull-up > "$SYS/sim_gpio$n/pull"; done
    log "f: starting roundclock run (ready, nothing written while it waits for START)"
    "$BINARY" run --board /tmp/board.toml --program countdown:0:30 --state-dir "$F_STATE" --frames "$F_FR" > "$ART/f-run.out" 2>&1 &
    PF=$!
    want="" garbled="" back="" got=""
    for ((i = 0; i < 1500; i++)); do
      want=$(last_ram "$F_FR" time)
      [ -n "$want" ] && [ "$(read_ram 0x70)" = "$want" ] && break
      want=""
      kill -0 $PF 2>/dev/null || break
      snooze 0.02
    done
    if [ -n "$want" ]; then
      # what a chip gives after a power cut: RAM garbage (i2c-stub has no settings to lose)
      garbled=$(now)
      i2cset -y "$BUS" 0x70 0x00 0xa5 0x5a 0xff 0x81 0x42 0x24 0x18 0xe7 0xa5 0x5a 0xff 0x81 0x42 0x24 0x18 0xe7 i
      for ((i = 0; i < 400; i++)); do
        got=$(read_ram 0x70)
        [ "$got" = "$want" ] && { back=$(now); break; }
        kill -0 $PF 2>/dev/null || break
        snooze 0.02
      done
    fi
    kill -TERM $PF 2>/dev/null; wait $PF; rcf=$?
    logged=0; grep -q "display time lost power" "$ART/f-run.out" 2>/dev/null && logged=1
    if [ -z "$want" ]; then verdictf="run never showed its ready picture on 0x70 (exit $rcf)"
    elif [ -z "$back" ]; then verdictf="0x70 still holds $got long after the garbage (want $want)"
    else
      d=$(( $(us "$back") - $(us "$garbled") ))
      if [ $d -gt 3000000 ]; then verdictf="rewritten only $(secs "$garbled" "$back") s after the garbage"
      elif [ $logged = 0 ]; then verdictf="rewritten, but no 'lost power' line in the log"
      elif [ "$rcf" != 0 ]; then verdictf="rewritten, but exit $rcf after SIGTERM"
      else verdictf="ok: ready picture back $(secs "$garbled" "$back") s after the garbage, one 'lost power' log line"; fi
    fi
    [ "${verdictf#ok}" != "$verdictf" ]
    ok_if $? f1 "a chip whose RAM turned to garbage while ready is found and rewritten (${verdictf#ok: })"
  fi
fi

# ---------------------------------------------------------------------------------------
# g. the stack light (GPIO23 work, GPIO24 rest, GPIO25 warn) and the horn (GPIO26) on the
#    real kernel paths: a program with prep, a warning window and a rest; the lines' values
#    sampled through gpio-sim next to the run's frames, then SIGTERM mid-round
# ---------------------------------------------------------------------------------------
# Follows the run's frames file (builtins only). Every line carries the session's status; a
# new status (state, phase, round, or the time panel's text) is noted when a line brings one:
# G_K counts them, G_SEEN[k] is the wall time (µs) status k was read, G_EXP[k] the lamps
# (work rest warn, e.g. 100) it calls for. (START changes no time-panel text: prep shows its
# length both ready and running.)
g_open() { G_FILE=$1 G_FD="" G_PART="" G_K=-1 G_TEXT="" G_PHASE="" G_STATE="" G_ROUND=0 G_VAL=-1 G_KEY=""; G_SEEN=(); G_EXP=(); G_DESC=(); }
g_poll() {
  local line
  if [ -z "$G_FD" ]; then [ -f "$G_FILE" ] || return 0; exec {G_FD}< "$G_FILE"; fi
  while :; do
    line=""
    if IFS= read -r -u "$G_FD" line; then
      line=$G_PART$line G_PART=""
      [[ $line =~ \"panel\":\ \"([a-z]+)\",\ \"text\":\ \"([^\"]*)\",\ \"phase\":\ \"([a-z]+)\",\ \"round\":\ ([0-9]+),.*\"state\":\ \"([a-z]+)\" ]] || continue
      [ "${BASH_REMATCH[1]}" = time ] && G_TEXT=${BASH_REMATCH[2]}
      G_PHASE=${BASH_REMATCH[3]} G_ROUND=${BASH_REMATCH[4]} G_STATE=${BASH_REMATCH[5]}
      val_of "$G_TEXT"; G_VAL=$VAL   # val_of matches a pattern too: BASH_REMATCH is read first
      [ "$G_TEXT/$G_PHASE/$G_ROUND/$G_STATE" = "$G_KEY" ] && continue
      G_KEY="$G_TEXT/$G_PHASE/$G_ROUND/$G_STATE"
      local exp="000"
      if [ "$G_STATE" = running ]; then
        case $G_PHASE in
          prep|rest) exp="010" ;;
          work) if [ "$G_VAL" -ge 0 ] && [ "$G_VAL" -le 3 ]; then exp="001"; else exp="100"; fi ;;
        esac
      fi
      G_K=$((G_K + 1)); G_SEEN+=($((10#${EPOCHREALTIME/./}))); G_EXP+=("$exp"); G_DESC+=("$G_KEY")
    else
      G_PART+=$line
      return 0
    fi
  done
}
g_close() { [ -n "$G_FD" ] && exec {G_FD}<&-; G_FD=""; }
# One sample: the four lines' values (work rest warn horn) with the wall time and the status
# last read from the frames file.
g_sample() {
  local w r y h
  g_poll
  read -r w < "$SYS/sim_gpio23/value"; read -r r < "$SYS/sim_gpio24/value"
  read -r y < "$SYS/sim_gpio25/value"; read -r h < "$SYS/sim_gpio26/value"
  S_T+=($((10#${EPOCHREALTIME/./}))); S_L+=("$w$r$y"); S_H+=("$h"); S_K+=("$G_K")
}

if [ $HAVE_BIN = 1 ]; then
  if [ -z "$BUS" ] || [ $GPIOSIM_OK = 0 ]; then
    fail g1 "stack light and horn not run: simulators missing (see a1-a3)"
  else
    write_board /tmp/board.toml
    G_FR=/tmp/g-run.jsonl G_STATE_DIR=/tmp/g-state G_CFG=/tmp/g-config.toml
    G_PROG="2 x 0:06/0:04, prep 0:03, warn 0:03"
    rm -rf "$G_STATE_DIR" "$G_FR"; mkdir -p "$G_STATE_DIR"
    printf '# kernel-VM test config (g)\n[display]\non_shutdown = "blank"\n' > "$G_CFG"
    for n in 17 27 22; do echo pull-up > "$SYS/sim_gpio$n/pull"; done
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
    log "g: starting roundclock run --program \"$G_PROG\" (stack light GPIO23-25, horn GPIO26)"
    "$BINARY" run --board /tmp/board.toml --program "$G_PROG" --config "$G_CFG" --state-dir "$G_STATE_DIR" \
      --frames "$G_FR" > "$ART/g-run.out" 2>&1 &
    PG=$!
    S_T=() S_L=() S_H=() S_K=()
    g_open "$G_FR"
    # READY: a time-panel frame, START and the work lamp requested (60 s: TCG, busy host);
    # debugfs shows 20 characters of a consumer: "roundclock-light-wor"
    ready=0 START_USED='[(]GPIO17 *[|]roundclock' LIT_USED='[(]GPIO23 *[|]roundclock-light-w'
    for ((i = 0; i < 3000; i++)); do
      g_poll
      if [ "$G_K" -ge 0 ]; then
        read -r -d '' dbg < /sys/kernel/debug/gpio
        [[ $dbg =~ $START_USED && $dbg =~ $LIT_USED ]] && { ready=1; break; }
      fi
      kill -0 $PG 2>/dev/null || break
      snooze 0.02
    done
    G_NOTE="" G_TERM="" rcg="" AFTER=""
    if [ $ready = 1 ]; then
      g_sample
      echo pull-down > "$SYS/sim_gpio17/pull"
      snooze 0.2
      echo pull-up > "$SYS/sim_gpio17/pull"
      log "g: READY, START pressed"
      # sample until round 2's work shows 0:05 or less (60 s at most), then SIGTERM
      deadline=$(( 10#${EPOCHREALTIME/./} + 60000000 ))
      while kill -0 $PG 2>/dev/null && [ $((10#${EPOCHREALTIME/./})) -lt $deadline ]; do
        g_sample
        [ "$G_PHASE" = work ] && [ "$G_ROUND" = 2 ] && [ "$G_VAL" -ge 0 ] && [ "$G_VAL" -le 5 ] && [ "${S_L[-1]}" = 100 ] && break
        snooze 0.02
      done
      G_TERM=$(now)
      kill -TERM $PG 2>/dev/null
      # the lines while it shuts down (information: released lines fall back to the sim's pull)
      G_DBG=""
      for ((i = 0; i < 3000; i++)); do
        kill -0 $PG 2>/dev/null || break
        read -r -d '' dbg < /sys/kernel/debug/gpio
        [[ $dbg =~ [(]GPIO23\ *[|]roundclock-light-w[a-z]*\ *[)]\ (out\ [a-z]+) ]] && G_DBG="GPIO23 ${BASH_REMATCH[1]}"
        snooze 0.01
      done
      kill -0 $PG 2>/dev/null && { kill -9 $PG; G_NOTE="still running 30 s after SIGTERM (killed)"; }
      wait $PG; rcg=$?
      for n in 23 24 25 26; do read -r v < "$SYS/sim_gpio$n/value"; AFTER="$AFTER$v"; done
      log "g: SIGTERM; exit $rcg after $(secs "$G_TERM" "$(now)") s; last seen while requested: ${G_DBG:-none}"
    else
      kill -9 $PG 2>/dev/null; wait $PG
      G_NOTE="run did not reach READY (frames: $((G_K + 1)) time-panel lines)"
    fi
    g_poll; g_close
    cp "$G_FR" "$ART/g-run.jsonl" 2>/dev/null
    indent < "$ART/g-run.out"
    # the samples, compressed: lamps (work rest warn) xN, and the horn's pulses
    runs="" prev="" n=0
    for i in "${!S_L[@]}"; do
      if [ "${S_L[$i]}" = "$prev" ]; then n=$((n + 1)); else [ -n "$prev" ] && runs="$runs $prev x$n"; prev=${S_L[$i]} n=1; fi
    done
    runs="$runs $prev x$n"
    echo "    lamps work/rest/warn sampled (${#S_L[@]} samples):$runs"
    printf '%s\n' "${G_DESC[@]}" | tr '\n' '|' | sed 's/^/    statuses from the frames: /'; echo
    # g1: the order of the lamps: dark, red (prep), green, yellow, red (rest), green. A sample
    # unlike both its neighbours, which differ, is one taken during a change: the three values
    # are read one after the other, and one lamp goes off just before the next goes on.
    seq="" last=""
    for i in "${!S_L[@]}"; do
      l=${S_L[$i]}
      if [ "$i" -gt 0 ] && [ $((i + 1)) -lt ${#S_L[@]} ]; then
        b=${S_L[$((i - 1))]} a=${S_L[$((i + 1))]}
        [ "$b" != "$a" ] && [ "$l" != "$b" ] && [ "$l" != "$a" ] && continue
      fi
      [ "$l" != "$last" ] && seq="$seq $l"
      last=$l
    done
    # g2: each sample taken while a status has been shown for 0.3 s and the next is 0.3 s
    # away (as the frames were read) shows that status's lamps
    judged=0 wrong=""
    declare -A per=([100]=0 [010]=0 [001]=0)
    for i in "${!S_L[@]}"; do
      k=${S_K[$i]}; [ "$k" -ge 0 ] || continue
      [ $((S_T[i] - G_SEEN[k])) -ge 300000 ] || continue
      [ $((k + 1)) -lt ${#G_SEEN[@]} ] && [ $((G_SEEN[k + 1] - S_T[i])) -lt 300000 ] && continue
      judged=$((judged + 1))
      [ -n "${per[${G_EXP[$k]}]+x}" ] && per[${G_EXP[$k]}]=$((per[${G_EXP[$k]}] + 1))
      [ "${S_L[$i]}" != "${G_EXP[$k]}" ] && wrong="$wrong ${G_DESC[$k]}:${S_L[$i]}"
    done
    # g3: the horn: its first blast starts with the first green lamp (the start signal, same
    # turn of the loop) within 1.5 s, and ends (a pulse, not a line left on)
    hon="" won="" hoff=""
    for i in "${!S_L[@]}"; do
      [ -z "$won" ] && [ "${S_L[$i]:0:1}" = 1 ] && won=$i
      [ -z "$hon" ] && [ "${S_H[$i]}" = 1 ] && hon=$i
      [ -n "$hon" ] && [ -z "$hoff" ] && [ "${S_H[$i]}" = 0 ] && hoff=$i
    done
    if [ -n "$G_NOTE" ]; then v1=$G_NOTE v2=$G_NOTE v3=$G_NOTE v4=$G_NOTE
    else
      if [ "$seq" = " 000 010 100 001 010 100" ]; then v1="ok: dark, red (prep), green, yellow, red (rest), green"
      else v1="lamp sequence$seq, want 000 010 100 001 010 100"; fi
      if [ -n "$wrong" ]; then v2="$judged samples judged; wrong (status:lamps):$wrong"
      elif [ "${per[100]}" -lt 3 ] || [ "${per[010]}" -lt 3 ] || [ "${per[001]}" -lt 3 ]; then
        v2="too few settled samples: green ${per[100]}, red ${per[010]}, yellow ${per[001]}"
      else v2="ok: $judged settled samples match the frames' status (green ${per[100]}, red ${per[010]}, yellow ${per[001]})"; fi
      if [ -z "$hon" ] || [ -z "$won" ]; then v3="horn on: ${hon:-never}, green lamp on: ${won:-never}"
      else
        d=$((S_T[hon] - S_T[won])); [ $d -lt 0 ] && d=$((-d))
        if [ $d -gt 1500000 ]; then v3="the horn's first blast came $(ms $d) ms from the green lamp"
        elif [ -z "$hoff" ]; then v3="the horn went on and stayed on"
        else v3="ok: first blast $(ms $d) ms from the green lamp, off again after $(secs "${S_T[hon]:0:-6}.${S_T[hon]: -6}" "${S_T[hoff]:0:-6}.${S_T[hoff]: -6}") s"; fi
      fi
      if [ "$rcg" != 0 ]; then v4="exit $rcg after SIGTERM"
      elif [ "${S_L[-1]}" != 100 ]; then v4="the work lamp was not lit at SIGTERM (${S_L[-1]}), so dark afterwards proves nothing"
      elif [ "$AFTER" != 0000 ]; then v4="lines GPIO23-26 after the exit: $AFTER, want 0000"
      else v4="ok: green lit at SIGTERM; exit 0; GPIO23-26 all 0 after it"; fi
    fi
    echo "    g1: $v1"; echo "    g2: $v2"; echo "    g3: $v3"; echo "    g4: $v4"
    [ "${v1#ok}" != "$v1" ]; ok_if $? g1 "stack light on gpio-sim: the lamps follow the session in order (${v1#ok: })"
    [ "${v2#ok}" != "$v2" ]; ok_if $? g2 "stack light: work lit in the round, warn in the warning window, rest in prep and rest (${v2#ok: })"
    [ "${v3#ok}" != "$v3" ]; ok_if $? g3 "horn relay GPIO26 pulses at the start of work (${v3#ok: })"
    [ "${v4#ok}" != "$v4" ]; ok_if $? g4 "SIGTERM mid-round: every lamp and the horn off (${v4#ok: })"
  fi
fi

# ---------------------------------------------------------------------------------------
# s. the speaker on ALSA's loopback card (guest/sound-tests.sh): onset against display change
# ---------------------------------------------------------------------------------------
if [ $HAVE_BIN = 1 ] && wanted s1; then
  # shellcheck source=/dev/null
  . "$W/sound-tests.sh"
  sound_checks
  # shellcheck source=/dev/null
  . "$W/unplug-tests.sh"
  unplug_checks
fi

if [ $FAILS -gt 0 ]; then
  echo "guest: kernel log (last 25 lines):"
  dmesg | tail -25 | indent
fi
log "done, $FAILS failed"
echo END >> "$RES"
sync
[ $FAILS -eq 0 ]
