# Sourced in the arm64 guests (guest-checks.sh, ../image-vm/sim.sh): pi_gpio_sim makes a
# gpio-sim chip laid out like the Pi's header (28 lines; 17, 27, 22 and 18 named GPIO17 ...
# GPIO18), buttons released (pulled up), and prints its sysfs directory. gpio-sim is loaded.
pi_gpio_sim() {
  local c=/sys/kernel/config/gpio-sim/pi-header n sys
  mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  mkdir -p "$c/bank0"
  echo 28 > "$c/bank0/num_lines"
  for n in 17 27 22 18; do mkdir -p "$c/bank0/line$n"; echo "GPIO$n" > "$c/bank0/line$n/name"; done
  echo 1 > "$c/live"
  sys=/sys/devices/platform/$(cat "$c/dev_name")/$(cat "$c/bank0/chip_name")
  for n in 17 27 22; do echo pull-up > "$sys/sim_gpio$n/pull"; done
  echo "$sys"
}
