# Checks 4 and 5, run in a trixie amd64 root with lintian and binutils for both architectures
# (bash; /cache/debs holds the four packages). Per package NAME.deb, writes /cache/tools/:
# NAME.lintian (lintian's report, informational tags too), NAME.lintian-rc (its exit status)
# and NAME.glibc, one line per ELF file in the package:
# "PATH HIGHEST-GLIBC_-VERSION" (none: no versioned glibc symbol).
set -u
out=/cache/tools
rm -rf "$out"; mkdir -p "$out"
for deb in /cache/debs/*.deb; do
  name=$(basename "$deb" .deb)
  lintian --display-info --tag-display-limit 0 "$deb" > "$out/$name.lintian" 2>&1
  echo $? > "$out/$name.lintian-rc"
  case $(dpkg-deb -f "$deb" Architecture) in
    arm64) objdump=aarch64-linux-gnu-objdump ;;
    amd64) objdump=x86_64-linux-gnu-objdump ;;
    *) objdump=objdump ;;
  esac
  rm -rf /tmp/x; dpkg-deb -x "$deb" /tmp/x
  : > "$out/$name.glibc"
  (cd /tmp/x && find . -type f | sort) | while read -r f; do
    [ "$(head -c 4 "/tmp/x/$f" | od -An -c | tr -d ' \n')" = '177ELF' ] || continue
    highest=$($objdump -T "/tmp/x/$f" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1)
    echo "${f#.} ${highest:-none}" >> "$out/$name.glibc"
  done
done
exit 0
