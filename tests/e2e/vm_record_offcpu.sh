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
TMPDIR=$T/tmp "$SRCDIR/scripts/vmtest.sh" --build "$(dirname "$PPROBE")" \
	"$SRCDIR/tests/vm/record_offcpu.sh" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 77 ] && skip "$(grep -m1 'SKIP' "$T/out")"
check "guest checks passed (status $rc)" [ $rc -eq 0 ]
# The key results, so that a guest script that skipped its checks cannot pass.
check "naps blocked in do_nanosleep" grep -q "^ok: command: 12 naps of 10 ms at least, blocked in do_nanosleep" "$T/out"
check "pipe waits blocked in pipe_read" grep -q "^ok: command: 3 pipe waits of ~10 ms (>= 9 ms each), blocked in pipe_read" "$T/out"
check "preempted" grep -q "^ok: contend: each spinning thread preempted" "$T/out"
check "nothing left in the harness's TMPDIR" [ -z "$(ls -A "$T/tmp")" ]
done_testing
