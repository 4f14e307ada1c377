# The phone remote under systemd, checks 10 and 11, and the man pages of both
# packages, check 12: sourced by system-checks.sh at
# the end of boot 2, after check 9 purged the clock's package (so both packages are installed
# fresh, the clock's config and session are the package's own: boxing, ready). Uses its
# helpers (log, pass, fail, prop, active, wait_true, snooze, now_us, anchor_us, time_ok,
# shows_true_second). The host drives the page (../page_check.py) through qemu's hostfwd
# port to the gateway's port 80: this script writes gateway-ready (the PIN) to the share and
# waits for the host's page-result. See ../README.md, checks 10 and 11.
G=roundclock-gateway.service
gprop() { systemctl show -p "$1" --value "$G"; }
g_active() { [ "$(systemctl is-active "$G")" = active ]; }
# exposure UNIT: systemd-analyze security's overall exposure of the running unit
exposure() { systemd-analyze security "$1" 2>&1 | sed -n "s/.*Overall exposure level for $1: \([0-9.]*\).*/\1/p"; }
at_most() { [ -n "$1" ] && awk -v e="$1" -v m="$2" 'BEGIN { exit !(e <= m) }'; }
# unit_setting FILE KEY: the value of KEY= in an installed unit file (empty if absent)
unit_setting() { sed -n "s/^$2=//p" "$1" | tail -1; }

# ---- 10. both packages installed: both units active, the clock still sealed, exposures -----
log "10: apt install $DEB $GATEWAY_DEB"
apt-get install -y "$DEB" "$GATEWAY_DEB" >> "$DETAILS" 2>&1; g_rc=$?
wait_true 60 active; wait_true 60 g_active
clock_act=$(systemctl is-active "$U") gw_act=$(systemctl is-active "$G") gw_en=$(systemctl is-enabled "$G" 2>&1)
private=$(prop PrivateNetwork) families=$(prop RestrictAddressFamilies)
gw_devices="PrivateDevices=$(gprop PrivateDevices) DevicePolicy=$(gprop DevicePolicy)"
e_clock=$(exposure roundclock.service) e_gw=$(exposure "$G")
cpid=$(prop MainPID) gpid=$(gprop MainPID)
# scheduling as the units ask for it (docs/benchmarks.md, "Phone remote": the clock pre-empts the
# gateway and everything else; a flood against the gateway yields)
c_policy=$(chrt -p "$cpid" 2>&1 | tr '\n' ' ') g_nice=$(ps -o ni= -p "$gpid" | tr -d ' ')
want_policy=$(unit_setting /usr/lib/systemd/system/roundclock.service CPUSchedulingPolicy)
want_prio=$(unit_setting /usr/lib/systemd/system/roundclock.service CPUSchedulingPriority)
want_nice=$(unit_setting /usr/lib/systemd/system/$G Nice)
sched_ok=1
[[ $c_policy == *"SCHED_${want_policy^^}"*"priority: ${want_prio}"* ]] || sched_ok=0
[ "$g_nice" = "${want_nice:-0}" ] || sched_ok=0
guid=$(id -u roundclock-gateway 2>/dev/null) ggid=$(id -g roundclock-gateway 2>/dev/null)
remote=$(getent group roundclock-remote | cut -d: -f3)
g_uid=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' /proc/"$gpid"/status 2>/dev/null)
g_groups=$(awk '/^Groups:/ { $1 = ""; print }' /proc/"$gpid"/status 2>/dev/null | xargs -n1 | sort -n | xargs)
w_groups=$(printf '%s\n' "$ggid" "$remote" | sort -n | xargs)
# the gateway's own /dev: PrivateDevices= leaves only the pseudo devices (no i2c, no gpiochip)
g_dev=$(ls /proc/"$gpid"/root/dev 2>/dev/null | grep -cE '^(i2c-|gpiochip)')
avahi_line() { journalctl -u avahi-daemon -b --no-pager -o cat 2>/dev/null | grep -m1 'roundclock-gateway.service.*established'; }
wait_true 30 avahi_line > /dev/null; avahi=$(avahi_line)
log "10: install rc $g_rc; clock $clock_act (PrivateNetwork=$private RestrictAddressFamilies=$families, exposure $e_clock, $c_policy); gateway $gw_act $gw_en (exposure $e_gw, nice $g_nice, Uid $g_uid, Groups $g_groups want $w_groups, $gw_devices, i2c/gpio nodes in its /dev: $g_dev); avahi: ${avahi:-nothing}"
journalctl -u "$G" -b --no-pager -o short-monotonic >> "$DETAILS" 2>&1
if [ $g_rc = 0 ] && [ "$clock_act" = active ] && [ "$gw_act" = active ] && [ "$gw_en" = enabled ] &&
   [ "$private" = yes ] && [ "$families" = AF_UNIX ] && at_most "$e_clock" 2.0 && at_most "$e_gw" 3.0 &&
   [ $sched_ok = 1 ] && [ "$g_uid" = "$guid $guid $guid $guid" ] && [ "$guid" != 0 ] && [ "$g_groups" = "$w_groups" ] &&
   [ "$g_dev" = 0 ] && [ -n "$avahi" ]; then
  pass 10 "both packages installed: roundclock and roundclock-gateway active; the clock PrivateNetwork=yes, RestrictAddressFamilies=AF_UNIX, exposure $e_clock (<= 2.0), SCHED_${want_policy^^} ${want_prio}; the gateway exposure $e_gw (<= 3.0), nice $g_nice, user roundclock-gateway (uid $guid) in roundclock-remote only, no I2C/GPIO device; Avahi published its service file"
