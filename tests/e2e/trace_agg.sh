#!/usr/bin/env bash
# pprobe trace's aggregations (--count, --sum, --stats, --hist, --lhist,
# --by, -I, --json): exact numbers on a workload of known writes from
# forked, exec'd and threaded tasks (tests/workloads/agg_wl.c), and the
# same maps as bpftrace 0.17 prints them for the same run, side by side
# (both system-wide, filtered to the workload's comm); the errors, and
# nothing left in tracefs after them.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS
EV=syscalls:sys_enter_write

# agg_wl 4 3: 8 tasks (the process, 4 children, 2 of them exec'd, 3
# threads), each writing 1, 2, 3, 64, 64, 100, 1000, 4096, 5000, 70000
# bytes: 80 writes, 642640 bytes.
cat >"$T/want.txt" <<'WANT'
@count[agg_wl]: 80
@hist_count[agg_wl]: 
[1]                    8 |@@@@@@@@@@@@@@@@@                                   |
[2, 4)                16 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |
[4, 8)                 0 |                                                    |
[8, 16)                0 |                                                    |
[16, 32)               0 |                                                    |
[32, 64)               0 |                                                    |
[64, 128)             24 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[128, 256)             0 |                                                    |
[256, 512)             0 |                                                    |
[512, 1K)              8 |@@@@@@@@@@@@@@@@@                                   |
[1K, 2K)               0 |                                                    |
[2K, 4K)               0 |                                                    |
[4K, 8K)              16 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |
[8K, 16K)              0 |                                                    |
[16K, 32K)             0 |                                                    |
[32K, 64K)             0 |                                                    |
[64K, 128K)            8 |@@@@@@@@@@@@@@@@@                                   |

@lhist_count[agg_wl]: 
[0, 1000)             48 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[1000, 2000)           8 |@@@@@@@@                                            |
[2000, 3000)           0 |                                                    |
[3000, 4000)           0 |                                                    |
[4000, 5000)           8 |@@@@@@@@                                            |
[5000, 6000)           8 |@@@@@@@@                                            |
[6000, 7000)           0 |                                                    |
[7000, 8000)           0 |                                                    |
[8000, 9000)           0 |                                                    |
[9000, 10000)          0 |                                                    |
[10000, ...)           8 |@@@@@@@@                                            |

@stats_count[agg_wl]: count 80, average 8033, total 642640

@sum_count[agg_wl]: 642640
WANT
AGGS=(--count --hist count --lhist count,0,10000,1000 --stats count --sum count)
FILTER='COMM == "agg_wl"'

# The same maps in bpftrace (named as pprobe names several maps; bpftrace
# prints them in name order, which is the order given here).
BT_PROG='tracepoint:syscalls:sys_enter_write /comm == "agg_wl"/ {
	@count[comm] = count(); @hist_count[comm] = hist(args->count);
	@lhist_count[comm] = lhist(args->count, 0, 10000, 1000);
	@stats_count[comm] = stats(args->count); @sum_count[comm] = sum(args->count); }'
BT_PID_PROG='tracepoint:syscalls:sys_enter_write /comm == "agg_wl"/ { @[comm, pid] = count(); }'

# 1. Every aggregation, with a kernel filter, system-wide: the exact
# numbers, and bpftrace's text of the same run, byte for byte.
bt_start "$T/bt1.txt" "$BT_PROG"
"$PPROBE" trace -a -e $EV --filter "$FILTER" --by comm "${AGGS[@]}" -- "$W/agg_wl" 4 3 >"$T/p1.txt" 2>"$T/p1.err"
check "trace exits 0 (status of agg_wl: all its tasks wrote)" [ $? -eq 0 ]
check "exact maps: 80 writes, log2 and linear buckets, stats, 642640 bytes" diff -u "$T/want.txt" "$T/p1.txt"
shown_on_failure "$T/p1.txt" "$T/p1.err"
if [ -n "$BT" ]; then
	bt_stop "$T/bt1.txt"
	shown_on_failure "$T/bt1.txt" "$T/bt1.txt.err"
	check "bpftrace on the same run: the same text, count, sum, stats, hist and lhist buckets" \
		diff -u "$T/bt1.txt.maps" "$T/p1.txt"
	echo "bpftrace vs pprobe: count $(grep -h '^@count' "$T/bt1.txt.maps" "$T/p1.txt" | tr '\n' ' ')"
