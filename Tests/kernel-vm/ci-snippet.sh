# Proposed addition to .ci/run (for the integrator): append after the existing
# `swift build` / `scripts/test` steps. Assumes .ci/run's `set -euo pipefail` and that the
# working directory is the repository root (.ci/run does `cd "$(dirname "$0")/.."`).
# It builds the v2 library and the package against it, then runs the VM with v1 and with v2
# (the first run downloads the kernel and builds gpio-sim into the empty cache), after the
# apt packages (qemu-system-x86, busybox-static, linux-headers-amd64, ...) if not installed.
# Wall times: Tests/kernel-vm/README.md, "Timings".
# Each VM run prints PASS/FAIL/SKIP lines and ends with "vm: N passed, M failed";
# the last line below sums both runs in the same shape.

echo "== libgpiod v2: static library from the PyPI gpiod sdist, then a second build against it"
scripts/build-libgpiod-v2.sh "$PWD/.build-vm/libgpiod-v2"
PKG_CONFIG_PATH="$PWD/.build-vm/libgpiod-v2/lib/pkgconfig" swift build --scratch-path .build-gpiod2

echo "== real-kernel tests in qemu (i2c-stub, gpio-sim): libgpiod v1 build, then v2 build"
vm_failed=0 vm_passed_total=0 vm_failed_total=0
for api in v1 v2; do
  if [ "$api" = v1 ]; then bin="$(swift build --show-bin-path)/roundclock"
  else bin="$(swift build --scratch-path .build-gpiod2 --show-bin-path)/roundclock"; fi
  vm_rc=0
  LIBGPIOD_V2_PREFIX="$PWD/.build-vm/libgpiod-v2" \
    Tests/kernel-vm/run-vm-tests.sh --libgpiod "$api" --binary "$bin" 2>&1 | tee ".build-vm/vm-$api.log" || vm_rc=$?
  [ "$vm_rc" -eq 0 ] || vm_failed=1
  # the run's own last line: "vm: N passed, M failed"
  counts=$(grep -E '^vm: [0-9]+ passed, [0-9]+ failed$' ".build-vm/vm-$api.log" | tail -1 || true)
  if [ -n "$counts" ]; then
    read -r _ n_passed _ n_failed _ <<< "$counts"
    vm_passed_total=$((vm_passed_total + n_passed)); vm_failed_total=$((vm_failed_total + n_failed))
  else
    vm_failed_total=$((vm_failed_total + 1))
  fi
done
echo "vm (libgpiod v1 + v2): $vm_passed_total passed, $vm_failed_total failed"
[ "$vm_failed" -eq 0 ] || { echo "real-kernel VM tests failed (see above; logs in .build-vm/logs)"; exit 1; }
