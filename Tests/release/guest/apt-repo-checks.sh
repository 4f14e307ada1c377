#!/bin/bash
# The signed apt repository's five checks, run by vm-checks.service inside the trixie VM, as
# root, under the VM's own systemd. The host serves the repository at $URL and publishes
# another one there when asked (publish). Each check writes "PASS n text" or "FAIL n text" to
# /mnt/share/results; apt's output and the rest go to /mnt/share/details. See ../README.md.
set -u
SHARE=/mnt/share
. "$SHARE/config.sh"   # URL VERSION UPGRADE_VERSION GATEWAY_VERSION UPGRADE_GATEWAY_VERSION OTHER_KEY CONFFILE_CHANGED
export DEBIAN_FRONTEND=noninteractive
RESULTS=$SHARE/results DETAILS=$SHARE/details
U=roundclock.service G=roundclock-gateway.service CONFIG=/etc/roundclock/config.toml
PIN=/var/lib/roundclock-gateway/pin
CONTROL=(python3 "$SHARE/control.py")

log() { echo "[$(cut -d' ' -f1 /proc/uptime)s] $*" | tee -a "$DETAILS" > /dev/console; }
result() { echo "$1 $2 $3" | tee -a "$RESULTS" >> "$DETAILS"; echo "$1 $2 $3" > /dev/console; }
pass() { result PASS "$1" "$2"; }
fail() { result FAIL "$1" "$2"; }
finish() { trap - EXIT; log "checks done"; sync; systemctl poweroff; exit 0; }
trap 'log "apt-repo-checks.sh ended early (line $LINENO)"; finish' EXIT
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }
# wait_true SECONDS COMMAND...: until COMMAND succeeds (every 0.5 s), false at the deadline
wait_true() { local end=$(( $(now_us) + $1 * 1000000 )); shift; until "$@"; do [ "$(now_us)" -gt "$end" ] && return 1; sleep 0.5; done; }
active() { [ "$(systemctl is-active "$1")" = active ]; }
# installed: both packages' versions and states, as dpkg has them
installed() { dpkg-query -W -f='${Package}=${Version} ${db:Status-Abbrev}\n' roundclock roundclock-gateway 2>&1 | xargs; }
version_of() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }
candidate() { apt-cache policy roundclock 2>/dev/null | sed -n 's/^ *Candidate: //p'; }
upgradable() { apt list --upgradable 2>/dev/null | grep -c '^roundclock' || true; }
# run NAME COMMAND...: COMMAND's output (stdout and stderr) in OUT and the details, its status
run() { local name=$1; shift; OUT=$("$@" 2>&1); local rc=$?; printf '== %s (exit %s)\n%s\n' "$name" "$rc" "$OUT" >> "$DETAILS"; return $rc; }
# apt's fetch lines that name another place than the repository
elsewhere() { printf '%s\n' "$1" | grep -E '^(Get|Hit|Ign|Err):' | grep -vF " $URL " | tr '\n' ' '; }
# publish NAME: the host serves the repository NAME at $URL from now on
publish() {
  rm -f "$SHARE/published"
  echo "$1" > "$SHARE/publish.tmp" && mv "$SHARE/publish.tmp" "$SHARE/publish"
  wait_true 180 test -f "$SHARE/published" || { PUBLISHED="the host published nothing in 180 s"; return 1; }
  PUBLISHED=$(cat "$SHARE/published"); log "published: $PUBLISHED"
  [ "$PUBLISHED" = "ok $1" ]
}
# refused N WHAT TEXT...: apt update against a repository that apt must refuse, saying each
# TEXT; nothing may change: the installed packages, the candidate, nothing upgradable, and the
# version that repository offers not installable
refused() {
  local n=$1 what=$2 before cand0 rc text said="" missing="" cand up after sim
  shift 2
  before=$(installed) cand0=$(candidate)
  if ! publish "$what"; then fail "$n" "the host could not publish the $what repository: $PUBLISHED"; return; fi
  run "apt-cache policy before ($what)" apt-cache policy roundclock
  run "apt update ($what)" apt update; rc=$?
  # each argument is a text apt must print; "A||B" means either A or B
  for text in "$@"; do
    local found="" alt rest=$text
    while [ -n "$rest" ]; do
      alt=${rest%%||*}; [ "$alt" = "$rest" ] && rest="" || rest=${rest#*||}
      if printf '%s\n' "$OUT" | grep -qF -- "$alt"; then found=$alt; break; fi
    done
    if [ -n "$found" ]; then said="$said '$found'"; else missing="$missing '${text//||/' or '}'"; fi
  done
  cand=$(candidate) up=$(upgradable) after=$(installed)
  run "apt-cache policy after ($what)" apt-cache policy roundclock
  run "apt-get install -s roundclock=$UPGRADE_VERSION ($what)" apt-get install -s "roundclock=$UPGRADE_VERSION"; sim=$?
  log "$n: apt update exit $rc; said:${said:- nothing expected}; did not say:${missing:- -}; candidate $cand0 -> $cand; upgradable: $up; roundclock=$UPGRADE_VERSION installable: $([ $sim = 0 ] && echo yes || echo no); installed: $after"
  if [ -z "$missing" ] && [ "$cand" = "$cand0" ] && [ "$cand" = "$VERSION" ] && [ "$up" = 0 ] &&
     [ $sim != 0 ] && [ "$after" = "$before" ] && active "$U"; then
    pass "$n" "$what repository refused: apt update (exit $rc) said$said; candidate still $cand, nothing upgradable, roundclock=$UPGRADE_VERSION not installable; installed unchanged ($after)"
  else
    fail "$n" "$what repository: apt update exit $rc, said:${said:- none of the expected}, did not say:${missing:- -}; its errors and warnings: '$(printf '%s\n' "$OUT" | grep -E '^(Error|Warning|E|W|Err):' | head -4 | tr '\n' ' ')'; candidate $cand0 -> $cand, $up upgradable, roundclock=$UPGRADE_VERSION installable: $([ $sim = 0 ] && echo yes || echo no); installed $before -> $after; clock $(systemctl is-active "$U")"
  fi
}

log "apt-repo checks: boot $(cat /proc/sys/kernel/random/boot_id), kernel $(uname -r), $(. /etc/os-release; echo "$PRETTY_NAME"), systemd $(systemctl --version | head -1), repository $URL"
: > "$RESULTS"

# ---- 1. the repository added as documented, both packages installed from it ---------------
# the keyring and the stanza come from the repository itself, with apt's own downloader
run "keyring and sources" bash -c "/usr/lib/apt/apt-helper download-file '$URL/roundclock-archive-keyring.gpg' /tmp/keyring.gpg &&
  /usr/lib/apt/apt-helper download-file '$URL/roundclock.sources' /tmp/roundclock.sources &&
  install -m 0644 /tmp/keyring.gpg /usr/share/keyrings/roundclock-archive-keyring.gpg &&
  install -m 0644 /tmp/roundclock.sources /etc/apt/sources.list.d/roundclock.sources"; fetched=$?
cat /etc/apt/sources.list.d/roundclock.sources >> "$DETAILS" 2>&1
dpkg-query -W -f='${Package}\n' | sort > /tmp/packages.before
# apt's HTTP requests shown: the indices must be asked for by hash (Release says Acquire-By-Hash)
run "apt update" apt update -o Debug::Acquire::http=true; u_rc=$?; u_out=$OUT
by_hash=$(printf '%s\n' "$u_out" | grep -cE '^GET [^ ]*/binary-amd64/by-hash/SHA256/[0-9a-f]{64} ' || true)
by_name=$(printf '%s\n' "$u_out" | grep -cE '^GET [^ ]*/binary-amd64/Packages(\.[a-z]+)? ' || true)
run "apt install" apt install -y roundclock roundclock-gateway; i_rc=$?; i_out=$OUT
new=$(dpkg-query -W -f='${Package}\n' | sort | comm -13 /tmp/packages.before - | xargs)
from_repo=""
for p in "roundclock amd64 $VERSION" "roundclock-gateway amd64 $GATEWAY_VERSION"; do
  printf '%s\n' "$i_out" | grep -E '^Get:' | grep -qF " $URL trixie/main amd64 $p " && from_repo="$from_repo ${p%% *}"
done
other=$(elsewhere "$u_out"; elsewhere "$i_out")
wait_true 60 active "$U"; wait_true 60 active "$G"
v=$(roundclock --version 2>&1)
log "1: keyring and sources fetched: rc $fetched; apt update rc $u_rc (indices asked for by hash: $by_hash, by name: $by_name), install rc $i_rc; new packages: $new; fetched from $URL:$from_repo; fetched elsewhere: ${other:-nothing}; $(installed); clock $(systemctl is-active "$U"), gateway $(systemctl is-active "$G"); --version $v"
if [ $fetched = 0 ] && [ $u_rc = 0 ] && [ $by_hash -ge 1 ] && [ $by_name = 0 ] && [ $i_rc = 0 ] && [ "$new" = "roundclock roundclock-gateway" ] &&
   [ "$from_repo" = " roundclock roundclock-gateway" ] && [ -z "$other" ] &&
   [ "$(version_of roundclock)" = "$VERSION" ] && [ "$(version_of roundclock-gateway)" = "$GATEWAY_VERSION" ] &&
   active "$U" && active "$G" && [ "$v" = "$VERSION" ]; then
  pass 1 "keyring and roundclock.sources from the repository; apt update (the package list fetched by hash: $by_hash request(s), none by name), apt install -y roundclock roundclock-gateway: both fetched from $URL and installed ($(installed)), nothing else new; clock and gateway active; roundclock --version $v"
else
  fail 1 "keyring/sources rc $fetched, apt update rc $u_rc (package lists by hash: $by_hash, by name: $by_name), install rc $i_rc; new packages '$new'; fetched from the repository:${from_repo:- none}; fetched elsewhere: '${other}'; installed '$(installed)'; clock $(systemctl is-active "$U"), gateway $(systemctl is-active "$G"); --version '$v'"
fi

# ---- the owner's edit, and a round of the edited program started over the control socket --
# A comment and a changed program, as an owner would; check-config must accept it.
sed -i 's|^sparring = .*|# Saturday sparring: five three-minute rounds\nsparring = "5 x 3:00/1:00, prep 0:10, warn 0:10"|' "$CONFIG"
grep -q '^sparring = "5 x 3:00/1:00' "$CONFIG" || log "the owner's edit did not apply: $(grep -n sparring "$CONFIG")"
cp -p "$CONFIG" /root/config.edited
run "check-config" roundclock check-config "$CONFIG"; edit_ok=$?
systemctl restart "$U"; wait_true 60 active "$U"
wait_true 30 test -S /run/roundclock/control.sock
run "program sparring" "${CONTROL[@]}" send '{"command": "program", "program": "sparring"}'
run "start" "${CONTROL[@]}" send '{"command": "start"}'
"${CONTROL[@]}" state /root/state-started.json 2>> "$DETAILS"
log "round started: $(cat /root/state-started.json 2>&1)"

# ---- 2. a Packages file changed after signing is refused ----------------------------------
# apt compares the size first: the recompressed Packages.gz may differ in length from the
# signed one ("unexpected size") or not ("Hash Sum mismatch"); either is the refusal. The
# tampered lists lie at their names and at their signed hashes' names in by-hash/.
refused 2 tampered "Failed to fetch $URL/dists/trixie/main/binary-amd64/" \
  'Hash Sum mismatch||File has unexpected size'

# ---- 3. a repository signed by another key is refused -------------------------------------
# (apt 3.0 verifies with sqv; it warns and keeps the previous index files)
refused 3 wrong-key "Missing key $OTHER_KEY, which is needed to verify signature" \
  'The repository is not updated and the previous index files will be used'

# ---- 4. the upgrade published; apt upgrade as an unattended upgrade runs it, the round goes on
# The host serves it as a cache does right after a release: the new InRelease, and at the
# package lists' own names the release's; apt asks for the lists by hash, so it gets the new.
if ! publish upgrade; then
  fail 4 "the host could not publish the upgrade: $PUBLISHED"
else
  pid=$(systemctl show -p MainPID --value "$U") gpid=$(systemctl show -p MainPID --value "$G")
  pin0=$(cat "$PIN" 2>&1)
  "${CONTROL[@]}" state /root/state-before.json 2>> "$DETAILS"
  # unattended-upgrades' own dpkg options: keep a changed conffile, never ask
  run "apt update (upgrade)" apt update; u_rc=$?
  run "apt upgrade" apt upgrade -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold; g_rc=$?; g_out=$OUT
  wait_true 60 active "$U"; wait_true 60 active "$G"
  wait_true 30 test -S /run/roundclock/control.sock
  newpid=$(systemctl show -p MainPID --value "$U") newgpid=$(systemctl show -p MainPID --value "$G")
  pin1=$(cat "$PIN" 2>&1)
  "${CONTROL[@]}" state /root/state-after.json 2>> "$DETAILS"
  on=$("${CONTROL[@]}" goes-on /root/state-before.json /root/state-after.json 2>&1); on_rc=$?
  clock=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["clock"])' /root/state-after.json 2>&1)
  v=$(roundclock --version 2>&1)
  got=$(printf '%s\n' "$g_out" | grep -E '^Get:' | grep -F " $URL trixie/main amd64 roundclock amd64 $UPGRADE_VERSION " | head -1)
  ggot=$(printf '%s\n' "$g_out" | grep -E '^Get:' | grep -F " $URL trixie/main amd64 roundclock-gateway amd64 $UPGRADE_GATEWAY_VERSION " | head -1)
  other=$(elsewhere "$g_out")
  kept=no; cmp -s "$CONFIG" /root/config.edited && kept=yes
  prompt=$(printf '%s\n' "$g_out" | grep -c 'Configuration file' || true)
  log "4: apt update rc $u_rc, upgrade rc $g_rc; fetched: ${got:-nothing from $URL} / ${ggot:-no gateway from $URL}; elsewhere: ${other:-nothing}; $(installed); --version $v, over the socket $clock; MainPID $pid -> $newpid, gateway $gpid -> $newgpid; the gateway's PIN kept: $([ "$pin0" = "$pin1" ] && echo yes || echo "no ($pin0 -> $pin1)"); config kept byte for byte: $kept (packaged conffile changed between the versions: $CONFFILE_CHANGED; dpkg's conffile lines: $prompt); the round: $on"
  diff /root/config.edited "$CONFIG" >> "$DETAILS" 2>&1
  if [ $u_rc = 0 ] && [ $g_rc = 0 ] && [ -n "$got" ] && [ -n "$ggot" ] && [ -z "$other" ] && [ "$(version_of roundclock)" = "$UPGRADE_VERSION" ] &&
     [ "$(version_of roundclock-gateway)" = "$UPGRADE_GATEWAY_VERSION" ] && [ "$v" = "$UPGRADE_VERSION" ] && [ "$clock" = "$UPGRADE_VERSION" ] &&
     [ "$newpid" != "$pid" ] && [ "$newpid" != 0 ] && [ "$newgpid" != "$gpid" ] && [ "$newgpid" != 0 ] &&
     [ -n "$pin0" ] && [ "$pin0" = "$pin1" ] && [ $edit_ok = 0 ] && [ $kept = yes ] && [ $on_rc = 0 ] && active "$U" && active "$G"; then
    pass 4 "apt update (a stale Packages beside the new InRelease), apt upgrade -y (confdef, confold): roundclock $VERSION -> $UPGRADE_VERSION and roundclock-gateway $GATEWAY_VERSION -> $UPGRADE_GATEWAY_VERSION from $URL, both restarted (pid $pid -> $newpid, $gpid -> $newgpid), --version and the socket say $UPGRADE_VERSION, the owner's config.toml kept byte for byte, the gateway's PIN kept; $on"
  else
    fail 4 "apt update rc $u_rc, upgrade rc $g_rc, fetched '${got:-nothing from the repository}' '${ggot:-no gateway}', elsewhere '$other'; installed '$(installed)'; --version '$v', socket '$clock'; MainPID $pid -> $newpid, gateway $gpid -> $newgpid; PIN kept: $([ -n "$pin0" ] && [ "$pin0" = "$pin1" ] && echo yes || echo no); check-config of the owner's edit exit $edit_ok, config kept: $kept; the round: $on; apt update's errors: '$(grep -E '^(E|W|Err):' <<< "$OUT" | head -3 | tr '\n' ' ')'"
  fi
