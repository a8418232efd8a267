#!/usr/bin/env bash
# A Debian package (issue 28): cpack makes pprobe_VERSION_amd64.deb from
# this build, apt installs it with its dependencies into a fresh Debian
# bookworm root (debootstrap --variant=minbase, kept in the test cache and
# used through an overlay, so every run starts from the clean root), and
# there pprobe runs: --version, help, record -g of a command that forks and
# execs, stat. Made from the plain build only (a sanitized binary needs
# libasan, which the package does not name).
. "$(dirname "$0")/lib.sh"
need_root
BUILD=$(dirname "$PPROBE")
grep -q '^PPROBE_SANITIZE:STRING=.' "$BUILD/CMakeCache.txt" 2>/dev/null &&
	skip "a sanitized build ($BUILD): the package is made from the plain one"
for c in cpack debootstrap chroot dpkg-deb; do
	command -v $c >/dev/null || skip "$c not found (Debian packages cmake, debootstrap, coreutils, dpkg)"
done

(cd "$BUILD" && cpack -B "$T/pkg") >"$T/cpack.log" 2>&1
check "cpack: exit 0" test $? -eq 0
deb=$(ls "$T"/pkg/pprobe_*_amd64.deb 2>/dev/null | head -1)
check "cpack: a .deb" test -n "$deb"
shown_on_failure "$T/cpack.log"
[ -n "$deb" ] || done_testing
dpkg-deb -c "$deb" >"$T/contents"
for f in ./usr/bin/pprobe ./usr/share/man/man1/pprobe.1 ./usr/share/man/man1/pprobe-record.1 \
	./usr/share/bash-completion/completions/pprobe; do
	check "the package holds $f" grep -q " $f\$" "$T/contents"
done
check "its dependencies from dpkg-shlibdeps (libdw1, libelf1, libunwind8)" \
	sh -c "dpkg-deb -f '$deb' Depends | grep -q 'libdw1.*libelf1.*libunwind8'"

# the clean root, made once and kept for reruns
minbase_root bookworm

R=$T/root
mkdir -p "$T/upper" "$T/work" "$R"
mount -t overlay overlay -o "lowerdir=$ROOT,upperdir=$T/upper,workdir=$T/work" "$R" ||
	skip "no overlay mount here"
# Never left mounted, and nothing removed through a mount: the root and
# all below it (its /proc, /sys, /dev, a tracefs pprobe mounted in its
# /sys) unmounted first; $T is removed only when none is left.
cleanup() {
	umount -R "$R" 2>/dev/null || umount -R -l "$R" 2>/dev/null
	if grep -q " $R[/ ]" /proc/mounts; then
		echo "FAIL: left mounted under $R; $T kept" >&2
		exit 1
	fi
	rm -rf "$T" "$T.cache"
}
trap cleanup EXIT
cp "$deb" "$R/tmp/pprobe.deb"
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
if ! timeout 600 chroot "$R" apt-get update -q >"$T/apt.log" 2>&1; then
	skip "apt-get update in the root failed (no network or mirror?): $(tail -1 "$T/apt.log")"
fi
timeout 600 chroot "$R" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	/tmp/pprobe.deb >>"$T/apt.log" 2>&1
check "apt-get install of the package in a clean bookworm root: exit 0" test $? -eq 0
shown_on_failure "$T/apt.log"
check "installed: dpkg knows it" sh -c "chroot '$R' dpkg -s pprobe | grep -q '^Status: install ok installed'"
# what a container has: its /proc, /sys and /dev
mount -t proc proc "$R/proc" && mount -t sysfs sysfs "$R/sys" && mount --bind /dev "$R/dev"
check "the root's /proc, /sys and /dev mounted" test $? -eq 0
check "pprobe --version there" test "$(chroot "$R" pprobe --version)" = "$("$PPROBE" --version)"
chroot "$R" pprobe help record >"$T/help" 2>&1
check "help record there (no man in a minbase root: the --help text)" grep -q '^usage: pprobe record' "$T/help"
chroot "$R" env PPROBE_CACHE_DIR= pprobe record -g -o /tmp/r.folded -- sh -c 'ls -R /usr >/dev/null; ls -R /usr >/dev/null' \
	>"$T/rec.out" 2>"$T/rec.err"
check "record -g there: exit 0" test $? -eq 0
check "record -g there: ls's stacks, named (main)" grep -qE '^ls;.*main' "$R/tmp/r.folded"
shown_on_failure "$T/rec.err"
chroot "$R" pprobe stat -- /bin/true >"$T/stat" 2>&1
check "stat there" grep -q 'task-clock' "$T/stat"
done_testing
