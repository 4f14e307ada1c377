# Sourced by .ci/run: the build tree, build directories that are trusted only when sealed,
# stages and background jobs with their times, and the closing report. Needs CI_CACHE; the
# functions after ci_sync_tree need LOGS and run in the tree.
. "$(dirname "${BASH_SOURCE[0]}")/../Tests/kernel-vm/cache-lib.sh"

# ci_sync_tree CLONE TREE: TREE gets the clone's files by content (rsync --checksum without
# times): a file that did not change keeps its old mtime, so the build directories in TREE
# rebuild only what changed. What .gitignore ignores (the build directories) is kept; a file
# gone from the clone goes from TREE. The clone's .git comes along, for the tests that ask git.
ci_sync_tree() {
  local clone=$1 tree=$2
  mkdir -p "$tree"
  rsync -rlpc --delete --filter=':- .gitignore' --exclude=/.git "$clone/" "$tree/"
  rsync -a --delete "$clone/.git/" "$tree/.git/"
  echo "== build tree $tree: $(cd "$tree" && git log -1 --format='%h %s' | cut -c1-80)"
}

# The build directories, each a unit with a seal in $CI_CACHE/seals: written when a build in
# it ends well, removed when one starts. A unit without its seal (a build that failed or was
# killed), or sealed by another toolchain, is removed before anything uses it.
ci_unit_dirs() {
  case $1 in
    root) echo .build ;;
    gpiod2) echo .build-gpiod2 ;;
    gateway) echo Gateway/.build ;;
    gateway-release) echo Gateway/.build-release ;;
    trixie) echo "$VM_CACHE/trixie-amd64/src/.build" ;;
  esac
}
ci_unit_of() {
  case $1 in
    root-debug|root-release) echo root ;;
    gateway-debug) echo gateway ;;
    *) echo "$1" ;;
  esac
}
CI_TOOLCHAIN=$(swift --version 2>&1 | sha256sum | cut -c1-16)
ci_open_build_dirs() {
  local unit dir
  mkdir -p "$CI_CACHE/seals"
  for unit in root gpiod2 gateway gateway-release trixie; do
    dir=$(ci_unit_dirs "$unit")
    [ -e "$dir" ] || continue
    if [ "$(cat "$CI_CACHE/seals/$unit" 2>/dev/null)" != "$CI_TOOLCHAIN" ]; then
      echo "== build directory $dir: not sealed by a finished build of this toolchain: removed"
      rm -rf "$dir"
    else
      echo "== build directory $dir: reused"
    fi
  done
}
# ci_build NAME COMMAND...: COMMAND builds in NAME's unit; the unit is sealed only if it succeeds.
ci_build() {
  local unit; unit=$(ci_unit_of "$1"); shift
  rm -f "$CI_CACHE/seals/$unit"
  if "$@"; then echo "$CI_TOOLCHAIN" > "$CI_CACHE/seals/$unit"; else return 1; fi
}

# ci_inputs_key PATH...: a hash of the content of the tree's files under PATH (tracked and new).
ci_inputs_key() {
  { git ls-files -co --exclude-standard -z -- "$@" | LC_ALL=C sort -z | xargs -0 sha256sum; swift --version 2>&1; } |
    sha256sum | cut -c1-16
}

# ---- stages ------------------------------------------------------------------------------
CI_START=$(date +%s)
STAGE_ROWS=() CURRENT_STAGE="" CURRENT_START=$CI_START
# run_stage NAME DESCRIPTION COMMAND...: COMMAND as one stage (set -e applies inside).
run_stage() {
  local name=$1 description=$2
  shift 2
  CURRENT_STAGE=$name CURRENT_START=$(date +%s)
  echo "== stage: $name ($description)"
  "$@"
  local seconds=$(( $(date +%s) - CURRENT_START ))
  STAGE_ROWS+=("$(printf '  %-16s %6d s   from %5d s' "$name" "$seconds" $((CURRENT_START - CI_START)))")
  CURRENT_STAGE=""
  echo "== stage $name: $seconds s"
}

# ci_cpu_seconds FILE: the CPU time (user + system) of the calling shell's children that have
# ended, from `times` written to FILE by that shell itself (a $(...) would be a shell of its
# own, without those children).
ci_cpu_seconds() {
  awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}

