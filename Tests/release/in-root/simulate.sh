# Check 2, run in a root where the roundclock package is installed (bash; /cache is the run's
# folder for this architecture): /usr/bin/roundclock simulates, in virtual time, every preset
# that `roundclock programs` lists (a preset that takes an argument with the example its plan
# gives), the custom line its notes give, and the open-ended ones (stopwatch, clock) with
# --until; then `render --plain` of a few texts on every backpack kind `render --help` names.
# Writes /cache/out/: programs.txt, render.txt (each render's exit status and output), and per run NAME.jsonl (frames), NAME.out (stdout
# and stderr), NAME.wav (the sound track, for the programs in SOUND) and a line
# "SPEC|NAME|EXIT" in runs.txt.
set -u
SOUND=" tabata custom "
out=/cache/out
rm -rf "$out"; mkdir -p "$out"; cd "$out"
roundclock programs > programs.txt 2>&1 || { echo "roundclock programs failed" >&2; exit 1; }
run() {  # SPEC NAME [OPTION...]
  local spec=$1 name=$2 sound=(); shift 2
  case $SOUND in *" $name "*) sound=(--sound-file "$name.wav") ;; esac
  roundclock simulate --program "$spec" --virtual --no-tty --frames "$name.jsonl" "${sound[@]}" "$@" \
    > "$name.out" 2>&1
  echo "$spec|$name|$?" >> runs.txt
}
# the table's rows: PROGRAM TOTAL PLAN, up to the first empty line
awk 'NR > 1 && NF == 0 {exit} NR > 1 {print}' programs.txt > presets.txt
while read -r name total plan; do
  spec=$name
  case $name in *[A-Z]*) spec=$(echo "$plan" | grep -o 'e\.g\. [^ )]*' | cut -c6-) ;; esac
  case $total in
    open-ended|-) run "$spec" "$(echo "$spec" | tr -c 'A-Za-z0-9\n' _)" --until 3:00 --wall-time 12:34 ;;
    *) run "$spec" "$(echo "$spec" | tr -c 'A-Za-z0-9\n' _)" ;;
  esac
done < presets.txt
custom=$(grep -o '^Custom: .*e\.g\. "[^"]*"' programs.txt | sed 's/.*e\.g\. "//; s/"$//')
[ -n "$custom" ] && run "$custom" custom
kinds=$(roundclock render --help | tr -s ' \n' ' ' | grep -o 'Backpack: [^.]*, or a layout' |
  sed 's/^Backpack: //; s/, or a layout//; s/,//g')
for kind in $kinds; do
  for text in " 2:58" "12.34" "WORK" "12"; do
    echo "== $kind \"$text\""; roundclock render --plain --display "$kind" "$text" 2>&1; echo "exit $?"
  done
done > render.txt
exit 0
