# Sourced by check-packages.sh: each check's verdict from what the in-root scripts left under
# RUN/<root>/. The caller runs each as `report_... || true`: a step of a report that fails
# (a grep that finds nothing) never ends the run. Needs from the caller: HERE, RUN, LOGS, TAR
# (root tarballs by name), run_in, timed.
PASSED=0 FAILED=0
pass() { echo "PASS $*"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $*"; FAILED=$((FAILED + 1)); }

# Check 1: apt-get's exit status, both packages installed, and every other package the install
# added taken from Debian's archive (apt-cache policy: the installed version has a source
# besides dpkg's status file).
report_install() {
  local arch=$1 dir=$RUN/$1 rc local_only added
  rc=$(cat "$dir/install.rc" 2>/dev/null || echo none)
  if [ "$rc" != 0 ]; then
    fail "1 $arch: apt-get install ./roundclock_*_$arch.deb ./roundclock-gateway_*_$arch.deb exited $rc:" \
      "$(grep -E '^(E:| [a-z0-9.+-]+ : Depends)' "$dir/apt-install.log" 2>/dev/null | head -5 | tr '\n' ' ')"
    return
  fi
  # packages whose installed version comes from no archive (only /var/lib/dpkg/status)
  local_only=$(awk '
    /^[^ ].*:$/ { pkg = substr($0, 1, length($0) - 1); seen[pkg] = 1; current = 0; next }
    /^ \*\*\* / { current = 1; next }
    /^     [^ ]/ { current = 0; next }
    current && /^        +[0-9]+ / { if ($2 != "/var/lib/dpkg/status") archive[pkg] = $2 }
    END { for (p in seen) if (!(p in archive)) print p }' "$dir/policy.txt" | sort | tr '\n' ' ')
  added=$(grep -vxE 'roundclock|roundclock-gateway' "$dir/new.txt" | tr '\n' ' ' || true)
  if ! grep -qx roundclock "$dir/new.txt" || ! grep -qx roundclock-gateway "$dir/new.txt"; then
    fail "1 $arch: apt-get exited 0 but the packages are not both installed: $(tr '\n' ' ' < "$dir/new.txt")"
  elif [ "$local_only" != "roundclock roundclock-gateway " ]; then
    fail "1 $arch: installed from no archive: $local_only(expected only roundclock roundclock-gateway)"
  else
    pass "1 $arch: apt-get install exit 0 in a minimal trixie root; from $(awk '/^ +[0-9]+ http/ {print $2; exit}' \
      "$dir/policy.txt"): $added($(wc -w <<< "$added") packages); --version:" \
      "$(tr '\n' ' ' < "$dir/version.txt")($(paste -sd, "$dir/phases.txt" | sed 's/,/, /g'))"
  fi
  local want missing=""
  for want in roundclock:/var/lib/roundclock:/usr/sbin/nologin \
    roundclock-gateway:/var/lib/roundclock-gateway:/usr/sbin/nologin "verified roundclock.service" \
    "verified roundclock-gateway.service"; do
    grep -qxF "$want" "$dir/system.txt" 2>/dev/null || missing+="\"$want\" "
  done
  if [ -z "$missing" ]; then pass "1 $arch: service users made, both units pass systemd-analyze verify"
  else fail "1 $arch: system.txt lacks $missing: $(head -c 300 "$dir/system.txt" 2>/dev/null | tr '\n' ' ')"; fi
}

# first_difference A B: the first line of A and B that differ (a frame, for a frames file).
first_difference() {
  local line
  line=$(cmp "$1" "$2" 2>&1 | grep -o 'line [0-9]*' | cut -d' ' -f2 || true)
  [ -n "$line" ] || { cmp "$1" "$2" 2>&1 | head -1; return; }
  echo "first difference at line $line: amd64 $(sed -n "${line}p" "$1" | cut -c1-160)" \
    "| arm64 $(sed -n "${line}p" "$2" | cut -c1-160)"
}

# Check 2: the same runs on both, each frames file, output and sound track equal byte for byte.
report_simulations() {
  local amd=$RUN/amd64/out arm=$RUN/arm64/out spec name rc file what problems sizes
  if [ ! -s "$amd/runs.txt" ] || [ ! -s "$arm/runs.txt" ]; then
    fail "2 no simulations ran (amd64: $(wc -l < "$amd/runs.txt" 2>/dev/null || echo 0)," \
      "arm64: $(wc -l < "$arm/runs.txt" 2>/dev/null || echo 0) runs; logs in $LOGS)"
    return
  fi
  if cmp -s "$amd/programs.txt" "$arm/programs.txt"; then pass "2 roundclock programs: the same list on both"
  else fail "2 roundclock programs differs: $(first_difference "$amd/programs.txt" "$arm/programs.txt")"; fi
  local kinds renders
  kinds=$(grep '^== ' "$amd/render.txt" | cut -d' ' -f2 | sort -u | paste -sd' ' || true)
  renders=$(grep -c '^exit 0$' "$amd/render.txt" || true)
  if [ -z "$kinds" ] || [ "$renders" = 0 ]; then fail "2 render --plain: no backpack kind rendered (see $amd/render.txt)"
  elif cmp -s "$amd/render.txt" "$arm/render.txt"; then
    pass "2 render --plain on $kinds: $(grep -c '^== ' "$amd/render.txt") renders ($renders drawn, the rest refused" \
      "alike), $(stat -c %s "$amd/render.txt") B equal"
  else fail "2 render --plain differs: $(first_difference "$amd/render.txt" "$arm/render.txt")"; fi
  if ! cmp -s "$amd/runs.txt" "$arm/runs.txt"; then
    fail "2 runs differ (spec|name|exit): $(first_difference "$amd/runs.txt" "$arm/runs.txt")"
  fi
  while IFS='|' read -r spec name rc; do
    problems="" sizes=""
    [ "$rc" = 0 ] || problems="exit $rc ($(head -c 200 "$amd/$name.out")); "
    grep -q '"panel"' "$amd/$name.jsonl" 2>/dev/null || problems+="no frames written; "
    for file in "$name.jsonl" "$name.out" "$name.wav"; do
      [ -e "$amd/$file" ] || [ -e "$arm/$file" ] || continue
      case $file in *.jsonl) what=frames ;; *.out) what=output ;; *) what="sound track" ;; esac
      if cmp -s "$amd/$file" "$arm/$file"; then
        sizes+="$what $(stat -c %s "$amd/$file") B, "
      elif [[ $file == *.wav ]]; then
        problems+="$what differs: $(cmp "$amd/$file" "$arm/$file" 2>&1 | head -1 | sed 's/.*differ: //; s/, line [0-9]*//' || true),"
        problems+=" $(stat -c %s "$amd/$file" 2>/dev/null || echo 0) / $(stat -c %s "$arm/$file" 2>/dev/null || echo 0) B; "
      else
        problems+="$what differs: $(first_difference "$amd/$file" "$arm/$file"); "
      fi
    done
    if [ -z "$problems" ]; then pass "2 \"$spec\": arm64 = amd64: ${sizes%, }"
    else fail "2 \"$spec\": ${problems%; }"; fi
  done < "$amd/runs.txt"
}