fi

# ---- 5. the maintainer scripts: remove, reinstall, purge, reinstall ------------------------
# leftover: which of the packages' files and state are on the system; dpkg_state: dpkg's
# status of each package that is not "not-installed"; pin_hash: the start of the PIN's SHA256
leftover() {
  local p
  for p in /etc/roundclock /etc/roundclock/config.toml /var/lib/roundclock /var/lib/roundclock-gateway "$PIN" \
           /etc/avahi/services/roundclock-gateway.service /usr/lib/systemd/system/roundclock.service \
           /usr/lib/systemd/system/roundclock-gateway.service /usr/bin/roundclock /usr/bin/roundclock-gateway; do
    [ -e "$p" ] && printf '%s ' "$p"
  done
}
dpkg_state() { dpkg-query -W -f='${Package}:${db:Status-Status}\n' roundclock roundclock-gateway 2>/dev/null | grep -v ':not-installed$' | xargs; }
pin_hash() { sha256sum < "$PIN" 2>/dev/null | cut -c1-12; }
problems=""
problem() { problems="$problems; $*"; log "5: $*"; }
pin_before=$(pin_hash)
cp -p "$CONFIG" /root/config.before-remove 2>/dev/null
# remove: the services stop; the config, the session and the PIN stay
run "apt-get remove" apt-get remove -y roundclock roundclock-gateway; rc=$?
state=$(dpkg_state) left=$(leftover)
log "5 remove: rc $rc; dpkg: $state; left: $left; clock $(systemctl is-active "$U"), gateway $(systemctl is-active "$G")"
[ $rc = 0 ] || problem "apt-get remove exit $rc"
[ "$state" = "roundclock:config-files roundclock-gateway:config-files" ] || problem "after remove dpkg has '$state', not both config-files"
! active "$U" && ! active "$G" || problem "a service still runs after remove"
[ -f "$PIN" ] && [ "$(pin_hash)" = "$pin_before" ] || problem "remove took the gateway's PIN"
cmp -s "$CONFIG" /root/config.before-remove || problem "remove changed or removed config.toml"
[ -d /var/lib/roundclock ] || problem "remove took /var/lib/roundclock"
# reinstall after remove: the same PIN and config, both running
run "apt-get install (after remove)" apt-get install -y roundclock roundclock-gateway; rc=$?
wait_true 60 active "$U"; wait_true 60 active "$G"
log "5 reinstall after remove: rc $rc; $(installed); PIN kept: $([ "$(pin_hash)" = "$pin_before" ] && echo yes || echo no)"
[ $rc = 0 ] && active "$U" && active "$G" || problem "reinstall after remove: exit $rc, clock $(systemctl is-active "$U"), gateway $(systemctl is-active "$G")"
[ "$(pin_hash)" = "$pin_before" ] || problem "the reinstalled gateway has another PIN"
cmp -s "$CONFIG" /root/config.before-remove || problem "the reinstall changed config.toml"
# purge: nothing of either package is left, the gateway's PIN and tokens included
run "apt-get purge" apt-get purge -y roundclock roundclock-gateway; rc=$?
state=$(dpkg_state) left=$(leftover)
log "5 purge: rc $rc; dpkg: '${state}'; left: '${left}'"
[ $rc = 0 ] || problem "apt-get purge exit $rc"
[ -z "$state" ] || problem "after purge dpkg still has '$state'"
[ -z "$left" ] || problem "purge left $left"
# reinstall after purge: both run, with the package's config and a new PIN
run "apt-get install (after purge)" apt-get install -y roundclock roundclock-gateway; rc=$?
wait_true 60 active "$U"; wait_true 60 active "$G"; wait_true 30 test -s "$PIN"
pin_after=$(pin_hash)
log "5 reinstall after purge: rc $rc; $(installed); PIN $pin_before -> $pin_after; config.toml the owner's: $(cmp -s "$CONFIG" /root/config.edited && echo yes || echo no)"
[ $rc = 0 ] && active "$U" && active "$G" || problem "reinstall after purge: exit $rc, clock $(systemctl is-active "$U"), gateway $(systemctl is-active "$G")"
[ -n "$pin_after" ] && [ "$pin_after" != "$pin_before" ] || problem "after purge and reinstall the PIN is '${pin_after:-missing}', not a new one"
! cmp -s "$CONFIG" /root/config.edited || problem "after purge and reinstall config.toml is still the owner's edit"
if [ -z "$problems" ]; then
  pass 5 "apt-get remove: both stopped, config.toml, /var/lib/roundclock and the gateway's PIN kept; install: running again with the same PIN and config; purge: nothing left (/etc/roundclock, /var/lib/roundclock, /var/lib/roundclock-gateway, the Avahi file, units, binaries), dpkg knows neither; install: running with the packaged config and a new PIN ($(installed))"
else
  fail 5 "${problems#; }"
fi
finish
