#!/usr/bin/env bash
# Builds the Debian package roundclock_<version>_<arch>.deb (amd64 or arm64: the machine's own
# architecture, or the other one cross-built with --arch and --swift-sdk).
#
#   scripts/build-deb.sh [--version V] [--out DIR] [--no-lintian] [--build-note FILE]
#                        [--arch ARCH --swift-sdk FILE --host-binary FILE]
#   scripts/build-deb.sh --gateway [--out DIR] [--no-lintian] [--scratch-path DIR]
#                        [--arch ARCH --binary FILE --build-info FILE] [--build-note FILE]
#
#   --version V   package another version than debian/changelog's top entry (a new entry is
#                 added to the staged copy only; the tests use it to build an upgrade)
#   --out DIR     where the .deb goes (default .build-deb/)
#   --no-lintian  skip the lintian run at the end
#   --arch ARCH   the package's architecture when it is not the machine's: the compiler runs
#                 natively with the Swift SDK FILE (--swift-sdk, a swift-sdk.json whose target is
#                 ARCH), the C libraries come from ARCH's multiarch -dev packages, and
#                 dpkg-buildpackage -aARCH packages it; nothing runs the ARCH binary (--host-binary)
#   --gateway     build the phone remote's package roundclock-gateway_<version>_<arch>.deb instead
#                 (Gateway/, its own source package; needs Swift 6.2+, the clock's package does not
#                 need it)
#   --scratch-path DIR  with --gateway: SwiftPM's build directory (default Gateway/.build); the
#                 system VM test keeps it under .build-vm/, with its other caches
#   --binary FILE with --gateway: package this roundclock-gateway binary instead of building it
#                 (a build by another toolchain, e.g. for --arch); --build-info names what built it
#   --build-info FILE  with --binary: the compiler and Swift packages that built it
#                 (scripts/build-info.sh swift, run where it was built)
#   --build-note FILE  lines added to the package's build-info.txt (e.g. dependency adaptations)
#   --host-binary FILE  with --arch: a roundclock of the same version built for this machine;
#                 debian/rules runs it (--version, check-config, completions) instead of the
#                 ARCH binary, so packaging runs nothing under emulation
#
# Steps: the version from debian/changelog; Sources/roundclock/PackageVersion.generated.swift
# (gitignored) so that `roundclock --version` prints it; build-info.txt (scripts/build-info.sh:
# compiler, Swift packages, Debian libraries), installed in /usr/share/doc/<package>/; `ROUNDCLOCK_PACKAGE_BUILD=1 swift build
# -c release --static-swift-stdlib --product roundclock` with scripts/release-flags.sh; the tree
# staged under .build-deb/ with the binary at bin/roundclock; `dpkg-buildpackage -b -uc -us`
# there (debian/rules makes the completions from the binary; the man pages are man/); lintian.
# Needs: Swift 6.3 on PATH, and dpkg-dev debhelper libgpiod-dev libi2c-dev libasound2-dev libespeak-ng-dev pkg-config lintian
# (scripts/setup.sh --deb installs them). No network, nothing outside the repository.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
die() { echo "build-deb: $*" >&2; exit 1; }

VERSION="" OUT=$REPO/.build-deb LINTIAN=1 GATEWAY=0 SCRATCH="" TARGET_ARCH="" SWIFT_SDK="" GATEWAY_BINARY=""
BUILD_INFO="" BUILD_NOTE="" HOST_BINARY=""
while [ $# -gt 0 ]; do
  case $1 in
    --version) VERSION=${2:?--version needs a version}; shift 2 ;;
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --no-lintian) LINTIAN=0; shift ;;
    --arch) TARGET_ARCH=${2:?--arch needs an architecture}; shift 2 ;;
    --swift-sdk) SWIFT_SDK=${2:?--swift-sdk needs a swift-sdk.json}; shift 2 ;;
    --gateway) GATEWAY=1; shift ;;
    --binary) GATEWAY_BINARY=$(realpath "${2:?--binary needs a file}"); shift 2 ;;
    --scratch-path) SCRATCH=$(mkdir -p "${2:?--scratch-path needs a directory}" && cd "$2" && pwd); shift 2 ;;
    --build-info) BUILD_INFO=$(realpath "${2:?--build-info needs a file}"); shift 2 ;;
    --build-note) BUILD_NOTE=$(realpath "${2:?--build-note needs a file}"); shift 2 ;;
    --host-binary) HOST_BINARY=$(realpath "${2:?--host-binary needs a file}"); shift 2 ;;
    -h|--help) sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

. "$REPO/scripts/release-flags.sh"   # RELEASE_FLAGS
mkdir -p "$OUT"

