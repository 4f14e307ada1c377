# Sourced by guest-tests.sh: a USB speaker unplugged mid-round and plugged in again. The VM
# has qemu's usb-audio on xHCI (boot-vm.sh, VM_USB_SPEAKER=1); the guest asks the host to
# unplug and plug it (usb-plug.py, over qemu's QMP) while `roundclock run --simulate` plays
# on it by card name. s3: the clock counts on through the outage and logs it once; s4: it
# opens the speaker again within 2 s of its return and plays the next signal.

# USB_CARD: the id of the USB sound card, if one is there.
usb_card() {
  local line
  USB_CARD=""
  while IFS= read -r line; do
    [[ $line =~ ^\ *[0-9]+\ \[([^\ ]+)\ *\]:\ USB-Audio ]] && { USB_CARD=${BASH_REMATCH[1]}; return 0; }
  done < /proc/asound/cards
  return 1
}

# Asks the host to "unplug" or "plug" the speaker; waits (at most 30 s) for its answer.
USB_ASKED=0
usb_ask() {
  local line n i
  echo "$1" >> "$W/usb-request"
  USB_ASKED=$((USB_ASKED + 1))
  for ((i = 0; i < 600; i++)); do
    n=0 line=""
    if [ -f "$W/usb-done" ]; then
      while IFS= read -r line; do n=$((n + 1)); USB_ANSWER=$line; done < "$W/usb-done"
    fi
    [ $n -ge $USB_ASKED ] && { [[ $USB_ANSWER != error* ]]; return; }
    snooze 0.05
  done
  USB_ANSWER="no answer from the host within 30 s"
  return 1
}

