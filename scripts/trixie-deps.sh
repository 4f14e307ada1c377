#!/usr/bin/env bash
# Sourced by scripts/check-trixie.sh and scripts/release: makes Swift 6.0 (Debian
# trixie's swiftlang 6.0.3) able to read the dependency versions this machine's package mirror
# holds. The mirror has one version of each; where that version needs newer tools than 6.0,
# a scratch copy of its repository gets the changes in ADAPTATIONS below as one commit, tagged
# with the same version, and git inside the root filesystem reads that copy instead of
# /opt/swift-packages. Every change is printed. Nothing here is committed to the project; a
# change that does not apply (to a newer mirrored version) stops the check with its row.
# On a machine with network access none of this is needed: SwiftPM 6.0 picks the newest
# version whose manifest it can read (docs/install.md).

# One row per change: OWNER/NAME|FILE|perl substitution (on the whole file)|why. Rows of one
# package are applied in order; a package with no row is read from the mirror as it is.
ADAPTATIONS=$(cat <<'TABLE'
apple/swift-log|Package.swift|s/swift-tools-version:6\.2/swift-tools-version:6.0/|manifest: tools 6.2 -> 6.0
apple/swift-log|Package.swift|s/^    traits: \[.*?^    \],\n//sm|manifest: package traits (tools 6.1) removed; none is enabled by default
apple/swift-log|Package.swift|s/^.*NonisolatedNonsendingByDefault.*\n//m|manifest: upcoming feature of Swift 6.2 removed
apple/swift-log|Package.swift|s/^.*-require-explicit-sendable.*\n//m|manifest: unsafe flag removed (SwiftPM 6.0 refuses unsafe flags in a dependency)
apple/swift-log|Sources/Logging/Logger.swift|s/nonisolated\(nonsending\) //g|source: nonisolated(nonsending) (Swift 6.2, SE-0461) dropped (withTaskLocalLogger)
apple/swift-log|Sources/Logging/Logger+With.swift|s/nonisolated\(nonsending\) //g|source: nonisolated(nonsending) (Swift 6.2, SE-0461) dropped (withLogger)
apple/swift-log|Sources/Logging/Locks.swift|s/_runtime\(_multithreaded\)/!os(WASI)/g|source: #if _runtime(_multithreaded) (Swift 6.1) -> !os(WASI), the same on Linux
apple/swift-log|Sources/Logging/Handlers/StreamLogHandler.swift|s/,(\s*\n\s*\))/$1/g|source: trailing commas in argument lists (Swift 6.1, SE-0439) dropped
swift-server/swift-service-lifecycle|Package.swift|s/swift-tools-version:6\.2/swift-tools-version:6.0/|manifest: tools 6.2 -> 6.0
swift-server/swift-service-lifecycle|Package.swift|s/^    \]\n\)\n\z/    ],\n    swiftLanguageModes: [.v5]\n)\n/m|manifest: Swift 5 language mode: 6.0's region checker rejects withGracefulShutdownHandler's non-Sendable result, which 6.2 accepts (code unchanged)
swift-server/swift-service-lifecycle|Sources/ConcurrencyHelpers/Lock.swift|s/_runtime\(_multithreaded\)/!os(WASI)/g|source: #if _runtime(_multithreaded) (Swift 6.1) -> !os(WASI), the same on Linux
apple/swift-system|Package.swift|s/swift-tools-version:6\.1/swift-tools-version:6.0/|manifest: tools 6.1 -> 6.0
apple/swift-system|Sources/System/FileOperations.swift|s/,(\s*\n\s*\))/$1/g|source: trailing comma in a parameter list (Swift 6.1, SE-0439) dropped
apple/swift-system|Sources/System/Internals/Exports.swift|s/os\(WASI\) && !_runtime\(_multithreaded\)/os(WASI)/g|source: #if _runtime(_multithreaded) (Swift 6.1) in WASI-only branches dropped
TABLE
)

MIRROR=${SWIFT_PACKAGE_MIRROR:-/opt/swift-packages}

# adapted_mirror DIR: the adapted repositories under DIR/OWNER/NAME.git (made again when the
# table or a mirrored tag changes) and DIR/gitconfig, git's rules for the root filesystem
# (longest insteadOf wins: the adapted copies first, then the mirror as on the host, at
# /opt/swift-packages inside the root). Paths in gitconfig are the root's: DIR is seen at
# /cache/deps inside it.
adapted_mirror() {
  local dir=$1 key pkg tag work file expr why before rules=""
  key=$( { echo "$ADAPTATIONS"; for pkg in $(echo "$ADAPTATIONS" | cut -d'|' -f1 | sort -u); do
           git -C "$MIRROR/$pkg.git" show-ref --tags; done; } | md5sum | cut -c1-12)
  if [ "$(cat "$dir/key" 2>/dev/null)" = "$key" ]; then
    echo "adapted dependencies up to date ($key):"; cat "$dir/changes"; return 0
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  : > "$dir/changes"
  for pkg in $(echo "$ADAPTATIONS" | cut -d'|' -f1 | sort -u); do
    tag=$(git -C "$MIRROR/$pkg.git" tag | sort -V | tail -1)
    work=$dir/work/$pkg
    git clone -q "$MIRROR/$pkg.git" "$work"
    git -C "$work" -c advice.detachedHead=false checkout -q "$tag"
    while IFS='|' read -r _ file expr why; do
      before=$(md5sum < "$work/$file")
      perl -0777 -pi -e "$expr" "$work/$file"
      [ "$(md5sum < "$work/$file")" != "$before" ] ||
        { echo "trixie-deps: change no longer applies to $pkg $tag: $file: $expr ($why)" >&2; return 1; }
      echo "$pkg $tag: $file: $why" | tee -a "$dir/changes"
    done < <(echo "$ADAPTATIONS" | grep "^$pkg|")
    # the tag's own date: the same changes give the same commit id on every machine and run
    GIT_AUTHOR_DATE=$(git -C "$work" log -1 --format=%cI) GIT_COMMITTER_DATE=$(git -C "$work" log -1 --format=%cI) \
      git -C "$work" -c user.name=check-trixie -c user.email=check-trixie@localhost \
      commit -q -am "Adapted for Swift 6.0 by scripts/trixie-deps.sh (test time only)"
    git -C "$work" tag -f "$tag" >/dev/null
    git clone -q --bare "$work" "$dir/$pkg.git"
    # no .git in the target: git finds NAME.git for both spellings of the address
    rules+=$(printf '[url "/cache/deps/%s"]\n\tinsteadOf = https://github.com/%s\n' "$pkg" "$pkg")$'\n'
done
  printf '%s[url "/opt/swift-packages/"]\n\tinsteadOf = https://github.com/\n[safe]\n\tdirectory = *\n' "$rules" > "$dir/gitconfig"
  rm -rf "$dir/work"
  echo "$key" > "$dir/key"
}
