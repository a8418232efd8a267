#!/usr/bin/env bash
# vmtest.sh: run a guest test script in a QEMU VM booted from Debian's stock
# kernel, for the kernel features the build machine lacks (kprobes,
# kretprobes, the kprobe PMU). See docs/vmtest.md.
#
#   scripts/vmtest.sh [options] SCRIPT [ARGS...]
#   scripts/vmtest.sh [options] --facts          (boot, print guest facts, exit)
#   scripts/vmtest.sh --prepare                  (only fetch and cache the kernel)
#   scripts/vmtest.sh --shell [SCRIPT [ARGS...]] (a shell on the guest console)
#
# Options:
#   --build DIR       pprobe build directory (default: <repo>/build). Its pprobe
#                     binary and tests/workloads/* go into the guest with every
#                     shared library they need.
#   --keep            keep the work directory (initramfs, console.log); print its path
#   --timeout SECS    kill the VM after SECS seconds (default 120, or $PPROBE_VM_TIMEOUT)
#   --add SRC[:DEST]  also copy SRC (file or directory) into the guest, at DEST
#                     (default /vmtest/<basename of SRC>); ELF files bring their libraries
#   --debuginfo       also copy /usr/lib/debug/.build-id/ files of every ELF copied
#   --facts           print guest facts (kernel, PMUs, tracefs, sysctls) first
#   --smp N           guest CPUs (default 2)
#   --mem MB          guest memory (default 1024)
#   --append ARGS     extra kernel command line arguments
#   --env NAME=VALUE  set NAME in the guest script's environment (ASAN_OPTIONS,
#                     UBSAN_OPTIONS and LSAN_OPTIONS pass through by themselves)
#   --prepare         download and unpack the kernel into the cache, then exit
#   --shell           interactive: after SCRIPT (if any), a shell on the guest's
#                     console (exit or Ctrl-D powers off; Ctrl-A x kills qemu); no timeout
#
# The guest runs SCRIPT with busybox's ash (there is no bash in the guest:
# guest scripts are POSIX sh) from /vmtest, as root, with PPROBE, WORKLOADS,
# VMTEST_FACTS set and /vmtest/lib.sh (tests/vm/lib.sh) available.
#
# Exit status: the guest script's own status; 77 if no VM can run here (qemu
# missing, kernel not obtainable: the message says why); 124 if the VM did not
# finish within the timeout; 125 if the harness failed (bad usage, guest kernel
# panic or oops, no status reported); 130/143 on SIGINT/SIGTERM.
#
# Environment:
#   PPROBE_VM_CACHE   kernel cache (default ${XDG_CACHE_HOME:-~/.cache}/pprobe-vm)
#   PPROBE_VM_KERNEL  boot this kernel (vmlinux, or a bzImage/vmlinuz) instead
#   PPROBE_VM_KPKG    Debian kernel package (default: the one linux-image-amd64 depends on)
#   PPROBE_VM_QEMU    qemu binary (default qemu-system-x86_64)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(dirname "$here")

build=$srcdir/build
keep=0
timeout=${PPROBE_VM_TIMEOUT:-120}
facts=0
debuginfo=0
prepare_only=0
shell=0
smp=2
mem=1024
append=
adds=()
envs=()
for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
	[ -n "${!v:-}" ] && envs+=("$v=${!v}")
done
cache=${PPROBE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/pprobe-vm}
qemu=${PPROBE_VM_QEMU:-qemu-system-x86_64}

msg() { echo "vmtest: $*" >&2; }
die() { msg "error: $*"; exit 125; }
unavailable() { msg "SKIP: cannot run a VM here: $*"; exit 77; }
usage() { sed -n '6,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
usage_error() { msg "$*"; usage >&2; exit 125; }

while [ $# -gt 0 ]; do
	case $1 in
	--build) [ $# -ge 2 ] || usage_error "$1 wants an argument"; build=$2; shift 2 ;;
	--build=*) build=${1#*=}; shift ;;
	--keep) keep=1; shift ;;
	--timeout) [ $# -ge 2 ] || usage_error "$1 wants an argument"; timeout=$2; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	--add) [ $# -ge 2 ] || usage_error "$1 wants an argument"; adds+=("$2"); shift 2 ;;
	--add=*) adds+=("${1#*=}"); shift ;;
	--env) [ $# -ge 2 ] || usage_error "$1 wants an argument"; envs+=("$2"); shift 2 ;;
	--debuginfo) debuginfo=1; shift ;;
	--facts) facts=1; shift ;;
	--smp) [ $# -ge 2 ] || usage_error "$1 wants an argument"; smp=$2; shift 2 ;;
	--mem) [ $# -ge 2 ] || usage_error "$1 wants an argument"; mem=$2; shift 2 ;;
	--append) [ $# -ge 2 ] || usage_error "$1 wants an argument"; append=$2; shift 2 ;;
	--prepare) prepare_only=1; shift ;;
	--shell) shell=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