else
	BT_SKIP=$BT_WHY
fi

# 2. Keyed by comm and pid: the process (its 3 threads' writes under its
# pid) 40, each child 10; as bpftrace counts them (equal counts are in key
# order in pprobe, in any order in bpftrace: compared sorted).
bt_start "$T/bt2.txt" "$BT_PID_PROG"
"$PPROBE" trace -a -e $EV --filter "$FILTER" --by comm,pid --count -- "$W/agg_wl" 4 3 >"$T/p2.txt" 2>"$T/p2.err"
check "--by comm,pid: five pids, 10 10 10 10 40, in that order" \
	[ "$(grep -oE '^@\[agg_wl, [0-9]+\]: [0-9]+$' "$T/p2.txt" | awk '{ printf "%s ", $NF }')" = "10 10 10 10 40 " ]
check "--by comm,pid: equal counts in pid order" \
	[ "$(grep ': 10$' "$T/p2.txt" | grep -oE ', [0-9]+' | tr -d ', ' | sort -n | tr '\n' ' ')" = \
	  "$(grep ': 10$' "$T/p2.txt" | grep -oE ', [0-9]+' | tr -d ', ' | tr '\n' ' ')" ]
if [ -n "$BT" ]; then
	bt_stop "$T/bt2.txt"
	check "bpftrace on the same run: the same pids and counts" diff -u <(sort "$T/bt2.txt.maps") <(sort "$T/p2.txt")
else
	BT_SKIP=$BT_WHY
fi

# 3. A numeric kernel filter with the aggregation: 4096, 5000 and 70000 of
# each task.
"$PPROBE" trace -a -e $EV --filter "count >= 4096 && $FILTER" --count -- "$W/agg_wl" 4 3 >"$T/p3.txt" 2>&1
check "--filter 'count >= 4096': unkeyed '@: 24'" [ "$(cat "$T/p3.txt")" = "@: 24" ]

# 4. --json: one document, typed keys, histograms' buckets with inclusive bounds.
"$PPROBE" trace --json -e $EV --by comm --count --hist count -- "$W/agg_wl" 4 3 >"$T/j.txt" 2>&1
check "--json: the document" [ "$(cat "$T/j.txt")" = '{"by":["comm"],"maps":[{"name":"@count","op":"count","entries":[{"key":["agg_wl"],"value":80}]},{"name":"@hist_count","op":"hist","field":"count","entries":[{"key":["agg_wl"],"value":[{"min":1,"max":1,"count":8},{"min":2,"max":3,"count":16},{"min":64,"max":127,"count":24},{"min":512,"max":1023,"count":8},{"min":4096,"max":8191,"count":16},{"min":65536,"max":131071,"count":8}]}]}]}' ]
shown_on_failure "$T/j.txt"
check "--json: valid JSON (jq)" jq -e '.maps[0].entries[0].value == 80' "$T/j.txt"

# 5. -I: the maps each interval under the time, then cleared: two runs of
# 10 writes 1.5 s apart land in different intervals, each 10.
"$PPROBE" trace -e $EV --filter "$FILTER" --by comm --count -I 1 -- \
	sh -c "'$W/agg_wl' 0 0; sleep 1.5; '$W/agg_wl' 0 0" >"$T/i.txt" 2>&1
shown_on_failure "$T/i.txt"
check "-I 1: a HH:MM:SS line each interval (2 or more)" [ "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$T/i.txt")" -ge 2 ]
check "-I 1: cleared each interval: two blocks of 10" [ "$(grep -c '^@\[agg_wl\]: 10$' "$T/i.txt")" -eq 2 ]
check "-I 1: nothing else" [ "$(grep -cvE '^([0-9]{2}:[0-9]{2}:[0-9]{2}|@\[agg_wl\]: 10)$' "$T/i.txt")" -eq 0 ]

