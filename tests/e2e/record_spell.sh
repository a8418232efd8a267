#!/bin/bash
# pprobe record with perf's spellings: -F max (kernel.perf_event_max_sample_rate,
# perf's "info:" line) and --max-stack N (at most N frames a stack, with
# frame-pointer and DWARF stacks, on a workload whose stacks are deeper).
. "$(dirname "$0")/lib.sh"
need_root
WL=$WORKLOADS/wl_record
MAXRATE=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
depth() { awk '{ n = split($1, a, ";"); if (n - 1 > m) m = n - 1 } END { print m + 0 }' "$1"; }

"$PPROBE" record -F max -o "$T/max.folded" -- "$WL" hot 0.3 > /dev/null 2> "$T/max.err"
check "-F max: exit 0" [ $? -eq 0 ]
check "-F max: perf's line with the sysctl's rate ($MAXRATE)" \
	grep -qx "info: Using a maximum frequency rate of $MAXRATE Hz" "$T/max.err"
check "-F max: the event sampled at that rate" grep -q "cpu-clock: [0-9]* samples ($MAXRATE Hz)" "$T/max.err"
check "-F max: samples taken" [ "$(folded_sum "$T/max.folded")" -gt 0 ]
if command -v perf > /dev/null && perf record -F max -o "$T/perf.data" true 2> "$T/perf.err" > /dev/null; then
	check "-F max: the same line as perf's" \
		[ "$(grep '^info:' "$T/perf.err")" = "$(grep '^info:' "$T/max.err")" ]
fi
"$PPROBE" record -F maxx -- true 2> "$T/bad"
rc=$?
check "-F maxx: exit 2, one line (status)" [ $rc -eq 2 ]
check "-F maxx: exit 2, one line" [ "$(wc -l < "$T/bad")" -eq 1 ]

for cg in "--call-graph fp" "-g"; do
	"$PPROBE" record -q $cg -o "$T/full.folded" -- "$WL" hot 0.3 > /dev/null
	check "$cg: without --max-stack, stacks deeper than 3 (main;run_hot;hot_one and above)" \
		[ "$(depth "$T/full.folded")" -gt 3 ]
	"$PPROBE" record -q $cg --max-stack 3 -o "$T/ms.folded" -- "$WL" hot 0.3 > /dev/null
	check "$cg --max-stack 3: exit 0" [ $? -eq 0 ]
	check "$cg --max-stack 3: no stack deeper than 3 frames below comm" [ "$(depth "$T/ms.folded")" -le 3 ]
	check "$cg --max-stack 3: the leaves kept (hot_three most)" \
		[ "$(folded_sum "$T/ms.folded" ';hot_three ')" -gt "$(folded_sum "$T/ms.folded" ';hot_one ')" ]
done
# --filter: the kernel's tracepoint filter for the preceding -e, as perf record
if [ -e /sys/kernel/tracing/events/syscalls/sys_enter_write ] || [ -e /sys/kernel/debug/tracing/events/syscalls/sys_enter_write ] || "$PPROBE" list 'syscalls:sys_enter_write' 2>/dev/null | grep -q sys_enter_write; then
	"$PPROBE" record -q -e syscalls:sys_enter_write --filter 'count == 1' -o "$T/w1.folded" -- "$WL" syscalls 40 > /dev/null
	check "--filter 'count == 1': the 40 one-byte writes of do_writes, every one" \
		[ "$(folded_sum "$T/w1.folded")" = 40 ]
	"$PPROBE" record -q -e syscalls:sys_enter_write --filter 'count == 2' -o "$T/w2.folded" -- "$WL" syscalls 40 > /dev/null
	check "--filter 'count == 2': none of them" [ "$(folded_sum "$T/w2.folded")" = 0 ]
	"$PPROBE" record -q -e syscalls:sys_enter_write --filter 'cnt == 1' -o "$T/w3.folded" -- true 2> "$T/f3"
	rc=$?
	check "--filter naming no field: exit 2" [ $rc -eq 2 ]
	check "--filter naming no field: the fields said" grep -q "no such field 'cnt'" "$T/f3"
	check "--filter naming no field: no output written" [ ! -e "$T/w3.folded" ]
	"$PPROBE" record -q -e cpu-clock --filter 'x == 1' -- true 2> "$T/f4"
	rc=$?
	check "--filter after a non-tracepoint: exit 2" [ $rc -eq 2 ]
	check "--filter after a non-tracepoint: perf's words" grep -q -- "--filter option should follow a -e tracepoint" "$T/f4"
	"$PPROBE" record -q -e syscalls:sys_enter_write --filter 'count == ' -- true 2> "$T/f5"
	rc=$?
	check "--filter the kernel refuses: exit 2, the kernel's error_log" [ $rc -eq 2 ]
	check "--filter the kernel refuses: its words" grep -q "event filter parse error" "$T/f5"
fi

"$PPROBE" record --max-stack 0 -- true 2> "$T/bad2"
check "--max-stack 0: exit 2" [ $? -eq 2 ]
done_testing
