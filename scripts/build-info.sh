#!/usr/bin/env bash
# What a binary was built with, for /usr/share/doc/<package>/build-info.txt
# (scripts/build-deb.sh writes it into each package):
#   scripts/build-info.sh swift DIR           the Swift compiler on PATH and every Swift package
#                                             DIR's Package.resolved pins (name, version, commit)
#   scripts/build-info.sh debian ARCH PKG...  the installed version of each Debian package PKG
#                                             (dpkg-query patterns) for ARCH
set -euo pipefail
case ${1:-} in
  swift)
    dir=${2:?usage: build-info.sh swift DIR}
    [ -f "$dir/Package.resolved" ] || { echo "build-info: $dir/Package.resolved is missing (resolve first)" >&2; exit 1; }
    debian=$(dpkg-query -W -f=', Debian swiftlang ${Version}' swiftlang 2>/dev/null || true)
    echo "Swift compiler: $(swift --version 2>&1 | grep -m1 -i 'swift version')$debian"
    echo
    echo "Swift packages (Package.resolved):"
    awk -F'"' '/"identity"/ { name = $4 } /"revision"/ { rev = $4 }
               /"version"/ && $4 != "" { printf "  %-28s %-12s %s\n", name, $4, rev }' "$dir/Package.resolved" | sort
    ;;
  debian)
    arch=${2:?usage: build-info.sh debian ARCH PKG...}; shift 2
    echo "Debian packages built against ($arch):"
    dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' "${@/%/:$arch}" 2>/dev/null |
      awk '$1 == "ii" { printf "  %-28s %s\n", $2, $3 }' | sort
    ;;
  *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
