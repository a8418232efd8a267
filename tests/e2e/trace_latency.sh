#!/usr/bin/env bash
# pprobe trace --latency: the classic latency tools as one-liners on a
# workload of sleeps of known lengths from forked, exec'd and threaded
# tasks (tests/workloads/lat_wl.c): syscall latency (sys_enter/sys_exit of
# clock_nanosleep) and funclatency (a uprobe and its uretprobe) in exact
# log2 buckets, each beside bpftrace 0.17's @start[tid] program on the
# same run; run-queue latency (sched_wakeup pid -> sched_switch next_pid)
# and off-CPU time (sched_switch prev_pid -> next_pid), whose timings the
# kernel decides: the pairing, the counts and the sleeps' lower bounds;
# --slowest N with stacks; the errors, and nothing left in tracefs.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS
F='comm == "lat_wl"'
# The workload at a real-time priority: its wakeups are not late behind a
# build on the other cores, and its sleeps stay in their buckets.
WL=(chrt -f 10 "$W/lat_wl" 2 2)
SYS=(-e syscalls:sys_enter_clock_nanosleep --filter "$F" -e syscalls:sys_exit_clock_nanosleep --filter "$F")

# lat_wl 2 2: 5 tasks (the process, 2 children, one exec'd, 2 threads),
# each sleeping 1.1, 4.5 and 17 ms: 5 durations in each of [1K, 2K),
# [4K, 8K) and [16K, 32K) microseconds.
cat >"$T/want.txt" <<'WANT'
@[lat_wl]: 
[1K, 2K)               5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2K, 4K)               0 |                                                    |
[4K, 8K)               5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8K, 16K)              0 |                                                    |
[16K, 32K)             5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

WANT
# bpftrace's run of the same events, stopped, its histogram against
# pprobe's ($1: its output file, $2: pprobe's, $3: what); bpftrace ends
# with one more blank line, its emptied @s (diff -B)
bt_compare() {
	if [ -z "$BT" ]; then
		BT_SKIP=$BT_WHY
		return
	fi
	bt_stop "$1"
	shown_on_failure "$1" "$1.err"
	check "bpftrace on the same run ($3): the same histogram, byte for byte" diff -uB "$1.maps" "$2"
	echo "bpftrace vs pprobe ($3, us): $(grep -hE '^\[' "$1.maps" | awk '$2 { printf "%s%s=%s ", $1, $2, $3 }') | $(grep -hE '^\[' "$2" | awk '$2 { printf "%s%s=%s ", $1, $2, $3 }')"
}
BT_SYS='tracepoint:syscalls:sys_enter_clock_nanosleep /comm == "lat_wl"/ { @s[tid] = nsecs; }
tracepoint:syscalls:sys_exit_clock_nanosleep /@s[tid]/ { @[comm] = hist((nsecs - @s[tid]) / 1000); delete(@s[tid]); }'

# 1. Syscall latency, system-wide, kernel-filtered, by comm: exact
# buckets; bpftrace's text of the same run, byte for byte.
bt_start "$T/bt1.txt" "$BT_SYS"
"$PPROBE" trace -a --latency "${SYS[@]}" --by comm -- "${WL[@]}" >"$T/p1.txt" 2>"$T/p1.err"
check "syscall latency: exit 0 (lat_wl slept as asked)" [ $? -eq 0 ]
check "syscall latency: 5 sleeps in each of [1K, 2K), [4K, 8K), [16K, 32K) us" diff -u "$T/want.txt" "$T/p1.txt"
check "syscall latency: 15 pairs, nothing left out, said on stderr" \
	[ "$(cat "$T/p1.err")" = "pprobe trace: --latency: 15 pairs" ]
shown_on_failure "$T/p1.txt" "$T/p1.err"
bt_compare "$T/bt1.txt" "$T/p1.txt" "syscall latency"

# 2. --unit ms, --stats and --lhist of the same sleeps: at least 1, 4
# and 17 ms each (the unit's integer part, as bpftrace's / 1000000; a
# sleep never ends early), in 10 ms buckets: [0, 10) 10, [10, 20) 5.
"$PPROBE" trace -a --latency "${SYS[@]}" --unit ms --stats lat --lhist lat,0,30,10 -- "${WL[@]}" >"$T/p2.txt" 2>&1
shown_on_failure "$T/p2.txt"
check "--unit ms --stats: count 15, total at least 110 (5 * (1 + 4 + 17))" \
	grep -qE '^@stats_lat: count 15, average [0-9]+, total (1[1-9][0-9])$' "$T/p2.txt"
check "--lhist lat,0,30,10: [0, 10) 10, [10, 20) 5" \
	[ "$(grep -E '^\[' "$T/p2.txt" | awk '{ print $1 $2, $3 }' | tr '\n' ' ')" = "[0,10) 10 [10,20) 5 " ]

