#!/usr/bin/env bash
# pprobe trace --syscalls on Debian's stock 6.1 kernel (in the VM of
# scripts/vmtest.sh): older syscall formats than the host's, the same lines
# and counts. The guest side is tests/vm/trace_syscalls.sh. Skips (77) when
# no VM can run.
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
[ -x "$PPROBE" ] || skip "no pprobe binary at $PPROBE"
[ -x "$WORKLOADS/ptracer" ] || skip "no workload $WORKLOADS/ptracer"

N=25
mkdir -p "$T/tmp"
TMPDIR=$T/tmp "$SRCDIR/scripts/vmtest.sh" --build "$(dirname "$PPROBE")" \
	"$SRCDIR/tests/vm/trace_syscalls.sh" $N >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 77 ] && skip "$(grep -m1 'SKIP' "$T/out")"
check "guest checks passed (status $rc)" [ $rc -eq 0 ]
# The key results, so that a guest script that skipped its checks cannot pass.
check "the seed case: N+3 ptrace lines" grep -q "^ok: ptrace lines under ptracer/[0-9]* ($((N + 3)))\$" "$T/out"
check "the summary's count" grep -qxF "ok: the summary's ptrace calls and errors ($((N + 3)) 0)" "$T/out"
check "errno names" grep -q "^ok: openat of a missing file: -1 ENOENT" "$T/out"
check "nothing left in the harness's TMPDIR" [ -z "$(ls -A "$T/tmp")" ]
done_testing