# Check 3: clock and gateway started in the arm64 root, the page driven from the host.
GATEWAY_PIN=482913
check_gateway() {
  local e2e=$RUN/arm64/e2e port="" pid line result
  if [ "$(cat "$RUN/arm64/install.rc" 2>/dev/null)" != 0 ]; then fail "3 the arm64 packages did not install"; return; fi
  run_in arm64 clock-gateway.sh "$GATEWAY_PIN" & pid=$!
  # under qemu both take a while to start: a generous deadline, polled
  for _ in $(seq 900); do
    line=$(grep -ho 'listening on http://127.0.0.1:[0-9]*' "$e2e/gateway.log" 2>/dev/null || true)
    [ -n "$line" ] && { port=${line##*:}; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ -z "$port" ]; then
    fail "3 the arm64 gateway did not listen: $(tail -3 "$e2e/gateway.log" "$e2e/clock.log" 2>&1 | tr '\n' ' ')"
  else
    python3 "$HERE/gateway_check.py" --origin "http://127.0.0.1:$port" --pin "$GATEWAY_PIN" \
      --frames "$e2e/frames.jsonl" --result "$RUN/gateway-result.txt" > "$LOGS/gateway-page.log" 2>&1 || true
    result=$(cat "$RUN/gateway-result.txt" 2>/dev/null || echo "FAIL the page check wrote nothing (log: $LOGS/gateway-page.log)")
    if [[ $result == PASS* ]]; then pass "3 ${result#PASS }"; else fail "3 ${result#FAIL }"; fi
  fi
  # the two emulated processes this check started, by their ids
  for p in gateway clock; do
    [ -s "$e2e/$p.pid" ] && kill "$(cat "$e2e/$p.pid")" 2>/dev/null || true
  done
  wait "$pid" 2>/dev/null || true
}

# Check 4: lintian's report of each package has no E: and no W: line.
report_lintian() {
  local report name issues rc
  for report in "$RUN"/tools/tools/*.lintian; do
    [ -e "$report" ] || { fail "4 lintian wrote no report (log: $LOGS/tools-tools.log)"; return; }
    name=$(basename "$report" .lintian)
    issues=$(grep -E '^[EW]: ' "$report" || true)
    rc=$(cat "$RUN/tools/tools/$name.lintian-rc" 2>/dev/null || echo none)
    if [ "$rc" != 0 ] && [ -z "$issues" ]; then
      fail "4 lintian $name: exit $rc: $(grep -v 'root privileges' "$report" | head -3 | tr '\n' ' ')"
    elif [ -z "$issues" ]; then
      pass "4 lintian $name: no error, no warning; informational:" \
        "$(grep -E '^[IN]: ' "$report" | cut -d' ' -f3 | sort -u | paste -sd' ' || true)"
    else
      fail "4 lintian $name: $(wc -l <<< "$issues") errors or warnings: $(head -3 <<< "$issues" | tr '\n' ' ')"
    fi
  done
}

# Check 5: each ELF file's highest GLIBC_ symbol version at most the root's libc6 version.
report_glibc() {
  local list name arch glibc path highest worst bad
  for list in "$RUN"/tools/tools/*.glibc; do
    [ -e "$list" ] || { fail "5 objdump wrote nothing (log: $LOGS/tools-tools.log)"; return; }
    name=$(basename "$list" .glibc) arch=${name##*_}
    glibc=$(root_libc "${TAR[$arch]}")
    [ -s "$list" ] || { fail "5 $name: no ELF file found"; continue; }
    worst="" bad=""
    while read -r path highest; do
      worst+="$path ${highest}, "
      [ "$highest" = none ] && continue
      [ "$(printf '%s\n' "${highest#GLIBC_}" "$glibc" | sort -V | tail -1)" = "$glibc" ] || bad+="$path $highest "
    done < "$list"
    if [ -z "$bad" ]; then pass "5 $name: ${worst%, } (trixie $arch libc6 $glibc)"
    else fail "5 $name: newer than libc6 $glibc: $bad"; fi
  done
}
