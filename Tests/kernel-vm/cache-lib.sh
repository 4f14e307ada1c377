# Sourced by host-lib.sh, scripts/check-trixie.sh and .ci/lib.sh: cached artifacts are sealed
# with their sha256 once made and checked before each use; one that does not match its seal is
# made again, never used.
# cache_seal PATH: the sha256 of PATH (a file, or every file below a directory) in PATH.sha256.
cache_seal() {
  local p; p=$(realpath -m "$1")
  if [ -d "$p" ]; then (cd "$p" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) > "$p.sha256.tmp"
  else (cd "$(dirname "$p")" && sha256sum "$(basename "$p")") > "$p.sha256.tmp"; fi
  mv "$p.sha256.tmp" "$p.sha256"
}
# cache_intact PATH: PATH and its seal exist, every file of the seal is there with its sha256
# and (a directory) no file was added. A cache that is not intact is made again, never used.
cache_intact() {
  local p base; p=$(realpath -m "$1")
  [ -e "$p" ] && [ -s "$p.sha256" ] || return 1
  if [ -d "$p" ]; then
    (cd "$p" && sha256sum --quiet --strict -c "$p.sha256" >/dev/null 2>&1) || return 1
    [ "$(cd "$p" && find . -type f | wc -l)" = "$(wc -l < "$p.sha256")" ]
  else
    base=$(dirname "$p")
    (cd "$base" && sha256sum --quiet --strict -c "$p.sha256" >/dev/null 2>&1)
  fi
}
# cache_reuse PATH WHAT: 0 if PATH is intact; otherwise says why and removes it (1).
cache_reuse() {
  local p; p=$(realpath -m "$1")
  cache_intact "$p" && return 0
  if [ -e "$p" ] || [ -e "$p.sha256" ]; then echo "cache: $2 at $p is damaged or unsealed: made again"; fi
  rm -rf "$p" "$p.sha256"
  return 1
}