done
case $timeout in ''|*[!0-9]*) die "--timeout wants whole seconds, got '$timeout'" ;; esac
case $smp in ''|*[!0-9]*) die "--smp wants a number, got '$smp'" ;; esac
case $mem in ''|*[!0-9]*) die "--mem wants megabytes, got '$mem'" ;; esac

script=
if [ $prepare_only -eq 0 ]; then
	if [ $# -gt 0 ]; then
		script=$1; shift
		[ -f "$script" ] || die "guest script '$script' not found"
	elif [ $facts -eq 0 ] && [ $shell -eq 0 ]; then
		usage_error "no guest script given"
	fi
fi

# ---- cleanup on every path ------------------------------------------------
work=
qpid=
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qpid" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	if [ -n "$work" ] && [ -d "$work" ]; then
		if [ "$keep" -eq 1 ]; then msg "kept work directory $work"; else rm -rf "$work"; fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'msg "interrupted (SIGINT): stopping the VM"; exit 130' INT
trap 'msg "terminated (SIGTERM): stopping the VM"; exit 143' TERM

# now_ms: set now to the time in milliseconds (a builtin: no fork).
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; now=$((10#$t / 1000)); }
now_ms; t_start=$now

# ---- the kernel -----------------------------------------------------------
# xz_payload BZIMAGE OUT: the ELF vmlinux inside a bzImage (xz-compressed, as
# Debian builds it). QEMU boots an ELF vmlinux through its PVH note, which
# skips the decompressor (slow under TCG).
xz_payload() {
	local off
	command -v xz >/dev/null || return 1
	for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$1" 2>/dev/null | head -5 | cut -d: -f1); do
		# xz stops after the stream: tail may die of SIGPIPE, which is fine.
		if { tail -c +$((off + 1)) "$1" 2>/dev/null || true; } | xz -dc --single-stream >"$2" 2>/dev/null &&
			[ "$(head -c 4 "$2" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then
			return 0
		fi
	done
	rm -f "$2"
	return 1
}

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }

# Sets kernel (the file to boot) and kconfig (its config, maybe empty).
kernel=
kconfig=
prepare_kernel() {
	if [ -n "${PPROBE_VM_KERNEL:-}" ]; then
		[ -f "$PPROBE_VM_KERNEL" ] || die "PPROBE_VM_KERNEL=$PPROBE_VM_KERNEL: no such file"
		if is_elf "$PPROBE_VM_KERNEL"; then
			kernel=$PPROBE_VM_KERNEL
		else
			mkdir -p "$work" && kernel=$work/vmlinux
			# No xz payload: boot the bzImage itself (its decompressor is slower under TCG).
			xz_payload "$PPROBE_VM_KERNEL" "$kernel" || kernel=$PPROBE_VM_KERNEL
		fi
		return 0
	fi
	local pkg=${PPROBE_VM_KPKG:-}
	# apt-cache takes a second or two: remember its answer until apt's lists change.
	if [ -z "$pkg" ] && [ -f "$cache/package" ] && [ "$cache/package" -nt /var/lib/apt/lists ] &&
		[ -f "$cache/$(cat "$cache/package")/vmlinux" ]; then
		pkg=$(cat "$cache/package")
	fi
	if [ -z "$pkg" ] && command -v apt-cache >/dev/null; then
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
		if [ -z "$pkg" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
			msg "apt-cache knows no linux-image-amd64: running apt-get update"
			apt-get update -qq >/dev/null 2>&1
			pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
		fi
	fi
	if [ -z "$pkg" ]; then
		# Offline or not Debian: any kernel cached earlier will do.
		local cached
		cached=$(ls -d "$cache"/linux-image-*/vmlinux 2>/dev/null | sort -V | tail -1)
		[ -n "$cached" ] || unavailable "no Debian kernel package known (apt-cache depends linux-image-amd64 found none; run apt-get update) and none cached in $cache; or set PPROBE_VM_KERNEL=/path/to/vmlinuz"
		kernel=$cached
		kconfig=$(ls "$(dirname "$cached")"/config-* 2>/dev/null | head -1)
		return 0
	fi
	local dir=$cache/$pkg
	if [ ! -f "$dir/vmlinux" ]; then
		mkdir -p "$cache" || unavailable "cannot create the kernel cache $cache"
		(
			# One download at a time; whoever waited finds it done.
			command -v flock >/dev/null && flock 9
			[ -f "$dir/vmlinux" ] && exit 0
			rm -rf "$cache"/.tmp.*      # of runs killed while downloading
			command -v apt-get >/dev/null || { msg "SKIP: cannot run a VM here: no apt-get to download $pkg"; exit 77; }
			command -v dpkg-deb >/dev/null || { msg "SKIP: cannot run a VM here: no dpkg-deb to unpack $pkg"; exit 77; }
			tmp=$(mktemp -d "$cache/.tmp.XXXXXX") || exit 125
			trap 'rm -rf "$tmp"' EXIT
			msg "downloading $pkg into $dir (once)"
			# apt-get download warns when _apt cannot write there; the download still works.
			(cd "$tmp" && apt-get download -q "$pkg" 2>&1 | grep -v 'unsandboxed' >&2)
			deb=$(ls "$tmp"/*.deb 2>/dev/null | head -1)
			[ -n "$deb" ] || { msg "SKIP: cannot run a VM here: apt-get download $pkg failed (no network or no apt source?)"; exit 77; }
			dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" ./boot/ ||
				{ msg "error: cannot unpack /boot of $deb"; exit 125; }
			vmlinuz=$(ls "$tmp"/boot/vmlinuz-* 2>/dev/null | head -1)
			[ -n "$vmlinuz" ] || { msg "error: $deb has no /boot/vmlinuz-*"; exit 125; }
			if ! xz_payload "$vmlinuz" "$tmp/vmlinux"; then
				msg "no xz payload in $vmlinuz (is xz-utils installed?): booting the bzImage itself"
				cp "$vmlinuz" "$tmp/vmlinux"
			fi
			cp "$tmp"/boot/config-* "$tmp"/ 2>/dev/null
			mv "$deb" "$tmp"/ 2>/dev/null
			rm -rf "${tmp:?}/boot" "$dir"
			mv "$tmp" "$dir" || exit 125
			chmod 755 "$dir"
			trap - EXIT
		) 9>"$cache/.lock"
		local rc=$?
		[ $rc -eq 0 ] || exit $rc
	fi
	[ -n "${PPROBE_VM_KPKG:-}" ] || echo "$pkg" >"$cache/package"
	kernel=$dir/vmlinux
	kconfig=$(ls "$dir"/config-* 2>/dev/null | head -1)
}

# ---- the initramfs --------------------------------------------------------
# Files are staged in $root with as few processes as possible (a loaded
# 2-core machine pays for every fork): one cp per kind of file, one ldd for
# all binaries, one cp --parents for all their libraries.
root=
elves=()    # staged files whose shared libraries the guest needs

# stage SRC DEST: copy a file (following symlinks) or a directory's contents
# to DEST in the guest.
stage() {
	local src=$1 dest=$2 f
	if [ -d "$src" ]; then
		mkdir -p "$root$dest" && cp -rL "$src"/. "$root$dest"/ || die "cannot copy $src into the guest"
		while IFS= read -r f; do elves+=("$f"); done < <(find -L "$src" -type f -perm -u+x)
	else
		mkdir -p "$root${dest%/*}" && cp -L "$src" "$root$dest" || die "cannot copy $src into the guest"
		elves+=("$src")
	fi
}

# Shared libraries (ldd, transitively) at the paths ldd found them: the
# guest's ld.so looks in its default directories, and RUNPATHs stay valid.
# With --debuginfo, the /usr/lib/debug/.build-id files of all of them too.
stage_libraries() {
	local libs=() dbgs=() l
	[ ${#elves[@]} -gt 0 ] || return 0
	# ld.so --list is what ldd runs, without ldd's (slow) shell script around it.
	local ldso=/lib64/ld-linux-x86-64.so.2 f
	mapfile -t libs < <(for f in "${elves[@]}"; do
			if [ -x "$ldso" ]; then "$ldso" --list "$f"; else ldd "$f"; fi
		done 2>/dev/null | awk '/=> \// {print $3} /^\t\// {print $1}' | sort -u)
	for l in "${!libs[@]}"; do [ -f "${libs[$l]}" ] || unset 'libs[l]'; done
	if [ ${#libs[@]} -gt 0 ]; then
		cp -L --parents "${libs[@]}" "$root"/ || die "cannot copy shared libraries into the guest"
	fi
	[ $debuginfo -eq 1 ] || return 0
	mapfile -t dbgs < <(readelf -n "${elves[@]}" "${libs[@]}" 2>/dev/null |
		awk '/Build ID:/ { id = $3; print "/usr/lib/debug/.build-id/" substr(id, 1, 2) "/" substr(id, 3) ".debug" }' | sort -u)
	for l in "${!dbgs[@]}"; do [ -f "${dbgs[$l]}" ] || unset 'dbgs[l]'; done
	if [ ${#dbgs[@]} -gt 0 ]; then
		cp -L --parents "${dbgs[@]}" "$root"/ || die "cannot copy debug info into the guest"
	fi
}

# shq WORD: WORD quoted for a POSIX shell.
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

build_initramfs() {
	root=$work/root
	mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,run,root,etc,boot,vmtest,opt/pprobe/bin,opt/pprobe/workloads}
	local busybox
	busybox=$(command -v busybox || true)
	[ -n "$busybox" ] || unavailable "busybox is not installed (apt-get install busybox-static)"
	# A dynamically linked busybox works too: it is staged with its libraries.
	stage "$busybox" /bin/busybox

	if [ -n "$script" ]; then
		[ -x "$build/pprobe" ] || die "no pprobe binary in $build (build first: scripts/build.sh; or pass --build DIR)"
	fi
	[ -x "$build/pprobe" ] && stage "$build/pprobe" /opt/pprobe/bin/pprobe
	# The workloads directory as built (binaries, debug trees...), without CMake's files.
	local wls=() wl
	if [ -d "$build/tests/workloads" ]; then
		mapfile -t wls < <(find -H "$build/tests/workloads" -mindepth 1 -maxdepth 1 \
			! -name CMakeFiles ! -name '*.cmake' ! -name Makefile)
	fi
	if [ ${#wls[@]} -gt 0 ]; then
		cp -rL "${wls[@]}" "$root/opt/pprobe/workloads/" || die "cannot copy the workloads into the guest"
		while IFS= read -r wl; do elves+=("$wl"); done < <(find -L "${wls[@]}" -type f -perm -u+x)
	fi
	[ -f "$srcdir/tests/vm/lib.sh" ] && cp "$srcdir/tests/vm/lib.sh" "$root/vmtest/lib.sh"
	[ -n "$kconfig" ] && cp "$kconfig" "$root/boot/"
	local a src dest
	for a in "${adds[@]+"${adds[@]}"}"; do
		src=${a%%:*}
		if [ "$src" = "$a" ]; then dest=/vmtest/${src##*/}; else dest=${a#*:}; fi
		[ -e "$src" ] || die "--add $a: $src does not exist"
		stage "$src" "$dest"
	done
	if [ -n "$script" ]; then
		guest_script=/vmtest/${script##*/}
		cp "$script" "$root$guest_script" || die "cannot copy $script into the guest"
	fi
	stage_libraries
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
	printf '127.0.0.1 localhost vmtest\n::1 localhost ip6-localhost\n' >"$root/etc/hosts"

	local args='' w exports=''
	for w in "$@"; do args="$args $(shq "$w")"; done
	for w in "${envs[@]+"${envs[@]}"}"; do
		case ${w%%=*} in
		'' | [0-9]* | *[!A-Za-z0-9_]*) die "--env $w: not NAME=VALUE" ;;
		esac
		[ "${w#*=}" != "$w" ] || die "--env $w: not NAME=VALUE"
		exports="${exports}export ${w%%=*}=$(shq "${w#*=}")
"
	done
	write_init "$args" "$exports" >"$root/init"
	chmod 755 "$root/init"

	local cpio_cmd
	if command -v cpio >/dev/null; then cpio_cmd=(cpio --quiet -o -H newc -R 0:0)
	else cpio_cmd=("$busybox" cpio -o -H newc -R 0:0); fi
	# Uncompressed: unpacking xz or gzip under TCG costs more than reading it.
	(cd "$root" && find . | "${cpio_cmd[@]}") >"$work/initramfs.cpio" 2>/dev/null ||
		die "cannot build the initramfs (cpio failed)"
}

# The guest's /init: mount what a tracer needs, run the script, report its
# status on the console with a marker the host looks for, power off.
write_init() {
	cat <<EOF
#!/bin/busybox sh
# Generated by scripts/vmtest.sh. Runs as PID 1 under busybox ash.
/bin/busybox --install -s /bin
export PATH=/opt/pprobe/bin:/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TMPDIR=/tmp LC_ALL=C
export PPROBE=/opt/pprobe/bin/pprobe WORKLOADS=/opt/pprobe/workloads VMTEST=1 VMTEST_FACTS=/vmtest/facts
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
hostname vmtest
echo "vmtest: guest init started at uptime \$(cut -d' ' -f1 /proc/uptime) s, kernel \$(uname -r), \$(nproc) CPUs"
{
	echo "kernel: \$(uname -r) (\$(cut -d' ' -f3 /proc/version))"
	echo "cpus: \$(nproc)"
	for d in /sys/bus/event_source/devices/*; do echo "pmu \${d##*/}: type \$(cat \$d/type)"; done
	echo "kprobe pmu type: \$(cat /sys/bus/event_source/devices/kprobe/type 2>/dev/null || echo none)"
	echo "kprobe pmu formats: \$(ls /sys/bus/event_source/devices/kprobe/format 2>/dev/null | tr '\n' ' ')"
	echo "uprobe pmu type: \$(cat /sys/bus/event_source/devices/uprobe/type 2>/dev/null || echo none)"
	echo "uprobe pmu formats: \$(ls /sys/bus/event_source/devices/uprobe/format 2>/dev/null | tr '\n' ' ')"
	echo "hardware pmu (cpu): \$([ -d /sys/bus/event_source/devices/cpu ] && echo yes || echo none)"
	for f in kprobe_events uprobe_events dynamic_events kprobe_profile error_log; do
		echo "tracefs \$f: \$([ -e /sys/kernel/tracing/\$f ] && echo present || echo absent)"
	done
	for s in perf_event_paranoid perf_event_max_stack kptr_restrict; do
		echo "sysctl kernel.\$s: \$(cat /proc/sys/kernel/\$s)"
	done
	echo "kernel config: \$(ls /boot/config-* 2>/dev/null || echo none)"
} >/vmtest/facts 2>&1
[ "$facts" = 1 ] && sed 's/^/vmtest: fact: /' /vmtest/facts
$2rc=0
# If the host side dies without killing qemu (SIGKILL), the guest still ends.
watchdog=
if [ $shell = 0 ]; then
	poweroff -f -d $((timeout + 30)) &
	watchdog=\$!
fi
if [ -n "${guest_script:-}" ]; then
	cd /vmtest
	# Output goes through a pipe, not the console tty: programs behave as
	# under ctest on the host (no colours, no tty-only output).
	mkfifo /tmp/.vmtest-out
	cat /tmp/.vmtest-out &
	catpid=\$!
	sh $(shq "$guest_script")$1 </dev/null >/tmp/.vmtest-out 2>&1
	rc=\$?
	# Whatever the script left running would hold the pipe open: kill it.
	for d in /proc/[0-9]*; do
		p=\${d#/proc/}
		[ "\$p" = 1 ] || [ "\$p" = "\$catpid" ] || [ "\$p" = "\$watchdog" ] && continue
		cmd=\$(tr '\\0' ' ' <\$d/cmdline 2>/dev/null)
		[ -n "\$cmd" ] || continue      # kernel thread, zombie, or gone
		echo "vmtest: killing process \$p (\$cmd) the guest script left running"
		kill -9 "\$p" 2>/dev/null
	done
	wait \$catpid
fi
if [ $shell = 1 ]; then
	echo "vmtest: guest script status \$rc; a shell on the console (exit powers off)"
	setsid cttyhack sh -l
fi
echo
echo "@@pprobe-vmtest-exit-$nonce@@ \$rc"
sync
poweroff -f
sleep 5
EOF
}

# ---- run ------------------------------------------------------------------
if [ $prepare_only -eq 0 ]; then
	command -v "$qemu" >/dev/null || unavailable "$qemu is not installed (apt-get install qemu-system-x86)"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pprobe-vmtest.XXXXXX") || die "cannot create a work directory"
prepare_kernel
if [ $prepare_only -eq 1 ]; then
	msg "kernel ready: $kernel"
	exit 0
fi
nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
guest_script=
build_initramfs "$@"
now_ms; t_ready=$now

if [ $shell -eq 1 ]; then
	# The console is this terminal (Ctrl-C goes to the guest); qemu in the foreground.
	"$qemu" -accel tcg -cpu max -smp "$smp" -m "$mem" \
		-nodefaults -display none -no-reboot \
		-chardev stdio,id=con,mux=on,signal=off -serial chardev:con -mon chardev=con \
		-kernel "$kernel" -initrd "$work/initramfs.cpio" \
		-append "console=ttyS0 quiet panic=-1 $append"
	exit $?
fi
console=$work/console.log
: >"$console"
"$qemu" -accel tcg -cpu max -smp "$smp" -m "$mem" \
	-nodefaults -display none -no-reboot -serial "file:$console" \
	-kernel "$kernel" -initrd "$work/initramfs.cpio" \
	-append "console=ttyS0 quiet panic=-1 $append" \
	</dev/null >"$work/qemu.out" 2>&1 &
qpid=$!

# Stream the console while waiting; kill the VM at the deadline. Builtins
# only (read from the console file, read -t on an idle pipe as the clock):
# the VM needs the CPU more than a polling loop does.
exec 7<"$console"
exec 8<> <(:)
show_console() {
	local line
	while IFS= read -r -u 7 line; do
		printf '%s\n' "${line%$'\r'}"
	done
	# A partial last line: print what there is, read continues after it.
	[ -n "$line" ] && printf '%s' "${line%$'\r'}"
	return 0
}
now_ms; deadline=$((now + timeout * 1000))
while kill -0 "$qpid" 2>/dev/null; do
	show_console
	now_ms
	if [ $now -ge $deadline ]; then
		msg "timeout: the VM did not finish within ${timeout}s (guest hung, or boot stuck: console above); killing qemu"
		exit 124
	fi
	read -r -t 0.1 -u 8 _
done
wait "$qpid"
qrc=$?
qpid=
show_console
exec 7<&- 8<&-
now_ms; t_end=$now

if [ $qrc -ne 0 ]; then
	sed 's/^/vmtest: qemu: /' "$work/qemu.out" >&2
	die "qemu exited with status $qrc"
fi
status=$(tr -d '\r' <"$console" | sed -n "s/^@@pprobe-vmtest-exit-$nonce@@ \([0-9]*\)\$/\1/p" | tail -1)
boot=$(tr -d '\r' <"$console" | sed -n 's/^vmtest: guest init started at uptime \([0-9.]*\) s.*/\1/p' | head -1)
msg "kernel $(basename "$(dirname "$kernel")"), boot to init ${boot:-?} s (guest clock), host total $(( (t_end - t_start) / 1000 )).$(printf '%03d' $(( (t_end - t_start) % 1000 ))) s (VM $(( (t_end - t_ready) / 1000 )).$(printf '%03d' $(( (t_end - t_ready) % 1000 ))) s)"
if grep -aqE 'Kernel panic|Oops:|BUG:' "$console"; then
	die "the guest kernel panicked or oopsed (console above)"
fi
grep -aq 'WARNING: CPU' "$console" && msg "note: the guest kernel printed a WARNING (console above)"
[ -n "$status" ] || die "the guest reported no exit status (init died, the kernel panicked, or the guest watchdog powered off at timeout + 30 s guest time: console above)"
exit "$status"
