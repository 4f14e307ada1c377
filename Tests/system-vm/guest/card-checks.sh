# The card's roundclock.toml under systemd, check 14: sourced by system-checks.sh after
# sound-checks.sh (both packages installed). The package's roundclock-card.service, in its
# sandbox, first meets a card file with a syntax error on line 3: it exits 78 (a success for
# systemd), changes nothing and leaves the error, and the clock, started ready, shows ERR, 3
# and CARD on its panels (the host simulator's picture of the same refusal, card-pictures.txt).
# Then a good file: the host name, the time zone, the Wi-Fi profile and the clock's settings
# are written, the passphrase leaves the card, a second run applies nothing, and the clock
# restarted shows no refusal.
# Uses system-checks.sh's helpers.
CARD_UNIT=roundclock-card.service CARD=/boot/firmware/roundclock.toml
card_status() { systemctl show -p ExecMainStatus --value "$CARD_UNIT"; }
card_run() { systemctl reset-failed "$CARD_UNIT" 2> /dev/null; timeout 60 systemctl start "$CARD_UNIT" >> "$DETAILS" 2>&1; }
declare -A CARD_RAM
while read -r panel ram; do CARD_RAM[$panel]=$ram; done < "$SHARE/card-pictures.txt"
card_shown() { [ "$(read_ram 0x70)" = "${CARD_RAM[time]}" ] && [ "$(read_ram 0x71)" = "${CARD_RAM[round]}" ] &&
               [ "$(read_ram 0x72)" = "${CARD_RAM[phase]}" ]; }

timeout 60 systemctl stop "$U"; rm -f "$STATE" "/run/systemd/system/$U.d/50-vm-sound.conf"
timeout 60 systemctl daemon-reload
mkdir -p /boot/firmware
printf 'program = "tabata"\n\n[brightness\nday = 4\n' > "$CARD"
config_before=$(md5sum < "$CONFIG")
card_run; bad_status=$(card_status) bad_result=$(systemctl show -p Result --value "$CARD_UNIT")
bad_error=$(cat /run/roundclock-card/error 2>&1)
config_kept=0; [ "$(md5sum < "$CONFIG")" = "$config_before" ] && config_kept=1
systemctl reset-failed "$U"; timeout 90 systemctl start "$U" >> "$DETAILS" 2>&1
wait_true 60 active; wait_true 30 card_shown; shown=$?
warned=$(journalctl -u "$U" -b --no-pager -o cat | grep -c "the card's settings were not taken: $CARD: line 3")
log "14a: refused card: exit $bad_status ($bad_result), error '$bad_error', config kept=$config_kept, panels ERR/3/CARD: $([ $shown = 0 ] && echo yes || echo "no ($(read_ram 0x70) $(read_ram 0x71) $(read_ram 0x72))"), clock's warnings $warned"

printf 'program = "tabata"\n[system]\nhostname = "ring-7"\ntimezone = "Europe/Berlin"\n[wifi]\nssid = "GymNet"\npassphrase = "correct horse battery"\ncountry = "GB"\n' > "$CARD"
card_run; good_status=$(card_status)
profile=/etc/NetworkManager/system-connections/roundclock-wifi.nmconnection
host=$(hostname) zone=$(readlink /etc/localtime) prog=$(sed -n 's/^program = //p' "$CONFIG")
p_mode=$(stat -c %a "$profile" 2>&1) p_psk=$(grep -c '^psk=correct horse battery$' "$profile" 2>&1)
on_card=$(grep -c 'correct horse' "$CARD") error_left=$([ -e /run/roundclock-card/error ] && echo yes || echo no)
card_run; again=$(journalctl -u "$CARD_UNIT" -b --no-pager -o cat | grep -c 'applied before and unchanged')
timeout 60 systemctl restart "$U"; wait_true 60 active
# the clock started after it: no refusal to show (its session, and so its program, is the one
# it kept)
card_gone() { ! card_shown && [ "$(read_ram 0x72)" != unreadable ]; }
wait_true 30 card_gone; runs=$?
inv=$(systemctl show -p InvocationID --value "$U")
[ "$(journalctl _SYSTEMD_INVOCATION_ID="$inv" -b --no-pager -o cat | grep -c "settings were not taken")" = 0 ] || runs=1
log "14b: good card: exit $good_status; hostname $host, /etc/localtime -> $zone, program $prog, profile mode $p_mode psk lines $p_psk, passphrase on the card $on_card, error left $error_left; second run unchanged $again; the clock restarted shows no refusal: $([ $runs = 0 ] && echo yes || echo no)"
journalctl -u "$CARD_UNIT" -b --no-pager -o short-monotonic >> "$DETAILS" 2>&1
if [ "$bad_status" = 78 ] && [ "$bad_result" = success ] && [[ $bad_error == "$CARD: line 3, column"* ]] &&
   [ $config_kept = 1 ] && [ $shown = 0 ] && [ "$warned" -ge 1 ] && [ "$good_status" = 0 ] && [ "$host" = ring-7 ] &&
   [ "$zone" = /usr/share/zoneinfo/Europe/Berlin ] && [ "$prog" = '"tabata"' ] && [ "$p_mode" = 600 ] &&
   [ "$p_psk" = 1 ] && [ "$on_card" = 0 ] && [ "$error_left" = no ] && [ "$again" -ge 1 ] && [ $runs = 0 ]; then
  pass 14 "card: a syntax error on line 3 refused by $CARD_UNIT (exit 78, nothing changed) and shown on the ready panels (ERR, 3, CARD, as the simulator shows it); a good file applied in the unit's sandbox: hostname ring-7, Europe/Berlin, NetworkManager profile 0600, passphrase gone from the card, the config's program tabata; a second run applies nothing; the clock restarted shows no refusal"
else
  fail 14 "card: refused exit '$bad_status' ($bad_result) error '$bad_error' config kept $config_kept shown $shown warnings $warned; good exit '$good_status' host '$host' zone '$zone' program '$prog' profile '$p_mode' psk '$p_psk' on card '$on_card' error left $error_left again '$again' runs $runs"
fi