# ---- background jobs: their output in $LOGS/NAME.log, their exit status in $LOGS/NAME.rc ---
# They run at nice 19: a stage's own work (at nice 0) takes the cores whenever it wants them,
# and the background fills the time it leaves idle (tests waiting on events).
declare -A BG_PID=()
# ci_bg_start NAME FUNCTION: runs FUNCTION in the background (set -e inside).
ci_bg_start() {
  local name=$1 fn=$2
  rm -f "$LOGS/$name.rc" "$LOGS/$name.times"
  echo "== background: $name (log $LOGS/$name.log)"
  # (set -e holds inside FUNCTION only where its subshell is not the left side of || or &&)
  ( set +e; renice -n 19 -p "$BASHPID" >/dev/null; t0=$(date +%s); ( set -e; "$fn" ) > "$LOGS/$name.log" 2>&1; rc=$?
    times > "$LOGS/$name.cpu"; echo "$t0 $(date +%s) $(ci_cpu_seconds "$LOGS/$name.cpu")" > "$LOGS/$name.times"
    echo "$rc" > "$LOGS/$name.rc" ) &
  BG_PID[$name]=$!
}
# ci_bg_wait NAME: until NAME has ended (also from another background job); fails with the
# end of its log if it failed.
ci_bg_wait() {
  local name=$1 rc
  while [ ! -f "$LOGS/$name.rc" ]; do sleep 1; done
  rc=$(cat "$LOGS/$name.rc")
  if [ "$rc" != 0 ]; then
    echo "== background job $name failed (exit $rc); its failures, then the end of $LOGS/$name.log:"
    grep -aE -A2 'recorded an issue|^✘ Test .* failed|: error:|FAILED|^not ok|^FAIL' "$LOGS/$name.log" | head -60 || true
    echo "--"
    tail -40 "$LOGS/$name.log"
    return 1
  fi
}
ci_bg_rows() {
  local f name t0 t1 cpu
  for f in "$LOGS"/*.times; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .times); read -r t0 t1 cpu < "$f"
    printf '  %-16s %6d s   from %5d s (background, nice 19; CPU %d s)\n' "$name" $((t1 - t0)) $((t0 - CI_START)) "$cpu"
  done
}

ci_summary() {
  echo "== stage times"
  printf '%s\n' "${STAGE_ROWS[@]}"
  ci_bg_rows
  times > "$LOGS/total.cpu"
  printf '  %-16s %6d s   (CPU of every process that ended: %d s on %d cores)\n' total $(( $(date +%s) - CI_START )) \
    "$(ci_cpu_seconds "$LOGS/total.cpu")" "$(nproc)"
}

ci_on_exit() {
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "== CI FAILED in stage ${CURRENT_STAGE:-(between stages)} after $(( $(date +%s) - CURRENT_START )) s (exit $rc)"
    ci_summary
  fi
  # background jobs still running end with the run, with every process they started (the
  # compilers run in process groups of their own)
  local pid tree=()
  for pid in "${BG_PID[@]}"; do [ -e "/proc/$pid" ] && tree+=("$pid" $(ci_descendants "$pid")); done
  [ ${#tree[@]} -eq 0 ] || { kill "${tree[@]}" 2>/dev/null; sleep 2; kill -9 "${tree[@]}" 2>/dev/null; } || true
}
# ci_descendants PID: every process below PID, parents first.
ci_descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1"); do echo "$child"; ci_descendants "$child"; done
}
trap ci_on_exit EXIT

# The end: stage table, test and check counts, the 20 slowest tests, the last line a count.
ci_report() {
  local runs=(root="$LOGS/root-tests.log" root-gateway-man="$LOGS/root-gateway-man.log" gateway="$LOGS/gateway-tests.log"
              trixie="$LOGS/trixie.log" kernel-vm="$LOGS/kernel-vm.counts" system-vm="$LOGS/system-vm.log")
  echo "== checks"
  .ci/test-report.py summary "${runs[@]}"
  ci_summary
  echo "== the 20 slowest tests (Swift Testing runs tests in parallel: wall time, waits included)"
  .ci/test-report.py slowest 20 root="$LOGS/root-tests.log" gateway="$LOGS/gateway-tests.log" trixie="$LOGS/trixie.log"
  .ci/test-report.py total "${runs[@]}"
}
