#!/usr/bin/env bash
# Builds libgpiod 2.x (the v2 C API) from the C sources bundled in the PyPI sdist of the
# Python bindings `gpiod`, as a static library in a private prefix, with a pkg-config file:
#
#   scripts/build-libgpiod-v2.sh PREFIX
#   PKG_CONFIG_PATH=PREFIX/lib/pkgconfig swift build --scratch-path .build-gpiod2
#
# Result: PREFIX/lib/libgpiod.a, PREFIX/include/gpiod.h, PREFIX/lib/pkgconfig/libgpiod.pc.
# Needs: pip (python3-pip), a C compiler, ar, pkg-config; network to PyPI on the first run.
# The sdist is cached (GPIOD_SDIST_CACHE, default ~/.cache/roundclock/pypi) and checked
# against a pinned sha256; a second run with an up-to-date PREFIX does nothing.
set -euo pipefail

GPIOD_PY_VERSION=2.5.0
# sha256 of gpiod-2.5.0.tar.gz as published on PyPI (bundles libgpiod 2.3).
GPIOD_SDIST_SHA256=53ae5a1f14d6388c155b591ca0fc0cfa73b44d4f6d8d117e8a9e68f5902d187a

die() { echo "build-libgpiod-v2: error: $*" >&2; exit 1; }
log() { echo "build-libgpiod-v2: $*"; }

