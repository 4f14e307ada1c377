# Check 1, run in a fresh minimal trixie root (bash, as root; /cache is the run's folder for
# this architecture, its debs/ holds the two packages): apt-get install of both packages from
# their files, every dependency from the archive. Writes to /cache: apt-install.log,
# install.rc (apt-get's exit status), new.txt (the packages the install added), policy.txt
# (`apt-cache policy` of those: where each came from), version.txt (both binaries' --version),
# system.txt (the service users and `systemd-analyze verify` of both units),
# and apt-state/ (apt's lists and caches after the update, the downloaded packages after the
# install) for the next run; phases.txt: the wall time of apt-get update and install.
set -u
export DEBIAN_FRONTEND=noninteractive
cd /cache
dpkg-query -W -f='${Package}\n' | sort > before.txt
keep() {  # what apt-get update and apt-get install made, for the next run
  mkdir -p apt-state/lists apt-state/cache/archives
  cp -a /var/lib/apt/lists/. apt-state/lists/; rm -rf apt-state/lists/partial apt-state/lists/lock
  cp -a /var/cache/apt/*.bin apt-state/cache/ 2>/dev/null || true
}
rm -rf apt-state
t=$SECONDS
if apt-get update -o Acquire::Languages=none > apt-install.log 2>&1; then
  keep
  echo "apt-get update $((SECONDS - t))s" > phases.txt; t=$SECONDS
  (cd debs && apt-get install -y ./roundclock_*.deb ./roundclock-gateway_*.deb) >> apt-install.log 2>&1
  echo $? > install.rc
  echo "apt-get install $((SECONDS - t))s" >> phases.txt
  cp -a /var/cache/apt/archives/*.deb apt-state/cache/archives/ 2>/dev/null || true
else
  echo "apt-get update failed: $?" > install.rc
fi
dpkg-query -W -f='${Package} ${Status}\n' | awk '$4 == "installed" {print $1}' | sort > after.txt
comm -13 before.txt after.txt > new.txt
# shellcheck disable=SC2046
apt-cache policy $(cat new.txt) > policy.txt 2>&1
{ roundclock --version; roundclock-gateway --version; } > version.txt 2>&1
# what the packages' maintainer scripts set up: the service users and the units they run
# (--man=no: a minimal root has no man to open the units' Documentation= pages)
{ for user in roundclock roundclock-gateway; do getent passwd "$user" | cut -d: -f1,6,7; done
  for unit in roundclock.service roundclock-gateway.service; do
    systemd-analyze verify --man=no "/usr/lib/systemd/system/$unit" && echo "verified $unit"
  done; } > system.txt 2>&1
exit 0
