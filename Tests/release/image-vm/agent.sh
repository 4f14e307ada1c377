#!/bin/bash
# The image VM's guest agent (vm-agent.service, in the test's copy of the image only): says it
# is up (up: boot id, uptime), then runs each command the host puts in the share, once, in
# order: cmd/NAME.sh -> NAME.started, NAME.out, NAME.rc. A command a power cut interrupted
# keeps its .started and is never run again.
set -u
S=/run/vm-share
mkdir -p "$S/cmd"
printf 'boot_id=%s\nuptime=%s\nkernel=%s\n' "$(cat /proc/sys/kernel/random/boot_id)" "$(cut -d' ' -f1 /proc/uptime)" \
  "$(uname -r)" > "$S/up.tmp"
mv "$S/up.tmp" "$S/up"
while :; do
  for f in "$S"/cmd/*.sh; do
    [ -e "$f" ] || continue
    n=${f%.sh}
    [ -e "$n.started" ] && continue
    : > "$n.started"
    bash "$f" > "$n.out" 2>&1; echo $? > "$n.rc.tmp"; mv "$n.rc.tmp" "$n.rc"
  done
  sleep 0.3
done