# 3. funclatency: a uprobe and its uretprobe on sleep_us(), in the
# command's tasks (forked, exec'd, threads); bpftrace's of the same run.
need_uprobe_events
BT_FN="uprobe:$W/lat_wl:sleep_us { @s[tid] = nsecs; }
uretprobe:$W/lat_wl:sleep_us /@s[tid]/ { @[comm] = hist((nsecs - @s[tid]) / 1000); delete(@s[tid]); }"
bt_start "$T/bt3.txt" "$BT_FN"
"$PPROBE" trace --latency -e "uprobe:$W/lat_wl:sleep_us" -e "uretprobe:$W/lat_wl:sleep_us" --by comm -- \
	"${WL[@]}" >"$T/p3.txt" 2>"$T/p3.err"
check "funclatency: exit 0" [ $? -eq 0 ]
check "funclatency: sleep_us's 15 calls in the same buckets" diff -u "$T/want.txt" "$T/p3.txt"
check "funclatency: 15 pairs" [ "$(cat "$T/p3.err")" = "pprobe trace: --latency: 15 pairs" ]
shown_on_failure "$T/p3.txt" "$T/p3.err"
bt_compare "$T/bt3.txt" "$T/p3.txt" "funclatency"
check "funclatency: no pprobe probe left in tracefs" not grep -q pprobe "$TR/dynamic_events"

# 4. --slowest 5 -g: the 5 longest pairs are the 17 ms sleeps, longest
# first, each with the user stack of its start (sleep_us under task_sleeps).
"$PPROBE" trace -a --latency "${SYS[@]}" --slowest 5 -g -- "${WL[@]}" >"$T/p4.txt" 2>&1
shown_on_failure "$T/p4.txt"
grep -E '^ +[0-9]+ us ' "$T/p4.txt" | awk '{ print $1 }' >"$T/p4.dur"
check "--slowest 5: five pairs" [ "$(wc -l <"$T/p4.dur")" -eq 5 ]
check "--slowest 5: the 17 ms sleeps (17000 to 32767 us)" \
	[ "$(awk '$1 >= 17000 && $1 < 32768' "$T/p4.dur" | wc -l)" -eq 5 ]
check "--slowest 5: longest first" diff -u <(sort -rn "$T/p4.dur") "$T/p4.dur"
check "--slowest 5 -g: each with its start's user stack, through task_sleeps;sleep_us" \
	[ "$(grep -c '^    ustack: .*task_sleeps;sleep_us;' "$T/p4.txt")" -eq 5 ]
check "--slowest 5 -g: each with its start's kernel stack line" [ "$(grep -c '^    kstack: ' "$T/p4.txt")" -eq 5 ]
"$PPROBE" trace -a --latency "${SYS[@]}" --slowest 2 --json -- "${WL[@]}" >"$T/p4j.txt" 2>"$T/p4j.err"
shown_on_failure "$T/p4j.txt"
check "--slowest --json: the map's document, then the slowest's: 2, >= 17000 us" \
	jq -se '.[0].maps[0].entries[0].value | length == 3' "$T/p4j.txt" &&
	check "--slowest --json: two >= 17000 us" \
		jq -se '.[1].unit == "us" and (.[1].slowest | length == 2 and all(.duration >= 17000))' "$T/p4j.txt"

# 5. Run-queue latency: sched_wakeup's pid (the woken) to the
# sched_switch onto it (next_pid). Each of the 15 sleeps ends in a
# wakeup; how long it waits for a CPU is the kernel's, and so is which
# events perf delivers: on this kernel perf's sched_switch filtered by
# next_comm counts 14 to 23 of the workload's 23 switch-ins from one run
# to the next (perf stat too; bpftrace sees all 23). So: pairs made, each
# counted once, none absurd. Keyed by the woken's comm, sched_wakeup's
# field (--by comm: the waker's).
"$PPROBE" trace -a --latency -e sched:sched_wakeup --filter "$F" -e sched:sched_switch \
	--filter 'next_comm == "lat_wl"' --pair pid=next_pid --by args.comm --count --max lat -- \
	"${WL[@]}" >"$T/p5.txt" 2>"$T/p5.err"
check "runqlat: exit 0" [ $? -eq 0 ]
shown_on_failure "$T/p5.txt" "$T/p5.err"
check "runqlat: wakeups of lat_wl paired, keyed by the woken's comm alone" \
	[ "$(sed -n 's/^@count\[lat_wl\]: //p' "$T/p5.txt")" -ge 1 ] && [ "$(grep -c '^@count' "$T/p5.txt")" -eq 1 ]
check "runqlat: the pairs said on stderr are the count" \
	[ "$(sed -n 's/^pprobe trace: --latency: \([0-9]*\) pairs.*/\1/p' "$T/p5.err")" = \
	  "$(sed -n 's/^@count\[lat_wl\]: //p' "$T/p5.txt")" ]
check "runqlat: the longest wait below a second" [ "$(sed -n 's/^@max_lat\[lat_wl\]: //p' "$T/p5.txt")" -lt 1000000 ]

