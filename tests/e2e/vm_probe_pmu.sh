#!/usr/bin/env bash
# Ephemeral kernel probes through the kprobe PMU, in the VM of scripts/vmtest.sh
# (Debian's stock kernel; this machine has no kprobes):
#   stat -e kprobe:FUNC / probe:FUNC / kretprobe:FUNC / probe:FUNC%return /
#   kprobe:FUNC+OFF count exactly the opens of a workload (command and -p),
#   trace -e kprobe:FUNC prints the symbol's kallsyms address,
#   record -e probe:tcp_sendmsg -g -a over K loopback sends gives K samples in
#   one stack from the user's send() through the syscall entry to tcp_sendmsg,
#   a forking shell loop runs as without pprobe, with kprobe and kretprobe
#   counting what the open syscall tracepoints count (issue 10), as do a
#   threaded command and a -p process that forks after the attach (exit 7),
#   and no kprobe stays registered, even after kill -9 of pprobe.
# The guest side is tests/vm/probe_pmu.sh. On this machine (no kprobe PMU):
# the error names the matching tracepoints. Skips (77) when no VM can run.
. "$(dirname "$0")/lib.sh"

# The kprobe-less kernel: a clear error and the tracepoints near the function.
if [ ! -e /sys/bus/event_source/devices/kprobe ] && [ "$(id -u)" -eq 0 ]; then
	"$PPROBE" stat -e probe:tcp_sendmsg -- true >"$T/nokp" 2>&1
	rc=$?
	cat "$T/nokp"
	check "no kprobes here: stat -e probe:tcp_sendmsg fails (status $rc)" [ $rc -ne 0 ]
	check "no kprobes here: the error says so" grep -q "this kernel has no kprobes" "$T/nokp"
	if [ -d /sys/kernel/tracing/events/tcp/tcp_sendmsg_locked ]; then
		check "no kprobes here: the error names tcp:tcp_sendmsg_locked" grep -q "tcp:tcp_sendmsg_locked" "$T/nokp"
	fi
fi

command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
[ -x "$PPROBE" ] || skip "no pprobe binary at $PPROBE"
[ -x "$WORKLOADS/vmprobe_wl" ] || skip "no workload $WORKLOADS/vmprobe_wl"

N=100 M=7 K=50 SIZE=77
mkdir -p "$T/tmp"
TMPDIR=$T/tmp "$SRCDIR/scripts/vmtest.sh" --build "$(dirname "$PPROBE")" \
	"$SRCDIR/tests/vm/probe_pmu.sh" $N $M $K $SIZE >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 77 ] && skip "$(grep -m1 'SKIP' "$T/out")"
check "guest checks passed (status $rc)" [ $rc -eq 0 ]
# The key results, so that a guest script that skipped its checks cannot pass.
for e in kprobe:do_sys_openat2 probe:do_sys_openat2 kretprobe:do_sys_openat2 'probe:do_sys_openat2%return'; do
	check "stat $e: $((N + M))" grep -qxF "ok: stat $e ($((N + M)))" "$T/out"
done
check "stat kprobe:do_sys_openat2+OFF: $((N + M))" grep -qx "ok: stat kprobe:do_sys_openat2+[0-9]* ($((N + M)))" "$T/out"
check "stat probe:do_sys_openat2+OFF: $((N + M))" grep -qx "ok: stat probe:do_sys_openat2+[0-9]* ($((N + M)))" "$T/out"
check "stat kprobe:0xADDR: $((N + M))" grep -qx "ok: stat kprobe:0xffffffff[0-9a-f]* ($((N + M)))" "$T/out"
check "stat -p: $((N + M))" grep -qx "ok: stat -p [0-9]* -I 100 kretprobe:do_sys_openat2 (intervals summed) ($((N + M)))" "$T/out"
check "trace: the kallsyms address" grep -qx "ok: trace: kprobe hits at do_sys_openat2 = 0xffffffff[0-9a-f]* (5)" "$T/out"
check "record -g kprobe: exact stacks under open_once" grep -qxF "ok: record -g kprobe: $N under open_once, syscall entry .. do_sys_openat2" "$T/out"
check "record -g kretprobe: exact stacks under open_missing" grep -qxF "ok: record -g kretprobe: $M under open_missing" "$T/out"
check "record: $K samples" grep -qxF "ok: record: samples ($K)" "$T/out"
check "record: the stack" grep -qxF "ok: record: the stack is send() -> syscall entry -> __sys_sendto -> ... -> tcp_sendmsg" "$T/out"
check "nothing registered after kill -9" grep -qxF "ok: no kprobe left after kill -9 ()" "$T/out"
# issue 10: kernel probes on a command that forks and execs
check "forking loop: stat exits 0, the loop ran" grep -qxF "ok: stat: the loop ran: 3 /proc/version (3)" "$T/out"
check "forking loop: stat kprobe = the open syscalls" grep -qx "ok: stat loop kprobe:do_sys_openat2 = open syscalls ([0-9]*)" "$T/out"
check "forking loop: stat kretprobe = the open syscalls" grep -qx "ok: stat loop kretprobe:do_sys_openat2 = open syscalls ([0-9]*)" "$T/out"
check "forking loop: trace kretprobe = the open syscalls" grep -qx "ok: trace loop kretprobe = open syscalls ([0-9]*)" "$T/out"
check "forking loop: record keeps the command's status" grep -qxF "ok: record on the loop: the command's status (7)" "$T/out"
# threads, and -p on a process that forks after the attach
check "threads: stat keeps the workload's status" grep -qxF "ok: stat on threads: the workload's status (7)" "$T/out"
check "threads: stat kprobe = the open syscalls" grep -qx "ok: stat threads kprobe:do_sys_openat2 = open syscalls ([0-9]*)" "$T/out"
check "threads: trace keeps the workload's status" grep -qxF "ok: trace on threads: the workload's status (7)" "$T/out"
check "threads: trace sees every thread" grep -qx "ok: trace threads: tids with [0-9]* or more kretprobe hits (4)" "$T/out"
check "stat -p, then forks: the forks succeed" grep -qxF "ok: fork workload under stat -p: its status (every fork and child succeeded) (7)" "$T/out"
check "stat -p, then forks: kprobe = the open syscalls" grep -qx "ok: stat -p kprobe:do_sys_openat2 on the forking process = open syscalls ([0-9]*)" "$T/out"
check "stat -p, then forks: nothing left in kprobe_events" grep -qxF "ok: no temporary probe left after stat -p ()" "$T/out"
check "nothing left in the harness's TMPDIR" [ -z "$(ls -A "$T/tmp")" ]
echo "timing: $(sed -n 's/^vmtest: kernel .*, \(boot to init .*\)/\1/p' "$T/out")"
done_testing
