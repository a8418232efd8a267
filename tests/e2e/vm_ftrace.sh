#!/usr/bin/env bash
# pprobe ftrace in the VM of scripts/vmtest.sh (Debian's 6.1 kernel has the
# function and function_graph tracers; this machine's kernel refuses them,
# tests/e2e/ftrace.sh checks that): functrace's case (-T '*sys_ptrace' --
# ptracer N: exactly N + 3 hits under ptracer's comm, --count too), -N,
# funcgraph's (-G do_sys_openat2 -- cat /proc/version: nested, with
# durations; -D), -p on a running process, and the global tracing state
# exactly as found after every run, SIGINT, SIGTERM, kill -9 and a closed
# pipe; kernel probe globs (one kprobe per function, exact counts, capped).
# The guest side is tests/vm/ftrace.sh. Skips (77) when no VM can run.
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
[ -x "$PPROBE" ] || skip "no pprobe binary at $PPROBE"
[ -x "$WORKLOADS/ptracer" ] || skip "no workload $WORKLOADS/ptracer"

N=50 M=3
mkdir -p "$T/tmp"
# One CPU: under TCG, ftrace's live patching of the kernel's code on two
# vCPUs crashed the guest (a stale int3 -> double fault) or locked it up.
TMPDIR=$T/tmp "$SRCDIR/scripts/vmtest.sh" --smp 1 --timeout 240 --build "$(dirname "$PPROBE")" \
	"$SRCDIR/tests/vm/ftrace.sh" $N >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 77 ] && skip "$(grep -m1 'SKIP' "$T/out")"
check "guest checks passed (status $rc)" [ $rc -eq 0 ]
# The key results, so that a guest script that skipped its checks cannot pass.
check "functrace: N + 3 hits under ptracer" \
	grep -qx "ok: __x64_sys_ptrace hits under ptracer-[0-9]* ($((N + 3)))" "$T/out"
check "--count: N + 3" grep -qxF "ok: --count: __x64_sys_ptrace ($((N + 3)))" "$T/out"
check "-N" grep -qxF "ok: -N: do_sys_openat2 left out (0)" "$T/out"
check "function_graph: nested with durations" \
	grep -qxF "ok: a nested callee with its duration: FUNC();" "$T/out"
check "-D 2" grep -qxF "ok: -D 2: no grandchildren (getname_flags, path_openat)" "$T/out"
check "-p: N + M opens" grep -qxF "ok: -p: do_sys_openat2 of the workload ($((N + M)))" "$T/out"
for e in "SIGINT of ftrace -a -G" "SIGTERM of ftrace -a -T vfs_read" \
	"SIGKILL of ftrace -a -G" "SIGKILL of ftrace -a -T vfs_read" "a closed output pipe"; do
	check "$e: state as found" grep -qxF "ok: $e: tracing state as found" "$T/out"
done
check "kprobe glob: N + 3" grep -qxF "ok: kprobe glob: kprobe:__x64_sys_ptrace ($((N + 3)))" "$T/out"
check "kretprobe glob -a: N + 3" \
	grep -qxF "ok: kretprobe glob -a (the kprobe PMU): kretprobe:__x64_sys_ptrace ($((N + 3)))" "$T/out"
check "no 'FAIL' in the guest" not grep -q '^FAIL' "$T/out"
check "nothing left in the harness's TMPDIR" [ -z "$(ls -A "$T/tmp")" ]
echo "timing: $(sed -n 's/^vmtest: kernel .*, \(boot to init .*\)/\1/p' "$T/out")"
done_testing