# build_info_file NAME VERSION ARCH BUILDER_PART DEV_PACKAGE...: the package's build-info.txt
build_info_file() {
  local name=$1 version=$2 arch=$3 builder=$4; shift 4
  echo "$name $version for $arch: what its binary was built with (scripts/build-deb.sh)"
  echo
  cat "$builder"
  echo
  scripts/build-info.sh debian "$arch" "$@"
  if [ -n "$BUILD_NOTE" ]; then echo; echo "Changes to the Swift packages for this build:"; sed 's/^/  /' "$BUILD_NOTE"; fi
}

if [ "$GATEWAY" = 1 ]; then
  # The gateway's own source package (Gateway/debian): its binary, page, unit, Avahi file.
  VERSION=$(dpkg-parsechangelog -l Gateway/debian/changelog -SVersion)
  ARCH=${TARGET_ARCH:-$(dpkg --print-architecture)}
  DPKG_ARCH=(); [ "$ARCH" = "$(dpkg --print-architecture)" ] || DPKG_ARCH=(-a"$ARCH")
  echo "== roundclock-gateway $VERSION for $ARCH"
  if [ -n "$GATEWAY_BINARY" ]; then
    BIN=$GATEWAY_BINARY
    [ -f "$BUILD_INFO" ] || die "--binary needs --build-info FILE: what built the binary"
  else
    [ ${#DPKG_ARCH[@]} = 0 ] || die "--gateway --arch $ARCH needs --binary FILE"
    SCRATCH_ARGS=(); [ -n "$SCRATCH" ] && SCRATCH_ARGS=(--scratch-path "$SCRATCH")
    (cd Gateway && swift build "${RELEASE_FLAGS[@]}" "${SCRATCH_ARGS[@]}" --product roundclock-gateway)
    BIN="$(cd Gateway && swift build -c release "${SCRATCH_ARGS[@]}" --show-bin-path)/roundclock-gateway"
    BUILD_INFO=$OUT/gateway-builder.txt; scripts/build-info.sh swift Gateway > "$BUILD_INFO"
  fi
  STAGE=$OUT/stage-gateway/roundclock-gateway-$VERSION
  rm -rf "$OUT/stage-gateway"; mkdir -p "$STAGE/bin"
  cp -r Gateway/debian Gateway/Public Gateway/systemd Gateway/avahi README.md "$STAGE/"
  mkdir "$STAGE/man" && cp man/roundclock-gateway.1 "$STAGE/man/"
  cp "$BIN" "$STAGE/bin/roundclock-gateway"
  build_info_file roundclock-gateway "$VERSION" "$ARCH" "$BUILD_INFO" libc6-dev 'libstdc++-*-dev' libmosquitto-dev \
    > "$STAGE/build-info.txt"
  (cd "$STAGE" && dpkg-buildpackage "${DPKG_ARCH[@]}" -b -uc -us) > "$OUT/dpkg-buildpackage-gateway.log" 2>&1 ||
    { tail -40 "$OUT/dpkg-buildpackage-gateway.log" >&2; die "dpkg-buildpackage failed (log: $OUT/dpkg-buildpackage-gateway.log)"; }
  mv "$OUT"/stage-gateway/roundclock-gateway_"${VERSION}"_"$ARCH".deb "$OUT/"
  DEB=$OUT/roundclock-gateway_${VERSION}_$ARCH.deb
  echo "== $DEB ($(stat -c %s "$DEB") bytes)"
  dpkg-deb --info "$DEB" | sed -n '/Depends:/p'
  if [ "$LINTIAN" = 1 ]; then
    echo "== lintian"
    lintian --info --display-info "$DEB" || die "lintian found errors"
  fi
  exit 0
fi

CHANGELOG_VERSION=$(dpkg-parsechangelog -l debian/changelog -SVersion)
VERSION=${VERSION:-$CHANGELOG_VERSION}
UPSTREAM=$(sed -n 's/^ *static let upstream = "\(.*\)"$/\1/p' Sources/roundclock/RoundClockCommand.swift)
case $CHANGELOG_VERSION in
  "$UPSTREAM"|"$UPSTREAM"[-+~]*) ;;
  *) die "debian/changelog's $CHANGELOG_VERSION does not start with RoundClockVersion.upstream ($UPSTREAM) in Sources/roundclock/RoundClockCommand.swift" ;;
esac
dpkg --compare-versions "$VERSION" ge "$CHANGELOG_VERSION" ||
  die "--version $VERSION is older than debian/changelog's $CHANGELOG_VERSION"
