#!/usr/bin/env bash
# record --off-cpu on Debian's stock 6.1 kernel in the VM of
# scripts/vmtest.sh (the host's is 6.18): sleeps and pipe waits blocked in
# their kernel frames, burnt CPU on-CPU, preemption. The guest side is
# tests/vm/record_offcpu.sh. Skips (77) when no VM can run.
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
[ -x "$PPROBE" ] || skip "no pprobe binary at $PPROBE"
[ -x "$WORKLOADS/offcpu_wl" ] || skip "no workload $WORKLOADS/offcpu_wl"

mkdir -p "$T/tmp"
# One guest CPU: twice in CI (never here) the 6.1 guest under TCG hung
# with 2 vCPUs, CPU1 in a soft lockup in pprobe's syscall while CPU0's
# timers stopped firing (RCU stall: "timer wakeup didn't happen"), which
# points at a cross-CPU call that never ran. The checks need no second CPU:
# contend's two threads share the one. If the guest still hangs that way,
# it is said and run once more; a second hang fails.
run_guest() {
	TMPDIR=$T/tmp "$SRCDIR/scripts/vmtest.sh" --smp 1 --build "$(dirname "$PPROBE")" \
		"$SRCDIR/tests/vm/record_offcpu.sh" >"$T/out" 2>&1
}
run_guest
rc=$?
cat "$T/out"
if [ $rc -eq 124 ] && grep -qE 'soft lockup|rcu_preempt self-detected stall' "$T/out"; then
	echo "note: the guest kernel hung (console above), not a check of pprobe's: running it once more"
	run_guest
	rc=$?
	cat "$T/out"
fi
[ $rc -eq 77 ] && skip "$(grep -m1 'SKIP' "$T/out")"
check "guest checks passed (status $rc)" [ $rc -eq 0 ]
# The key results, so that a guest script that skipped its checks cannot pass.
check "naps blocked in do_nanosleep" grep -q "^ok: command: 12 naps of 10 ms at least, blocked in do_nanosleep" "$T/out"
check "pipe waits off-CPU in wait_reply" grep -q "^ok: command: 3 pipe waits of ~10 ms off-CPU in wait_reply" "$T/out"
check "preempted" grep -q "^ok: contend: each spinning thread preempted" "$T/out"
check "nothing left in the harness's TMPDIR" [ -z "$(ls -A "$T/tmp")" ]
done_testing
