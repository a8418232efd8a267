#!/usr/bin/env bash
# pprobe stat: exact counts, -a, -r, -I, CSV, JSON, groups, errors.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS

"$PPROBE" stat -e syscalls:sys_enter_prctl -- "$W/wl_record" prctl 1000 2>"$T/s.txt"
check "exit 0" [ $? -eq 0 ]
check "exactly 1,000 prctl calls" grep -qE '^ +1,000 +syscalls:sys_enter_prctl +# +[0-9.]+ /sec$' "$T/s.txt"
check "header names the command" grep -q "Performance counter stats for '$W/wl_record prctl 1000':" "$T/s.txt"
check "elapsed line" grep -qE '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' "$T/s.txt"

# Default events: task-clock in msec with CPUs utilized, never multiplexed.
"$PPROBE" stat -- "$W/wl_record" prctl 10 2>"$T/d.txt"
check "default set: task-clock, context-switches, cpu-migrations, page-faults" \
	[ "$(grep -cE 'task-clock|context-switches|cpu-migrations|page-faults' "$T/d.txt")" -eq 4 ]
check "task-clock in msec, CPUs utilized" grep -qE ' msec +task-clock +# +[0-9.]+ CPUs utilized$' "$T/d.txt"

# -a: every CPU; our 700 calls are among them.
"$PPROBE" stat -a -x, -e syscalls:sys_enter_prctl -- "$W/wl_record" prctl 700 2>"$T/a.csv"
n=$(cut -d, -f1 "$T/a.csv")
check "-a: at least our 700 ($n)" [ "$n" -ge 700 ]

# -r 3: mean of exact counts, no spread.
"$PPROBE" stat -r 3 -e syscalls:sys_enter_prctl -- "$W/wl_record" prctl 300 2>"$T/r.txt"
check "-r 3: 300 +- 0.00%" grep -qE '^ +300 +syscalls:sys_enter_prctl .*\( \+-  0\.00% \)$' "$T/r.txt"
check "-r 3: (3 runs)" grep -q '(3 runs):' "$T/r.txt"

# CSV: value,unit,event,runtime,running%,metric,unit
"$PPROBE" stat -x, -e syscalls:sys_enter_prctl,task-clock -- "$W/wl_record" prctl 42 2>"$T/c.csv"
check "CSV prctl line" grep -qE '^42,,syscalls:sys_enter_prctl,[0-9]+,100\.00,[0-9.]+,/sec$' "$T/c.csv"
check "CSV task-clock line in msec" grep -qE '^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,[0-9.]+,CPUs utilized$' "$T/c.csv"

# JSON: one object per counter.
"$PPROBE" stat --json -e syscalls:sys_enter_prctl -- "$W/wl_record" prctl 9 2>"$T/j.txt"
check "JSON counter-value 9" python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
assert len(o) == 1 and o[0]["counter-value"] == "9" and o[0]["event"] == "syscalls:sys_enter_prctl", o
assert o[0]["pcnt-running"] == 100.0 and o[0]["metric-unit"] == "/sec", o
' "$T/j.txt"

# -I: interval lines with a timestamp column; the writes of 'syscalls' happen
# all through the run, so the intervals add up to the total.
"$PPROBE" stat -I 100 -x, -e syscalls:sys_enter_write -- "$W/wl_record" syscalls 200000 2>"$T/i.csv"
lines=$(grep -c ',syscalls:sys_enter_write,' "$T/i.csv")
sum=$(awk -F, '{ s += $2 } END { print s }' "$T/i.csv")
echo "-I: $lines intervals, $sum writes in them"
check "-I: at least 2 intervals" [ "$lines" -ge 2 ]
check "-I: each line starts with a timestamp" [ "$(grep -cE '^[0-9]+\.[0-9]{6},[0-9]+,,syscalls:sys_enter_write,' "$T/i.csv")" -eq "$lines" ]
check "-I: intervals hold at most the 200,000 writes" [ "$sum" -le 200000 -a "$sum" -gt 0 ]

# Groups: {a,b} counted together.
"$PPROBE" stat -x, -e '{syscalls:sys_enter_prctl,syscalls:sys_enter_write}' -- "$W/wl_record" prctl 5 2>"$T/g.csv"
check "group: prctl 5" grep -q '^5,,syscalls:sys_enter_prctl,' "$T/g.csv"

# The command's status is pprobe's; errors are explained.
"$PPROBE" stat -e task-clock -- sh -c 'exit 3' 2>/dev/null
check "command's exit status (3)" [ $? -eq 3 ]
"$PPROBE" stat -e nosuchevent -- true 2>"$T/e.txt"
check "unknown event: exit 2" [ $? -eq 2 ]
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	"$PPROBE" stat -e cycles -- true 2>"$T/e.txt"
	st=$?
	check "cycles without a PMU: exit 1" [ $st -eq 1 ]
	check "cycles without a PMU: says so" grep -q 'no hardware PMU' "$T/e.txt"
fi
done_testing
