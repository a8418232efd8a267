#!/usr/bin/env bash
# scripts/vmtest.sh works: it boots Debian's stock kernel under QEMU with the
# build's pprobe and workloads, the guest has kprobes (a kprobe and a
# kretprobe through tracefs count exactly the opens made), the guest script's
# status and arguments come back intact, and a timeout or a SIGINT leaves no
# qemu and no temporary files behind. Skips (77) when no VM can run here.
. "$(dirname "$0")/lib.sh"
VMTEST=$SRCDIR/scripts/vmtest.sh
BUILD=$(dirname "$PPROBE")
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
[ -x "$PPROBE" ] || skip "no pprobe binary at $PPROBE"

# nothing_left DIR: DIR (the harness's TMPDIR) is empty and no process runs from it.
nothing_left() {
	local left
	left=$(ls -A "$1")
	[ -z "$left" ] || { echo "left in $1: $left" >&2; return 1; }
	if pgrep -f "$1" >/dev/null; then echo "still running: $(pgrep -af "$1")" >&2; return 1; fi
	return 0
}

# 1. The kprobe smoke test in the guest: exact counts, pprobe runs there.
N=1000 M=7
mkdir -p "$T/tmp1"
TMPDIR=$T/tmp1 "$VMTEST" --build "$BUILD" "$SRCDIR/tests/vm/kprobe_harness.sh" $N $M >"$T/out1" 2>&1
rc=$?
cat "$T/out1"
[ $rc -eq 77 ] && skip "$(grep -m1 'SKIP' "$T/out1")"
check "guest kprobe test passed (status $rc)" [ $rc -eq 0 ]
check "guest counted $N kprobe hits" grep -q "^ok: kprobe hits on /tmp/vmtest-target ($N)" "$T/out1"
check "guest counted $M failed opens by kretprobe" grep -q "^ok: kretprobe returns -ENOENT in this shell ($M)" "$T/out1"
check "guest pprobe --version is the host's" grep -qxF "pprobe-version: $("$PPROBE" --version)" "$T/out1"
host_wl=$(cd "$BUILD/tests/workloads" 2>/dev/null && ls | grep -vxE 'CMakeFiles|.*\.cmake|Makefile' | tr '\n' ' ')
check "guest has the workloads [$host_wl]" grep -qxF "workloads: $host_wl" "$T/out1"
check "nothing left after a run" nothing_left "$T/tmp1"
boot=$(sed -n 's/.*boot to init \([0-9.]*\) s.*host total \([0-9.]*\) s.*/boot \1 s, total \2 s/p' "$T/out1")
echo "timing: $boot"

# 2. Exit status and arguments pass through (quotes and spaces intact); a
# process the script leaves running does not hang the guest.
"$VMTEST" --build "$BUILD" "$SRCDIR/tests/vm/harness_status.sh" exit 3 "a b" "it's" >"$T/out2" 2>&1
rc=$?
check "guest status 3 comes back (got $rc)" [ $rc -eq 3 ]
check "arguments intact" grep -qxF "arg: [a b]" "$T/out2"
check "quote intact" grep -qxF "arg: [it's]" "$T/out2"
check "argument count" grep -qxF "argc: 4" "$T/out2"
check "leftover guest process killed" grep -qE "^vmtest: killing process [0-9]+ \(sleep 1000 \)" "$T/out2"

# 3. Timeout: qemu killed, status 124, nothing left.
mkdir -p "$T/tmp3"
TMPDIR=$T/tmp3 "$VMTEST" --build "$BUILD" --timeout 3 "$SRCDIR/tests/vm/harness_status.sh" sleep >"$T/out3" 2>&1
rc=$?
check "timeout gives status 124 (got $rc)" [ $rc -eq 124 ]
check "timeout says so" grep -q "vmtest: timeout: the VM did not finish within 3s" "$T/out3"
check "nothing left after a timeout" nothing_left "$T/tmp3"

# 4. SIGINT while the guest runs: status 130, qemu gone, nothing left.
# (Job control on: a background job of a non-interactive shell ignores SIGINT.)
mkdir -p "$T/tmp4"
set -m
TMPDIR=$T/tmp4 "$VMTEST" --build "$BUILD" --timeout 120 "$SRCDIR/tests/vm/harness_status.sh" sleep >"$T/out4" 2>&1 &
pid=$!
set +m
for _ in $(seq 600); do grep -q "guest sleeping" "$T/out4" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
check "guest started before SIGINT" grep -q "guest sleeping" "$T/out4"
kill -INT $pid
wait $pid
rc=$?
check "SIGINT gives status 130 (got $rc)" [ $rc -eq 130 ]
check "SIGINT says so" grep -q "vmtest: interrupted" "$T/out4"
check "nothing left after SIGINT" nothing_left "$T/tmp4"
for f in out2 out3 out4; do echo "--- $f"; cat "$T/$f"; done
done_testing
