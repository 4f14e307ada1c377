# Sourced by scripts/simulate and scripts/build-deb.sh: the flags of every release build of
# the clock and the gateway, so that the simulator and the package share one compiled build.
# --static-swift-stdlib: the Swift runtime linked in (no toolchain on the clock). Full RELRO
# (`-z relro -z now`, as dpkg-buildflags' hardening=+all asks of C programs): the GOT is
# read-only after start-up. Linked by the toolchain's own lld (swift.org's 6.3 and Debian
# trixie's 6.0.3 both ship it): trixie's Swift links with GNU ld, which leaves a static-stdlib
# binary without a PT_GNU_RELRO segment even with -z relro (trixie's lintian:
# hardening-no-relro); swift.org's 6.3 toolchain had RELRO but not BIND_NOW.
RELEASE_FLAGS=(-c release --static-swift-stdlib
               -Xswiftc -use-ld=lld -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now)
