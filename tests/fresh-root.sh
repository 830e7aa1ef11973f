#!/bin/bash
# tests/fresh-root.sh [DIR]: what a new user gets.  Bootstraps a minimal
# Debian 12 root in DIR (default /var/tmp/prof-fresh-root), clones this
# repository (its committed HEAD) into the root's /root/prof, and there, as
# root, runs the README's two commands, make demo then make check, and
# prints their summaries.  The only packages it starts from are those the
# README asks for: git and make.
#
# Needs root, debootstrap (installed if missing) and Debian's archive.  Not
# part of make check: it downloads a system and takes about half an hour.
# FRESH_KEEP=1 keeps DIR afterwards (it is removed by default); FRESH_CHECK=0
# runs make demo only.  The
# corpus beside this repository is mounted beside the clone, as on CI.
set -eu
dir=${1:-/var/tmp/prof-fresh-root}
repo=$(cd "$(dirname "$0")/.." && pwd)
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || { echo "fresh-root: needs root" >&2; exit 2; }
if ! command -v debootstrap >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

# Lazily, since a busy submount of /proc would stop a plain umount; and the
# removal never crosses into a file system still mounted there (the host's
# /proc, /sys or /dev).
remove_root() {
	umount -R -l "$dir" 2>/dev/null || true
	rm -rf --one-file-system "$dir"
}
cleanup() {
	if [ "${FRESH_KEEP:-0}" = 1 ]; then
		umount -R -l "$dir" 2>/dev/null || true
	else
		remove_root
	fi
}
trap cleanup EXIT

remove_root
mkdir -p "$dir"
echo "fresh-root: debootstrap bookworm into $dir" >&2
debootstrap --variant=minbase --include=git,make,ca-certificates bookworm "$dir" "$mirror" \
	>"$dir.debootstrap.log" 2>&1 || { tail -20 "$dir.debootstrap.log" >&2; exit 1; }
# The root is a mount point, as / is on a real machine (unshare --mount
# needs one), with the host's /proc, /sys and /dev.
mount --bind "$dir" "$dir"
mount --rbind /proc "$dir/proc"
mount --rbind /sys "$dir/sys"
mount --rbind /dev "$dir/dev"
# The host's network as it is: its resolver, and the certificate
# authorities it added (a proxy's), for apt and npm alike.
cp /etc/resolv.conf "$dir/etc/resolv.conf"
# (An installed Debian has /etc/hosts, with localhost; debootstrap makes none.)
cp /etc/hosts "$dir/etc/hosts"
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
	cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
	chroot "$dir" update-ca-certificates >/dev/null 2>&1
fi
git clone -q "$repo" "$dir/root/prof"
# CI has ../shared (the reference corpus) beside its clone: so has the
# fresh root, read-only, when this repository has it.  FRESH_CORPUS=0 leaves
# it out, as a user's machine would.
if [ "${FRESH_CORPUS:-1}" = 1 ] && [ -d "$repo/../shared" ]; then
	mkdir -p "$dir/root/shared"
	mount --bind "$repo/../shared" "$dir/root/shared"
	mount -o remount,bind,ro "$dir/root/shared"
fi

# The root is entered as container runtimes enter theirs: in a mount
# namespace of its own, made its root with pivot_root.  (A chrooted process
# may not create user namespaces, which the tests of hostile users need.)
run() {
	unshare --mount --propagation private /bin/sh -c '
		cd "$1" && mkdir -p .oldroot && pivot_root . .oldroot && umount -l /.oldroot &&
		rmdir /.oldroot && exec /usr/bin/env -i HOME=/root TERM=dumb \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin ${3:+NODE_EXTRA_CA_CERTS=$3} \
			/bin/bash -c "cd /root/prof && $2"' sh "$dir" "$1" "${NODE_EXTRA_CA_CERTS:-}"
}

# A new machine's unattended-upgrades holds apt's locks when the user
# starts: so does this, for the first FRESH_LOCK_SECS of make demo (the
# set-up must wait for them, not fail).
hold_apt_locks() {
	python3 -c '
import fcntl, sys, time
held = [open(p, "a") for p in sys.argv[3:]]
for f in held:
    fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[1]))' "$1" "$2" "$dir/var/lib/dpkg/lock-frontend" "$dir/var/lib/dpkg/lock" \
		"$dir/var/lib/apt/lists/lock"
}
status=0
lock_secs=${FRESH_LOCK_SECS:-30}
rm -f "$dir.locked"
hold_apt_locks "$lock_secs" "$dir.locked" &
# (make demo starts apt in a fraction of a second: the locks are held first.)
while [ ! -e "$dir.locked" ]; do sleep 0.1; done
SECONDS=0
run 'make demo' >"$dir.demo.log" 2>&1 || status=1
wait
echo "make demo: $(tail -1 "$dir.demo.log") (status $status, $SECONDS s, apt locked for the first $lock_secs s)"
grep -m1 '^setup: waiting' "$dir.demo.log" || echo "make demo: the set-up never waited for apt's locks"
test -s "$dir/root/prof/demo.svg" || { echo "make demo: no demo.svg"; status=1; }
# FRESH_CHECK=0: make demo only.
if [ "${FRESH_CHECK:-1}" = 1 ]; then
	SECONDS=0
	run 'make check' >"$dir.check.log" 2>&1 || status=1
	echo "make check: $(tail -1 "$dir.check.log") ($SECONDS s)"
	grep -E '^#   ' "$dir.check.log" || true
fi
echo "fresh-root: logs in $dir.demo.log and $dir.check.log" >&2
exit $status
