# Sourced by run-vm-tests.sh and ../system-vm/run-system-vm.sh: stage timing and the host's
# packages. Needs from the caller: LOGS, the function die, VM_LABEL (the log prefix) and
# PREP_FAILED_SUMMARY (the summary line if the host preparation fails). The caller sets
# SUMMARY_DONE=1 once it prints its own summary.

# ---- stage timing: "[LABEL hh:mm:ss] == name" per stage, TIMINGS " name Ns," per stage ----
START=$(date +%s)
STAGE="" STAGE_T=$START TIMINGS=""
stage() {
  local t; t=$(date +%s)
  [ -n "$STAGE" ] && TIMINGS="$TIMINGS $STAGE $((t - STAGE_T))s,"
  STAGE=$1 STAGE_T=$t
  [ "$1" = "done" ] || echo "[$VM_LABEL $(date +%T)] == $1"
}

# ---- the always-printed summary: a failing host step still ends with the summary line ----
SUMMARY_DONE=0
on_exit() {
  local rc=$?
  if [ $SUMMARY_DONE = 0 ]; then
    echo "FAIL prep host preparation failed in stage '$STAGE' (exit $rc); logs in $LOGS"
    echo "$PREP_FAILED_SUMMARY"
  fi
}
trap on_exit EXIT

# install_host_packages PKG...: apt-get install whatever is missing (apt-get update only if
# that fails); VM_NO_INSTALL=1 turns a missing package into an error.
install_host_packages() {
  local p SUDO="" MISSING=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || MISSING+=("$p")
  done
  [ ${#MISSING[@]} -gt 0 ] || return 0
  [ "${VM_NO_INSTALL:-0}" = 1 ] && die "missing packages and VM_NO_INSTALL=1: ${MISSING[*]}"
  if [ "$(id -u)" != 0 ]; then command -v sudo >/dev/null && SUDO="sudo -n" || die "need root to install: ${MISSING[*]}"; fi
  echo "installing: ${MISSING[*]}"
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${MISSING[@]}" > "$LOGS/apt.log" 2>&1; then
    echo "apt-get install failed; running apt-get update and retrying"
    $SUDO apt-get update -qq >> "$LOGS/apt.log" 2>&1 || { cat "$LOGS/apt.log" >&2; die "apt-get update failed"; }
    $SUDO apt-get install -y -qq --no-install-recommends "${MISSING[@]}" >> "$LOGS/apt.log" 2>&1 ||
      { tail -30 "$LOGS/apt.log" >&2; die "apt-get install ${MISSING[*]} failed"; }
  fi
}


. "$(dirname "${BASH_SOURCE[0]}")/cache-lib.sh"
