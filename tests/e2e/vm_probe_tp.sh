#!/usr/bin/env bash
# pprobe record -a -g and trace -g with tracepoints in the VM of
# scripts/vmtest.sh (Debian's stock kernel), over loopback TCP traffic of
# exactly N messages: exact event counts, kernel callchains symbolized from the
# guest's /proc/kallsyms (SYM+OFF checked against it), user stacks under them.
# The guest side is tests/vm/probe_tracepoints.sh. Skips (77) when no VM can run.
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
[ -x "$PPROBE" ] || skip "no pprobe binary at $PPROBE"
[ -x "$WORKLOADS/vmprobe_wl" ] || skip "no workload $WORKLOADS/vmprobe_wl"

N=200 SIZE=77
mkdir -p "$T/tmp"
TMPDIR=$T/tmp "$SRCDIR/scripts/vmtest.sh" --build "$(dirname "$PPROBE")" \
	"$SRCDIR/tests/vm/probe_tracepoints.sh" $N $SIZE >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 77 ] && skip "$(grep -m1 'SKIP' "$T/out")"
check "guest checks passed (status $rc)" [ $rc -eq 0 ]
# The key results, so that a guest script that skipped its checks cannot pass.
check "trace: $N data segments" grep -q "^ok: trace: tcp_probe data segments of $SIZE bytes to port [0-9]* ($N)\$" "$T/out"
check "record: tcp_probe samples = trace's events" grep -q "^ok: record: tcp_probe samples = trace's events ([0-9]*)\$" "$T/out"
check "record: $N sendto samples with their user stack" grep -qF "ok: record: sendto samples, user stack down to send() (vmprobe_wl;_start;__libc_start_main;__libc_start_call_main;main;send_messages;send_message;__libc_send $N)" "$T/out"
check "trace -g: kernel frames agree with kallsyms" grep -q "^ok: trace -g: [0-9]* distinct kernel frames, ADDR = kallsyms(SYM) + OFF\$" "$T/out"
check "stat: exact openat count" grep -qxF "ok: stat: openat calls (23)" "$T/out"
check "nothing left in the harness's TMPDIR" [ -z "$(ls -A "$T/tmp")" ]
echo "timing: $(sed -n 's/^vmtest: kernel .*, \(boot to init .*\)/\1/p' "$T/out")"
done_testing
