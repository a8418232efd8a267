#!/usr/bin/env bash
# Every error: a clear message, the right status, and nothing left behind.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS
cd "$T"

expect() {	# expect DESC STATUS REGEX -- pprobe args...   (AS="setpriv ..." runs it as another user)
	local desc=$1 status=$2 re=$3; shift 4
	${AS:-} "$PPROBE" "$@" >"$T/out" 2>"$T/err"
	local st=$?
	if [ $st -ne "$status" ]; then fail "$desc: status $st, expected $status ($(head -c 300 "$T/err"))"; return; fi
	if ! grep -Eq "$re" "$T/err"; then fail "$desc: message '$(head -c 300 "$T/err")' does not match /$re/"; return; fi
	pass "$desc"
}

expect "unknown event" 2 "unknown event 'cpu-clok'" -- record -e cpu-clok -o o.folded -- true
expect "command not found" 127 "cannot run 'no-such-cmd-xyz'" -- record -o o.folded -- no-such-cmd-xyz
expect "no such pid" 1 "no such process: 999999" -- record -p 999999 -o o.folded
expect "no such tid" 1 "no such thread: 999999" -- record -t 999999 -o o.folded
expect "bad -m" 2 "power of two" -- record -m 3 -o o.folded -- true
expect "bad -F" 2 "bad frequency" -- record -F abc -o o.folded -- true
expect "-F and -c" 2 "exclude each other" -- record -F 99 -c 5 -o o.folded -- true
expect "nothing to record" 2 "nothing to record" -- record -o o.folded
expect "bad cpu" 2 "not online" -- record -C 999 -o o.folded -- true
expect "several events to stdout" 2 "one file each" -- record -e cpu-clock,task-clock -o - -- true
expect "unwritable output" 1 "cannot write /nonexistent-dir/o.folded" -- record -o /nonexistent-dir/o.folded -- true
expect "unknown tracepoint" 2 "unknown tracepoint 'sched:nosuch'" -- record -e sched:nosuch -o o.folded -- true
# This machine (and CI's) has no hardware PMU; where one exists, cycles opens.
if [ -z "$(ls /sys/bus/event_source/devices/ | grep -E '^(cpu|cpu_core|armv8.*)$')" ]; then
	expect "hardware event without a PMU" 1 "no hardware PMU.*cpu-clock" -- record -e cycles -o o.folded -- true
fi
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
	AS="setpriv --reuid 65534 --regid 65534 --clear-groups" expect "no permission (-a as nobody)" 1 "no permission.*perf_event_paranoid.*CAP_PERFMON" -- \
		record -a -o /tmp/pprobe-nobody.folded -- true
fi
# Too many open files: the soft limit is raised to the hard one by itself...
prlimit --nofile=8:4096 "$PPROBE" record -q -a -e cpu-clock,task-clock,cs,faults -o "$T/nofile.folded" -- true
st=$?
check "RLIMIT_NOFILE soft 8: raised, works" [ $st -eq 0 -a -f "$T/nofile.cpu-clock.folded" -a -f "$T/nofile.faults.folded" ]
rm -f "$T"/nofile.*.folded
# ... and a hard limit too low is explained, with a limit that would do (14:
# stdio, the signal guard's two, the signalfd, the child's pipes, a few events).
AS="prlimit --nofile=14:14" expect "too many open files" 1 "too many open files.*ulimit -n 4096" -- \
	record -a -e cpu-clock,task-clock,cs,faults -o o.folded -- true
check "no output file after the errors" [ ! -e o.folded ]
check "no temporary files" [ -z "$(ls -A "$T" | grep -v '^out$\|^err$')" ]
# tracefs not mounted: pprobe mounts it (in a private mount namespace, so the
# rest of the machine is untouched).
if command -v unshare >/dev/null; then
	out=$(unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null;
		'$PPROBE' record -q -e syscalls:sys_enter_prctl -o - -- '$WORKLOADS/wl_record' prctl 4 &&
		grep -c ' /sys/kernel/tracing tracefs ' /proc/self/mounts")
	check "tracefs unmounted: mounted by pprobe, 4 samples" [ "$(echo "$out" | awk 'NR == 1 { print $NF } NR == 2 { print }' | tr '\n' ' ')" = "4 1 " ]
fi
done_testing