# 6. Off-CPU time: the same event as start and end, sched_switch's
# prev_pid (the task leaving the CPU) to next_pid (its return). Each
# sleep is one off-CPU stretch at least as long, from do_nanosleep (the
# start's kernel stack); which of them the kernel delivers both ends of
# is its own (above).
"$PPROBE" trace -a --latency -e sched:sched_switch --filter 'prev_comm == "lat_wl"' -e sched:sched_switch \
	--filter 'next_comm == "lat_wl"' --pair prev_pid=next_pid --slowest 1000 -s -- \
	"${WL[@]}" >"$T/p6.txt" 2>"$T/p6.err"
check "off-CPU: exit 0" [ $? -eq 0 ]
shown_on_failure "$T/p6.txt" "$T/p6.err"
grep -A1 -E '^ +[0-9]+ us ' "$T/p6.txt" | grep -B1 'kstack: .*do_nanosleep' | grep -E '^ +[0-9]+ us ' |
	awk '{ print $1 }' >"$T/p6.sleeps"
check "off-CPU: sleeps paired, each from do_nanosleep, at most the 15" \
	[ "$(wc -l <"$T/p6.sleeps")" -ge 1 ] && [ "$(wc -l <"$T/p6.sleeps")" -le 15 ]
# (the timer is armed before the task leaves the CPU, and a real-time
# task's timer has no slack: 5% below the shortest sleep allowed)
check "off-CPU: each sleep's stretch at least the shortest sleep, 1.1 ms (-5%)" \
	[ "$(awk '$1 < 1045' "$T/p6.sleeps" | wc -l)" -eq 0 ]
check "off-CPU: at most 5 stretches of the 17 ms sleeps" [ "$(awk '$1 >= 16150' "$T/p6.sleeps" | wc -l)" -le 5 ]
check "off-CPU: the slowest (all pairs) as many as the histogram's, and as said on stderr" \
	[ "$(grep -cE '^ +[0-9]+ us ' "$T/p6.txt")" -eq "$(grep -E '^\[' "$T/p6.txt" | awk '{ n += $3 } END { print n }')" ] &&
	[ "$(grep -cE '^ +[0-9]+ us ' "$T/p6.txt")" -eq "$(sed -n 's/^pprobe trace: --latency: \([0-9]*\) pairs.*/\1/p' "$T/p6.err")" ]

# 7. Errors: one line, exit 2, nothing left behind.
"$PPROBE" trace --latency -e syscalls:sys_enter_clock_nanosleep -- true >/dev/null 2>"$T/e1"
check "--latency with one event: exit 2" [ $? -eq 2 ]
check "--latency with one event: said" \
	grep -q '^pprobe trace: --latency pairs a start and an end event: two -e, not 1' "$T/e1"
"$PPROBE" trace --latency -e 'syscalls:sys_enter_clock_*' -e syscalls:sys_exit_clock_nanosleep -- true \
	>/dev/null 2>"$T/e2"
check "--latency with a glob of several events: exit 2" [ $? -eq 2 ]
check "--latency with a glob: said" grep -qE '^pprobe trace: --latency pairs a start and an end event; the two -e name [3-9] events' "$T/e2"
"$PPROBE" trace --latency -e sched:sched_wakeup -e sched:sched_switch --pair pid=nosuch -- true >/dev/null 2>"$T/e3"
check "unknown --pair field: exit 2" [ $? -eq 2 ]
check "unknown --pair field: the end event's fields named" \
	grep -q "^pprobe trace: --pair: the end event sched:sched_switch has no field 'nosuch'; its fields: prev_comm" "$T/e3"
"$PPROBE" trace --latency -e "uprobe:$W/lat_wl:sleep_us" -e "uretprobe:$W/lat_wl:sleep_us" --pair x=y -- true \
	>/dev/null 2>"$T/e4"
check "uprobe --pair field: exit 2" [ $? -eq 2 ]
check "uprobe --pair field: said" grep -q "^pprobe trace: --pair: the start event uprobe:.* has no fields to pair by 'x'" "$T/e4"
"$PPROBE" trace -e sched:sched_switch --pair a=b -- true >/dev/null 2>"$T/e5"
check "--pair without --latency: exit 2" [ $? -eq 2 ]
"$PPROBE" trace --latency "${SYS[@]}" --hist ret -- true >/dev/null 2>"$T/e6"
check "--hist of a field with --latency: exit 2, the value named" \
	grep -q "^pprobe trace: --hist ret: with --latency the value is the duration, 'lat'" "$T/e6"
"$PPROBE" trace --latency "${SYS[@]}" --unit s -- true >/dev/null 2>"$T/e7"
check "--unit s: exit 2" grep -q "^pprobe trace: --unit 's': ns, us or ms" "$T/e7"
shown_on_failure "$T/e1" "$T/e2" "$T/e3" "$T/e4" "$T/e5" "$T/e6" "$T/e7"
check "no pprobe probe left in tracefs" not grep -q pprobe "$TR/dynamic_events"
check "no pprobe instance left in tracefs" [ -z "$(ls "$TR/instances" 2>/dev/null | grep pprobe)" ]

[ -n "${BT_SKIP:-}" ] && [ "$FAILS" -eq 0 ] && skip "pprobe's own checks passed; no bpftrace comparison: $BT_SKIP"
done_testing
