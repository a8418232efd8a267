#!/bin/bash
# pprobe stat: exact tracepoint counts for a command, its threads, -p, -a;
# -r spread, -I intervals that add up, -x CSV, --json, errors and exit codes.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/kernel/tracing/events/syscalls/sys_enter_prctl ] || skip "no syscalls:sys_enter_prctl tracepoint"
WL=$WORKLOADS/events_prctl
EV=syscalls:sys_enter_prctl

# count of EV in a default-format report
count() { awk -v ev="$EV" '$2 == ev { print $1 }' "$1"; }

"$PPROBE" stat -e $EV -- "$WL" 1000 2> "$T/a"
check "command exits 0" [ $? -eq 0 ]
check "1000 prctl calls counted exactly" [ "$(count "$T/a")" = 1000 ]
check "header names the command" grep -q "Performance counter stats for '$WL 1000':" "$T/a"
check "elapsed line" grep -qE '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' "$T/a"

"$PPROBE" stat -e $EV -- "$WL" 250 0 4 2> "$T/b"
check "4 threads x 250 calls = 1000 (inherit)" [ "$(count "$T/b")" = 1000 ]

"$PPROBE" stat -e "{task-clock,$EV}" -- "$WL" 150 0 2 2> "$T/grp"
check "{group}: members counted with the leader (2 x 150)" [ "$(count "$T/grp")" = 300 ]
check "{group}: the leader too" grep -qE '^ +[0-9]+\.[0-9]{2} msec task-clock ' "$T/grp"

"$PPROBE" stat -r 5 -e $EV -- "$WL" 200 2> "$T/c"
check "-r 5: mean 200, no spread" grep -qE "^ +200 +$EV .*\( \+- +0\.00% \)$" "$T/c"
check "-r 5: header says 5 runs" grep -q "(5 runs):" "$T/c"

"$PPROBE" stat -x , -e $EV,task-clock -- "$WL" 300 2> "$T/d"
# perf's CSV: value,unit,event,runtime,running%,metric,metric-unit
check "-x: CSV count" grep -qE "^300,,$EV,[0-9]+,100\.00,[0-9.]+,/sec$" "$T/d"
check "-x: task-clock in msec" grep -qE '^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,[0-9.]+,CPUs utilized$' "$T/d"

"$PPROBE" stat --json -e $EV -- "$WL" 300 2> "$T/e"
check "--json: one object, counter-value 300, running 100%" python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
assert len(o) == 1, o
o = o[0]
assert o["event"] == sys.argv[2] and o["counter-value"] == "300" and o["unit"] == "", o
assert o["pcnt-running"] == 100.0 and o["event-runtime"] > 0 and o["metric-unit"] == "/sec", o
' "$T/e" "$EV"

# -I: the intervals add up to the total; 600 calls after a 300 ms pause
"$PPROBE" stat -I 100 -e $EV -- "$WL" 600 300 2> "$T/f"
check "-I: several intervals" [ "$(grep -c " $EV" "$T/f")" -ge 4 ]
check "-I: intervals sum to 600" [ "$(awk -v ev="$EV" '$3 == ev { n += $2 } END { print n }' "$T/f")" = 600 ]
check "-I: timestamps increase" sh -c "awk '{ if (\$1 <= p) exit 1; p = \$1 }' $T/f"

# -p: a running process (its calls come after a pause), bounded by a command
"$WL" 700 1500 & pid=$!
sleep 0.2
"$PPROBE" stat -p $pid -e $EV -- sleep 3.5 2> "$T/g"
wait $pid
check "-p: 700 calls of the attached process" [ "$(count "$T/g")" = 700 ]
check "-p: header" grep -q "for process id '$pid':" "$T/g"

# -a: every CPU; getpriority, which nothing else here calls (other tests
# running at the same time make prctl calls)
EV=syscalls:sys_enter_getpriority
"$PPROBE" stat -a -e $EV -- "$WL" 800 0 1 getpriority 2> "$T/h"
n=$(count "$T/h")
check "-a: the 800 getpriority calls ($n)" [ "$n" -ge 800 -a "$n" -le 805 ]
"$PPROBE" stat -a -e cpu-clock -- sleep 0.5 2> "$T/h2"
ncpu=$(nproc)
util=$(awk '/cpu-clock/ { print $(NF-2) }' "$T/h2")
check "-a cpu-clock: $util of $ncpu CPUs utilized (within 5%)" \
	awk -v u="$util" -v n="$ncpu" 'BEGIN { exit !(u > n * 0.95 && u < n * 1.05) }'

EV=syscalls:sys_enter_prctl

# errors
"$PPROBE" stat -e cycles,$EV -- "$WL" 10 2> "$T/i"
check "cycles without PMU: still counts the rest" [ "$(count "$T/i")" = 10 ]
"$PPROBE" stat -e "{cycles,instructions},$EV" -- "$WL" 10 2> "$T/i2"
check "a group whose leader cannot be opened: the rest still counted" [ "$(count "$T/i2")" = 10 ]
if ! ls /sys/bus/event_source/devices | grep -qE '^(cpu|cpu_core|cpu_atom|armv.*)$'; then
	check "cycles: <not supported>" grep -qE '^ +<not supported> +cycles$' "$T/i"
	check "cycles: says there is no hardware PMU" grep -q "no hardware PMU" "$T/i"
fi
"$PPROBE" stat -e $EV -- /nonexistent/cmd 2> "$T/j"
check "command not found: 127" [ $? -eq 127 ]
check "command not found: said" grep -q "cannot run '/nonexistent/cmd'" "$T/j"
"$PPROBE" stat -e $EV -- sh -c 'exit 7' 2> /dev/null
check "the command's exit status" [ $? -eq 7 ]
"$PPROBE" stat -e cylces -- true 2> "$T/k"
check "unknown event: usage error 2" [ $? -eq 2 ]
check "unknown event: suggests cycles" grep -q "did you mean: cycles" "$T/k"
"$PPROBE" stat -p 999999999 -e $EV -- true 2> "$T/l"
check "no such pid: 1" [ $? -eq 1 ]
check "no such pid: said" grep -q "no such process" "$T/l"
done_testing
