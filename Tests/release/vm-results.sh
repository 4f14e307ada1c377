# Sourced by apt-repo-vm.sh and arm64-system-vm.sh: vm_results LOG_LABEL NAME prints the
# guest's "PASS|FAIL n text" line of each check 1..CHECKS from $SHARE/results (a check the
# guest did not report fails), copies its details log to $LOGS/LOG_LABEL-details.log, prints
# the timings and "NAME: N passed, M failed", and fails if any check failed.
vm_results() {
  local label=$1 name=$2 n line passed=0 failed=0
  for n in $(seq 1 "$CHECKS"); do
    line=$(grep -E "^(PASS|FAIL) $n " "$SHARE/results" 2>/dev/null | tail -1 || true)
    [ -n "$line" ] || line="FAIL $n the guest reported no result for check $n (console: $LOGS/$label-console.log)"
    echo "$line"
    case $line in PASS*) passed=$((passed + 1)) ;; *) failed=$((failed + 1)) ;; esac
  done
  [ -f "$SHARE/details" ] && cp "$SHARE/details" "$LOGS/$label-details.log"
  echo "details: $LOGS/$label-details.log; console: $LOGS/$label-console.log"
  echo "timings:$TIMINGS total $(( $(date +%s) - START ))s"
  echo "$name: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