# 6. Stacks as keys, folded: the threads' writes under thread_main, all
# 80 under task_writes; kernel stacks of the 3 execs of agg_wl.
"$PPROBE" trace -e $EV --by ustack --count -- "$W/agg_wl" 4 3 >"$T/u.txt" 2>&1
shown_on_failure "$T/u.txt"
check "--by ustack: 30 writes under thread_main;task_writes" \
	[ "$(grep 'thread_main;task_writes;' "$T/u.txt" | awk '{ n += $NF } END { print n + 0 }')" -eq 30 ]
check "--by ustack: 80 under task_writes, outermost first" \
	[ "$(grep -E '^@\[(_start|clone3?);.*task_writes;' "$T/u.txt" | awk '{ n += $NF } END { print n + 0 }')" -eq 80 ]
"$PPROBE" trace -e sched:sched_process_exec --by comm,kstack --count -- "$W/agg_wl" 4 3 >"$T/k.txt" 2>&1
shown_on_failure "$T/k.txt"
check "--by comm,kstack: 3 execs, kernel stacks through bprm_execve" \
	[ "$(grep -E '^@\[agg_wl, [^]]*;bprm_execve[];]' "$T/k.txt" | awk '{ n += $NF } END { print n + 0 }')" -eq 3 ]

# 7. Errors: one line, exit 2, nothing left behind.
"$PPROBE" trace -e $EV --by comm --hist bytes -- true >/dev/null 2>"$T/e1"
check "unknown field: exit 2" [ $? -eq 2 ]
check "unknown field: the event's fields named" \
	grep -q "^pprobe trace: --hist: $EV has no field 'bytes'; its fields: __syscall_nr fd buf count " "$T/e1"
"$PPROBE" trace -e sched:sched_process_exec --sum filename -- true >/dev/null 2>"$T/e2"
check "string field summed: exit 2" [ $? -eq 2 ]
check "string field summed: not a number" grep -q "field 'filename' is a string (__data_loc char\[\]), not a number" "$T/e2"
"$PPROBE" trace -e $EV --lhist count,100,10,5 -- true >/dev/null 2>"$T/e3"
check "bad --lhist: exit 2, agg_linear__check's words" \
	grep -q "^pprobe trace: --lhist 'count,100,10,5': a linear histogram needs min < max and a step above 0" "$T/e3"
"$PPROBE" trace -e $EV --by comm -- true >/dev/null 2>"$T/e4"
check "--by alone: exit 2" [ $? -eq 2 ]
"$PPROBE" trace -e $EV --by comm, --count -- true >/dev/null 2>"$T/e4b"
check "--by with an empty key: exit 2" [ $? -eq 2 ]
check "--by with an empty key: said" grep -q "^pprobe trace: --by 'comm,': an empty key" "$T/e4b"
# A uprobe (a temporary tracefs probe for the command's children, removed
# at exit): counted per task; a field it lacks is an error; nothing left.
if "$PPROBE" probe -l >/dev/null 2>&1 && TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts) && [ -w "$TR/uprobe_events" ]; then
	"$PPROBE" trace -e "uprobe:$W/agg_wl:task_writes" --by comm --count -- "$W/agg_wl" 4 3 >"$T/up.txt" 2>&1
	check "uprobe: task_writes 8 times" [ "$(cat "$T/up.txt")" = "@[agg_wl]: 8" ]
	"$PPROBE" trace -e "uprobe:$W/agg_wl:task_writes" --by nosuch --count -- "$W/agg_wl" 0 0 >/dev/null 2>"$T/e5"
	check "uprobe with a bad key: exit 2" [ $? -eq 2 ]
	check "uprobe with a bad key: said" grep -q "task_writes has no fields to read 'nosuch' from" "$T/e5"
	check "no pprobe probe left in tracefs" not grep -q pprobe "$TR/dynamic_events"
	shown_on_failure "$T/up.txt" "$T/e5"
fi
check "no pprobe instance left in tracefs" [ -z "$(ls /sys/kernel/tracing/instances 2>/dev/null | grep pprobe)" ]

[ -n "${BT_SKIP:-}" ] && [ "$FAILS" -eq 0 ] && skip "pprobe's own checks passed; no bpftrace comparison: $BT_SKIP"
done_testing
