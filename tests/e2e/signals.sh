#!/usr/bin/env bash
# SIGINT/SIGTERM at every stage (issue 16): a second one ends pprobe at once
# even where its main thread cannot look (here: writing into a pipe that
# nobody reads), and on the way out it removes its temporary probes and
# temporary files and leaves no child; the first one only asks.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/bus/event_source/devices/uprobe ] || skip "this kernel has no uprobe PMU"
need_uprobe_events
[ -r /proc/self/syscall ] || skip "no /proc/PID/syscall to see where pprobe waits"
B=$WORKLOADS/probe_fork
trap 'kill $(jobs -p) 2>/dev/null; exec 3>&-; rm -rf "$T" "$T.cache"' EXIT
group_left() { grep -qE "^[pr][0-9]*:pprobe_$1/" $TR/uprobe_events; }
# the main thread of $1 is in write(2) (syscall 1) on fd 1
in_write() { read -r nr fd _ < "/proc/$1/syscall" 2>/dev/null && [ "$nr" = 1 ] && [ "$fd" = 0x1 ]; }
running() { pgrep -f "$1" >/dev/null; }

# pprobe's stdout is a FIFO already full (64 KiB written, nothing read): its
# first write of the stacks blocks for ever. The command (2 children, 1
# thread each) ran and exited; temporary probes are in uprobe_events.
mkfifo "$T/out"
exec 3<>"$T/out"
head -c 65536 /dev/zero >&3
"$PPROBE" record -g -e "uprobe:$B:work" -o - -- "$B" 2 1 10 >&3 2>"$T/err" &
pid=$!
check "stalled: pprobe waits in write(2) on its stdout" wait_for in_write $pid
check "stalled: its temporary probes are in uprobe_events" group_left $pid
kill -TERM $pid
sleep 0.5
check "stalled: the first SIGTERM only asks (pprobe still writing)" in_write $pid
start=$(date +%s%N)
kill -TERM $pid
reap $pid
st=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "stalled: the second SIGTERM ends it at once ($ms ms)" [ $ms -lt 3000 ]
check "stalled: it dies of SIGTERM (143), got $st" [ $st -eq 143 ]
check "stalled: it says so" grep -q 'SIGTERM again: stopping at once' "$T/err"
check "stalled: its temporary probes are removed" wait_for not group_left $pid
check "stalled: the command's exit was seen (status 7 said nowhere, no child left)" not pgrep -f "^$B 2 1 10"
exec 3>&-

# timeout(1) signals pprobe, then pprobe's whole process group: two
# SIGTERMs in a row are one request, the run ends and the file is written.
"$PPROBE" record -g -e "uprobe:$B:work" -o "$T/dbl.folded" -- "$B" 0 1 200000000 2>"$T/dbl.err" &
pid=$!
check "back to back: the command runs" wait_for running "^$B 0 1 200000000$"
kill -TERM $pid; kill -TERM $pid
# the run ends and what is queued (up to --max-queue) is unwound and
# written: a sanitized pprobe took 18 s for 154,000 stacks here
if [ -n "${PPROBE_SANITIZED:-}" ]; then
	for _ in $(seq 120); do alive $pid || break; sleep 0.5; done
fi
reap $pid
st=$?
check "back to back: the command's status, killed by SIGTERM (143), got $st" [ $st -eq 143 ]
# (a sanitized pprobe under load may unwind none of them within the stop's
# 0.5 s grace: then the file is written and every sample said left out)
if [ -n "${PPROBE_SANITIZED:-}" ] && [ "$(folded_sum "$T/dbl.folded" work)" -eq 0 ]; then
	check "back to back: the file is written, the samples said left out" \
		sh -c "[ -f '$T/dbl.folded' ] && grep -q 'samples queued at the stop left out' '$T/dbl.err'"
else
	check "back to back: the stacks are written" [ "$(folded_sum "$T/dbl.folded" work)" -gt 0 ]
fi
check "back to back: not ended at once" not grep -q 'again: stopping at once' "$T/dbl.err"
check "back to back: no child left" not pgrep -f "^$B 0 1 200000000$"

# trace -o FILE writes into a temporary renamed at the end: one SIGTERM
# ends it with the file whole (the temporary's removal when a second one
# ends pprobe at once: unit/test_sigguard).
"$PPROBE" trace -e "uprobe:$B:work" -o "$T/one.txt" -- "$B" 0 1 3000000 >/dev/null 2>"$T/one.err" &
pid=$!
check "trace: the command runs" wait_for running "^$B 0 1 3000000$"
kill -TERM $pid
reap $pid
st=$?
check "trace, one SIGTERM: ended by the signal (143), got $st" [ $st -eq 143 ]
check "trace, one SIGTERM: the file is written" grep -q 'work' "$T/one.txt"
check "trace, one SIGTERM: no temporary left" [ -z "$(ls "$T" | grep 'one.txt.tmp')" ]
check "trace, one SIGTERM: probes removed" not group_left $pid

check "trace: no child left" not pgrep -f "^$B 0 1 3000000$"

# A backlog: every prctl of a burst sampled with its stack (8 KB each),
# unwound slower than it arrives. A SIGINT ends the run and what is queued
# gets 0.5 s more, the rest is counted and said, not waited for (a burst of
# 1M uprobes once kept a SIGINT waiting 42.6 s).
"$PPROBE" record -g -e syscalls:sys_enter_prctl --max-queue 2G -o "$T/burst.folded" -- \
	"$WORKLOADS/wl_record" prctl 1000000 >/dev/null 2>"$T/burst.err" &
pid=$!
sleep 2.5
start=$(date +%s%N)
kill -INT $pid 2>/dev/null
wait $pid
st=$?
ms=$((($(date +%s%N) - start) / 1000000))
cat "$T/burst.err"
check "burst, SIGINT: pprobe ends within 4 s of it ($ms ms)" [ $ms -lt 4000 ]
check "burst, SIGINT: the command's status: 0 (it ended first) or 143 (pprobe's stop sent it SIGTERM), got $st" \
	[ $st -eq 0 -o $st -eq 143 ]
# every sample is either in the file or said left out (under a sanitizer the
# whole backlog may be: none unwound within the grace)
n=$(sed -n 's/.*: \([0-9]*\) samples of [0-9]* events counted.*/\1/p; s/.*: \([0-9]*\) samples (every event).*/\1/p' "$T/burst.err" | head -1)
left=$(sed -n 's/.*stopped by signal: \([0-9]*\) samples queued.*/\1/p' "$T/burst.err")
check "burst, SIGINT: the file is written, with every sample not left out ($(folded_sum "$T/burst.folded") = ${n:-?} - ${left:-0})" \
	[ -f "$T/burst.folded" -a -n "$n" -a "$(folded_sum "$T/burst.folded")" -eq $((n - ${left:-0})) ]
if grep -q "left out" "$T/burst.err"; then
	check "burst, SIGINT: the samples left out are said with the grace" \
		grep -qE "stopped by signal: [0-9]+ samples queued at the stop left out \(processed for 0.5 s after it\)" "$T/burst.err"
else
	echo "info: the burst was processed before the signal came"
fi

done_testing