ARCH=${TARGET_ARCH:-$(dpkg --print-architecture)}
case $ARCH in amd64|arm64) ;; *) die "architecture $ARCH: debian/control builds amd64 and arm64 only" ;; esac
# a cross build: SwiftPM's --destination (the Swift SDK), pkg-config reading ARCH's .pc files
CROSS=() DPKG_ARCH=()
if [ "$ARCH" != "$(dpkg --print-architecture)" ]; then
  [ -f "$SWIFT_SDK" ] || die "--arch $ARCH needs --swift-sdk FILE (a swift-sdk.json for $ARCH)"
  CROSS=(--destination "$SWIFT_SDK")
  DPKG_ARCH=(-a"$ARCH")
  export PKG_CONFIG_PATH=/usr/lib/$(dpkg-architecture -a"$ARCH" -qDEB_HOST_MULTIARCH 2>/dev/null)/pkgconfig
fi

echo "== roundclock $VERSION for $ARCH"
GENERATED=Sources/roundclock/PackageVersion.generated.swift
NEW=$(printf '// Written by scripts/build-deb.sh (gitignored): the package version, for --version.\n#if ROUNDCLOCK_PACKAGE_BUILD\nlet packageVersion = "%s"\n#endif\n' "$VERSION")
# rewritten only when it changes, so that an unchanged version rebuilds nothing
[ -f "$GENERATED" ] && [ "$(cat "$GENERATED")" = "$NEW" ] || printf '%s\n' "$NEW" > "$GENERATED"
ROUNDCLOCK_PACKAGE_BUILD=1 swift build "${RELEASE_FLAGS[@]}" "${CROSS[@]}" --product roundclock
BIN="$(swift build -c release "${CROSS[@]}" --show-bin-path)/roundclock"
# a cross-built binary is run only by tests (under emulation), not here
if [ ${#CROSS[@]} = 0 ]; then
  [ "$("$BIN" --version)" = "$VERSION" ] || die "$BIN --version says '$("$BIN" --version)', expected $VERSION"
else
  [ -n "$HOST_BINARY" ] || die "--arch $ARCH needs --host-binary FILE (a native roundclock $VERSION for debian/rules)"
  [ "$("$HOST_BINARY" --version)" = "$VERSION" ] || die "--host-binary says '$("$HOST_BINARY" --version)', expected $VERSION"
fi

STAGE=$OUT/stage/roundclock-$VERSION
rm -rf "$OUT/stage"; mkdir -p "$STAGE/bin"
cp -r debian boards systemd man docs README.md "$STAGE/"
cp "$BIN" "$STAGE/bin/roundclock"
scripts/build-info.sh swift . > "$OUT/builder.txt"
build_info_file roundclock "$VERSION" "$ARCH" "$OUT/builder.txt" libc6-dev 'libstdc++-*-dev' libgpiod-dev libi2c-dev \
  libasound2-dev libespeak-ng-dev > "$STAGE/build-info.txt"
TOOL_ENV=()
if [ -n "$HOST_BINARY" ]; then
  mkdir -p "$STAGE/build-tools"; cp "$HOST_BINARY" "$STAGE/build-tools/roundclock"
  TOOL_ENV=(ROUNDCLOCK_TOOL=build-tools/roundclock)
fi
if [ "$VERSION" != "$CHANGELOG_VERSION" ]; then
  { printf 'roundclock (%s) unstable; urgency=medium\n\n  * Rebuilt as %s by scripts/build-deb.sh --version.\n\n -- %s  %s\n\n' \
      "$VERSION" "$VERSION" "$(dpkg-parsechangelog -l debian/changelog -SMaintainer)" "$(date -R)"
    cat debian/changelog; } > "$STAGE/debian/changelog"
fi
(cd "$STAGE" && env "${TOOL_ENV[@]}" dpkg-buildpackage "${DPKG_ARCH[@]}" -b -uc -us) > "$OUT/dpkg-buildpackage.log" 2>&1 ||
  { tail -40 "$OUT/dpkg-buildpackage.log" >&2; die "dpkg-buildpackage failed (log: $OUT/dpkg-buildpackage.log)"; }
DEB=$OUT/stage/roundclock_${VERSION}_$ARCH.deb
[ -f "$DEB" ] || die "dpkg-buildpackage made no $DEB"
mv "$OUT"/stage/roundclock*_"${VERSION}"_"$ARCH".*deb "$OUT/"
DEB=$OUT/roundclock_${VERSION}_$ARCH.deb
echo "== $DEB ($(stat -c %s "$DEB") bytes)"
dpkg-deb --info "$DEB" | sed -n '/Depends:/p;/Recommends:/p'
if [ "$LINTIAN" = 1 ]; then
  echo "== lintian"
  lintian --info --display-info "$DEB" || die "lintian found errors"
fi