unplug_checks() {
  if [ "${USB_SPEAKER:-0}" != 1 ]; then skip s3 "no USB speaker in this VM"; return; fi
  modprobe xhci_pci 2>/dev/null; modprobe snd-usb-audio 2>/dev/null
  local i
  for ((i = 0; i < 300; i++)); do usb_card && break; snooze 0.1; done
  if [ -z "$USB_CARD" ]; then skip s3 "no USB-Audio card appeared (xhci_pci, snd-usb-audio)"; return; fi
  local dir=$ART/unplug frames=$ART/unplug/frames.jsonl out=$ART/unplug/run.out
  mkdir -p "$dir"
  printf '[sound]\nenabled = true\ndevice = "hw:CARD=%s,DEV=0"\n' "$USB_CARD" > "$dir/config.toml"
  : > "$frames"
  # 5 s prep, then rounds of 20 s work and 10 s rest: the speaker is unplugged a second before
  # round 1 ends (its stream runs for the bell) and plugged in again 3 s into the rest; the
  # next signal is round 2's bell, 7 s later.
  log "s: USB speaker $USB_CARD; run with it, unplug at the end of round 1"
  timeout -k 10 -s TERM 120 "$BINARY" run --simulate --config "$dir/config.toml" --program "3 x 0:20/0:10, prep 0:05" \
    --events 1:start --until 50 --frames "$frames" --frames-clock monotonic > "$out" 2>&1 &
  local run=$! fd line part="" round1=""
  exec {fd}< "$frames"
  for ((i = 0; i < 6000 && !${#round1}; i++)); do
    while IFS= read -r -u "$fd" line; do
      line=$part$line part=""
      [[ $line == *'"signal": "start"'* ]] && { round1=$(now); break; }
    done
    part=$part$line
    [ -n "$round1" ] || { kill -0 $run 2>/dev/null || break; snooze 0.02; }
  done
  exec {fd}<&-
  if [ -z "$round1" ]; then
    kill $run 2>/dev/null; wait $run
    fail s3 "round 1 never started: $(tail -3 "$out" | tr '\n' ' ')"; return
  fi
  local at=$(( $(us "$round1") + 19000000 ))
  while [ "$(us "$(now)")" -lt $at ]; do snooze 0.02; done
  local unplugged="" back="" reopened=""
  if usb_ask unplug; then unplugged=$(now); fi
  log "s: unplug: $USB_ANSWER"
  at=$(( $(us "$round1") + 23000000 ))
  while [ "$(us "$(now)")" -lt $at ]; do snooze 0.02; done
  usb_ask plug
  log "s: plug: $USB_ANSWER"
  # the card's return, then the speaker's line saying it plays again (at most 10 s)
  for ((i = 0; i < 1000; i++)); do usb_card && { back=$(now); break; }; snooze 0.01; done
  exec {fd}< "$out"
  part=""
  for ((i = 0; i < 1000 && ${#back} && !${#reopened}; i++)); do
    while IFS= read -r -u "$fd" line; do
      line=$part$line part=""
      [[ $line == *"plays again"* ]] && { reopened=$(now); break; }
    done
    part=$part$line
    [ -n "$reopened" ] || snooze 0.01
  done
  exec {fd}<&-
  wait $run; local rc=$?
  log "s: run exited $rc"
  echo "    run exit $rc; its sound lines:"; grep -a "sound" "$out" | indent
  # the display through the outage (18 to 27 s into round 1): the time panel changes at
  # least every 1.5 s
  local gap outages
  gap=$(python3 - "$frames" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
starts = [l["t"] for l in lines if l.get("signal") == "start"]
t = [l["t"] for l in lines if l.get("panel") == "time" and starts and 18 <= l["t"] - starts[0] <= 27]
print("%.2f" % max(b - a for a, b in zip(t, t[1:])) if len(t) > 5 else "none")
PY
)
  outages=$(grep -ac "trying again" "$out")
  if [ "$rc" = 0 ] && [ -n "$unplugged" ] && [ "$outages" = 1 ] && [[ $gap =~ ^[0-9.]+$ ]] && [ "${gap%.*}" -lt 2 ] &&
     { [ "${gap%.*}" = 0 ] || [ "${gap#*.}" -le 50 ]; }; then
    pass s3 "USB speaker unplugged mid-round: the display changed every $gap s or sooner, one log line ($(grep -a -m1 "trying again" "$out" | sed 's/.*sound: //'))"
  else
    local how=${unplugged:+done}
    fail s3 "exit $rc, unplug: ${how:-$USB_ANSWER}, $outages outage lines (want 1), longest display gap $gap s (want at most 1.5)"
  fi
  # s4: back within 2 s of the card's return, and round 2's bell on the speaker plugged in
  # again: the longest loud stretch (10 ms windows above a tenth of full scale) recorded after the
  # return, from the data of qemu's WAV file (its header's sizes are written only at the end)
  local heard reply=""
  heard=$(python3 - "$W/usb-speaker-1.wav" <<'PY'
import struct, sys
try:
    data = open(sys.argv[1], "rb").read()
except OSError:
    data = b""
if len(data) < 44:
    print("0.00"); sys.exit()
channels, rate = struct.unpack("<HI", data[22:28])
samples = struct.unpack("<%dh" % ((len(data) - 44) // 2), data[44:44 + (len(data) - 44) // 2 * 2])
window = rate // 100 * channels
longest = run = 0
for i in range(0, len(samples), window):
    run = run + 1 if max(map(abs, samples[i:i + window])) > 3277 else 0
    longest = max(longest, run)
print("%.2f" % (longest / 100))
PY
)
  [ -n "$back" ] && [ -n "$reopened" ] && reply=$(secs "$back" "$reopened")
  if [ -n "$reply" ] && [ "$(us "$reopened")" -le $(( $(us "$back") + 2000000 )) ] && [ "${heard%.*}${heard#*.}" -ge 50 ]; then
    pass s4 "the speaker plays again ${reply} s after the card's return; round 2's bell is on it (loud for $heard s)"
  else
    local returned=${back:+yes}
    fail s4 "card back: ${returned:-no}, plays again: ${reply:-never} s after (at most 2), loudest stretch after the return $heard s (a bell: 0.5 s or more)"
  fi
}
