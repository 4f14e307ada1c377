#!/bin/bash
# Started by systemd as ExecStartPost= of roundclock.service (a drop-in the checks add for
# check 7 and remove again), so it runs with the unit's User=, groups, namespaces, seccomp
# filter and address families: what the service itself could do. One line per attempt on
# stdout (the unit's journal); "ALLOWED" marks a hole. Always exits 0.
say() { echo "sandbox-probe: $*"; }
say "id: $(id)"
if cat /etc/shadow > /dev/null 2>&1; then say "read /etc/shadow: ALLOWED"; else say "read /etc/shadow: refused"; fi
for d in /etc /etc/roundclock /usr/bin /usr/local /var/lib /var/log /var/cache /opt /srv /root /home /mnt/share; do
  f=$d/.roundclock-sandbox-probe
  if ( : > "$f" ) 2>/dev/null; then rm -f "$f"; say "write in $d: ALLOWED"; else say "write in $d: refused"; fi
done
if ( : > /var/lib/roundclock/.sandbox-probe ) 2>/dev/null; then rm -f /var/lib/roundclock/.sandbox-probe; say "state directory: writable"
else say "state directory: NOT writable"; fi
# /tmp and /var/tmp are the unit's own (PrivateTmp=yes): writable, but nobody else's files
( : > /tmp/.sandbox-probe ) 2>/dev/null && say "/tmp: private ($(ls -A /tmp | wc -l) entries visible)"
for target in /dev/tcp/127.0.0.1/22 /dev/udp/127.0.0.1/53 /dev/tcp/::1/22; do
  if ( exec 3<> "$target" ) 2> /tmp/.probe-err; then say "socket $target: ALLOWED"
  else say "socket $target: refused ($(tr -d '\n' < /tmp/.probe-err | sed 's/.*: //'))"; fi
done
say "done"
exit 0