else
  fail 10 "install rc $g_rc; clock $clock_act PrivateNetwork=$private RestrictAddressFamilies=$families exposure '$e_clock' sched '$c_policy' (want $want_policy $want_prio); gateway $gw_act/$gw_en exposure '$e_gw' nice '$g_nice' (want ${want_nice:-0}) Uid '$g_uid' Groups '$g_groups' (want '$w_groups') devices $g_dev; avahi '${avahi}'"
fi

# ---- 11. the page, in Chromium on the host, drives the clock across the socket -------------
pin=$(roundclock-gateway --show-pin --config "$CONFIG" 2>> "$DETAILS")
rm -f "$SHARE/page-result"
printf 'PIN=%s\n' "$pin" > "$SHARE/gateway-ready.tmp" && mv "$SHARE/gateway-ready.tmp" "$SHARE/gateway-ready"
log "11: gateway ready (PIN from --show-pin: ${#pin} digits); waiting for the host's browser"
wait_true 400 test -f "$SHARE/page-result"
PAGE_STATUS=MISSING PAGE_TEXT="the host wrote no page-result" TAP_BEFORE_US=0 TAP_AFTER_US=0
[ -f "$SHARE/page-result" ] && . "$SHARE/page-result"
wait_true 10 bash -c "grep -q '^state=running' $STATE"
# The tap's time is the host's, the anchor the guest's: the guest's wall clock comes from the
# emulated RTC in whole seconds (no kvmclock under TCG), so they may differ by up to a second
# (-336 ms seen); the anchor must be within 1.5 s of the tap either way. The RAM reads below
# are against the guest's own clock and exact.
ANCHOR=$(anchor_us) state=$(state_of)
reads=0 good=0
if [ -n "$ANCHOR" ]; then
  for i in 1 2 3; do reads=$((reads + 1)); time_ok "$ANCHOR" && good=$((good + 1)); snooze 0.9; done
fi
log "11: page: $PAGE_STATUS $PAGE_TEXT; state=$state anchor $ANCHOR us, tap $TAP_BEFORE_US..$TAP_AFTER_US us; $good of $reads time-panel reads right (last $TIME_SEEN, want one of:$TIME_WANT); gateway $(systemctl is-active "$G"), clock $(systemctl is-active "$U") PrivateNetwork=$(prop PrivateNetwork)"
journalctl -u "$G" -u "$U" -b --no-pager -o short-monotonic | tail -30 >> "$DETAILS" 2>&1
if [ "$PAGE_STATUS" = PASS ] && [ "$state" = running ] && [ -n "$ANCHOR" ] &&
   [ $((ANCHOR - TAP_BEFORE_US)) -gt -1500000 ] && [ $((ANCHOR - TAP_AFTER_US)) -lt 1500000 ] && [ $good = 3 ] &&
   g_active && active && [ "$(prop PrivateNetwork)" = yes ]; then
  pass 11 "the page in headless Chromium on the host (qemu hostfwd to the gateway's port 80): $PAGE_TEXT; in the VM the session runs from the tap (anchor $(( (ANCHOR - TAP_BEFORE_US) / 1000 )) ms after it) and 3 of 3 time-panel RAM reads show the true second; the clock unit still PrivateNetwork=yes"
else
  fail 11 "page $PAGE_STATUS ($PAGE_TEXT); state '$state', anchor '$ANCHOR' vs tap $TAP_BEFORE_US..$TAP_AFTER_US, $good of $reads RAM reads right"
fi

# ---- 12. the man pages of both packages: installed where man finds them, and rendered -------
# (man-db is in the VM's root filesystem; wide lines, so that no key or option is broken)
man_ok=1 man_text=""
for spec in "roundclock 1 check-config" "roundclock.toml 5 layouts.<name>.digits[].com" "roundclock-gateway 1 --show-pin"; do
  read -r page section phrase <<< "$spec"
  file=$(man -w "$section" "$page" 2>> "$DETAILS")
  out=$(MANWIDTH=200 MANPAGER=cat man -P cat "$section" "$page" 2>> "$DETAILS"); m_rc=$?
  name_line=$(printf '%s\n' "$out" | grep -A1 -m1 '^NAME' | tail -1 | sed 's/^ *//')
  if [ $m_rc = 0 ] && [ "$file" = "/usr/share/man/man$section/$page.$section.gz" ] &&
     printf '%s\n' "$out" | grep -qF -- "$phrase" && [ -n "$name_line" ]; then
    man_text="$man_text $page($section): '$name_line', $(printf '%s\n' "$out" | wc -l) lines;"
  else
    man_ok=0 man_text="$man_text $page($section): rc $m_rc, file '$file', '$phrase' $(printf '%s\n' "$out" | grep -qF -- "$phrase" && echo found || echo missing);"
  fi
done
docs=$(prop Documentation) g_docs=$(gprop Documentation)
log "12: man pages:$man_text units' Documentation: '$docs' / '$g_docs'"
if [ $man_ok = 1 ] && [[ $docs == *"man:roundclock(1)"* ]] && [[ $g_docs == *"man:roundclock-gateway(1)"* ]]; then
  pass 12 "man pages render after apt install:$man_text both units name them in Documentation="
else
  fail 12 "man pages:$man_text Documentation= '$docs' / '$g_docs'"
fi
