#!/usr/bin/env bash
# Kernel tracefs probes with arguments in the VM of scripts/vmtest.sh (Debian's
# stock kernel; no kernel DWARF there, so raw fetch-args: %REG, +OFF(...),
# $argN, $retval): pprobe --add, -l, -d; trace prints the exact paths opened
# and return values; stat counts; trace --filter on a string argument; a
# refused probe leaves nothing; temporary probes of -e 'SPEC ARG...' go at
# exit and SIGINT, and are swept after a kill -9. kprobe_events is empty at
# the end. The guest side is tests/vm/probe_add.sh. Skips (77) when no VM can run.
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
[ -x "$PPROBE" ] || skip "no pprobe binary at $PPROBE"
[ -x "$WORKLOADS/vmprobe_wl" ] || skip "no workload $WORKLOADS/vmprobe_wl"

N=3 M=2
mkdir -p "$T/tmp"
TMPDIR=$T/tmp "$SRCDIR/scripts/vmtest.sh" --build "$(dirname "$PPROBE")" \
	"$SRCDIR/tests/vm/probe_add.sh" $N $M >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 77 ] && skip "$(grep -m1 'SKIP' "$T/out")"
check "guest checks passed (status $rc)" [ $rc -eq 0 ]
# The key results, so that a guest script that skipped its checks cannot pass.
check "-l: four probes" grep -qxF "ok: -l: four probes (4)" "$T/out"
check "trace: the paths" grep -qxF "ok: trace: path=\"/tmp/probe_add/target\" ($N)" "$T/out"
check "trace: the missing paths" grep -qxF "ok: trace: path=\"/tmp/probe_add/target.missing\" ($M)" "$T/out"
check "trace: \$retval -2" grep -qxF "ok: trace: \$retval:s32 = -2 (ENOENT) ($M)" "$T/out"
check "trace --filter on the path" grep -qF "ok: trace -a --filter 'path == \"/tmp/probe_add/target\"' (20)" "$T/out"
check "record -g: exact stacks" grep -qxF "ok: record -g: 20 under open_once, syscall entry .. do_sys_openat2" "$T/out"
check "-d removed the four" grep -qxF "ok: -d: removed (4)" "$T/out"
check "temporary probe values" grep -qxF "ok: temporary: r=-2 ($M)" "$T/out"
check "stale temporary probe swept" grep -qxF "ok: the next pprobe (-l) swept it ()" "$T/out"
check "kprobe_events empty at the end" grep -qxF "ok: kprobe_events empty ()" "$T/out"
check "nothing left in the harness's TMPDIR" [ -z "$(ls -A "$T/tmp")" ]
echo "timing: $(sed -n 's/^vmtest: kernel .*, \(boot to init .*\)/\1/p' "$T/out")"
done_testing