[ $# -eq 1 ] || die "usage: $0 PREFIX"
mkdir -p "$1" || die "cannot create prefix $1"
PREFIX=$(cd "$1" && pwd)
CACHE=${GPIOD_SDIST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roundclock/pypi}
CC=${CC:-cc}
AR=${AR:-ar}
SDIST=$CACHE/gpiod-$GPIOD_PY_VERSION.tar.gz
STAMP=$PREFIX/.libgpiod-v2-from-gpiod-$GPIOD_PY_VERSION

for tool in "$CC" "$AR" pkg-config tar; do
  command -v "$tool" >/dev/null || die "'$tool' not found (Debian: apt-get install gcc binutils pkg-config tar)"
done

# The stamp holds this script's own hash and the sha256 of what it installed: a prefix made
# by another version of the script, or with a file changed or missing since, is built again.
SCRIPT_HASH=$(sha256sum < "$0" | cut -c1-16)
INSTALLED=(lib/libgpiod.a include/gpiod.h lib/pkgconfig/libgpiod.pc)
if [ -f "$STAMP" ] && [ "$(sed -n 's/^script //p' "$STAMP")" = "$SCRIPT_HASH" ] &&
   (cd "$PREFIX" && grep -E '^[0-9a-f]{64}  ' "$STAMP" | sha256sum --quiet --strict -c - >/dev/null 2>&1); then
  log "up to date in $PREFIX ($(head -1 "$STAMP"))"
  exit 0
fi
[ -f "$STAMP" ] && log "the prefix $PREFIX is from another script or was changed since: building it again"
rm -f "$STAMP"

# 1. the sdist, from PyPI through pip (source only, no dependencies), cached
mkdir -p "$CACHE"
if [ -f "$SDIST" ] && ! echo "$GPIOD_SDIST_SHA256  $SDIST" | sha256sum -c --status; then
  log "cached $SDIST has the wrong checksum; downloading again"
  rm -f "$SDIST"
fi
if [ ! -f "$SDIST" ]; then
  python3 -m pip --version >/dev/null 2>&1 || die "pip not found (Debian: apt-get install python3-pip)"
  log "pip download gpiod==$GPIOD_PY_VERSION (sdist) into $CACHE"
  # pip prepares the sdist's metadata in an isolated build environment (fetches setuptools);
  # PIP_* variables from the caller (index, proxy) apply.
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
      "gpiod==$GPIOD_PY_VERSION" -d "$CACHE" || die "pip download gpiod==$GPIOD_PY_VERSION failed"
  [ -f "$SDIST" ] || die "pip did not produce $SDIST"
  echo "$GPIOD_SDIST_SHA256  $SDIST" | sha256sum -c --status ||
    die "checksum mismatch for $SDIST: expected $GPIOD_SDIST_SHA256, got $(sha256sum "$SDIST" | cut -d' ' -f1)"
fi

# 2. unpack and compile include/ + lib/ into a static library
WORK=$(mktemp -d "${TMPDIR:-/tmp}/libgpiod-v2.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
tar -xzf "$SDIST" -C "$WORK"
SRC=$WORK/gpiod-$GPIOD_PY_VERSION
[ -f "$SRC/include/gpiod.h" ] && [ -d "$SRC/lib" ] || die "$SDIST has no include/gpiod.h or lib/ (layout changed?)"
LIBVER=$(tr -d ' \n' < "$SRC/libgpiod-version.txt" 2>/dev/null || true)
[[ "$LIBVER" =~ ^2\.[0-9]+(\.[0-9]+)?$ ]] || die "unexpected libgpiod version '$LIBVER' in $SDIST (libgpiod-version.txt)"
PCVER=$LIBVER
[[ "$PCVER" =~ ^2\.[0-9]+$ ]] && PCVER=$PCVER.0
log "compiling libgpiod $LIBVER (from gpiod $GPIOD_PY_VERSION)"

mkdir -p "$WORK/obj"
for c in "$SRC"/lib/*.c; do
  "$CC" -c -O2 -fPIC -Wall -D_GNU_SOURCE "-DGPIOD_API_VERSION_STR=\"$LIBVER\"" \
      -I"$SRC/include" -I"$SRC/lib" -o "$WORK/obj/$(basename "${c%.c}").o" "$c" ||
    die "compiling $(basename "$c") failed"
done
mkdir -p "$PREFIX/lib/pkgconfig" "$PREFIX/include"
rm -f "$PREFIX/lib/libgpiod.a"
"$AR" rcs "$PREFIX/lib/libgpiod.a" "$WORK"/obj/*.o
install -m 644 "$SRC/include/gpiod.h" "$PREFIX/include/gpiod.h"

# 3. pkg-config file; static only, so -lgpiod resolves to libgpiod.a in this prefix
#    (its -L comes before the system's directories, which may hold Debian's v1 libgpiod.so)
cat > "$PREFIX/lib/pkgconfig/libgpiod.pc" <<EOF
prefix=$PREFIX
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: libgpiod
Description: Library and tools for the Linux GPIO chardev (v2 API, static, built from the gpiod $GPIOD_PY_VERSION sdist)
URL: https://git.kernel.org/pub/scm/libs/libgpiod/libgpiod.git/
Version: $PCVER
Cflags: -I\${includedir}
Libs: -L\${libdir} -lgpiod
EOF

# 4. verify: pkg-config resolves it and a v2 program links against it
got=$(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --modversion libgpiod)
[ "$got" = "$PCVER" ] || die "pkg-config reports libgpiod $got, expected $PCVER (is another libgpiod.pc first on PKG_CONFIG_PATH?)"
flags=$(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs libgpiod)
cat > "$WORK/t.c" <<'EOF'
#include <gpiod.h>
#include <stdio.h>
#ifdef GPIOD_LINE_BULK_MAX_LINES
#error "this is the v1 header"
#endif
int main(void) { puts(gpiod_api_version()); return !gpiod_line_settings_new(); }
EOF
# shellcheck disable=SC2086
"$CC" -o "$WORK/t" "$WORK/t.c" $flags || die "a test program did not build with: $flags"
ran=$("$WORK/t") || die "the test program failed to run"
[ "$ran" = "$LIBVER" ] || die "test program reports API version '$ran', expected $LIBVER"

{ echo "libgpiod $LIBVER from gpiod $GPIOD_PY_VERSION"; echo "script $SCRIPT_HASH"
  (cd "$PREFIX" && sha256sum "${INSTALLED[@]}"); } > "$STAMP"
log "installed libgpiod $LIBVER into $PREFIX"
log "pkg-config --cflags --libs libgpiod: $flags"
