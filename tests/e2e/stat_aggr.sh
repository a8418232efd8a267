#!/bin/bash
# pprobe stat's aggregation modes, perf's spellings: -A/--no-aggr,
# --per-core, --per-cache, --per-die, --per-socket, --per-node (rows summed
# from sysfs topology, which add up to the system-wide count), --per-thread
# with -p (every thread of a process that starts threads), --no-merge, the
# :W weak-group modifier, and perf's messages where an option cannot apply.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/kernel/tracing/events/syscalls/sys_enter_prctl ] || skip "no syscalls:sys_enter_prctl tracepoint"
[ -r /sys/devices/system/cpu/cpu0/topology/core_id ] || skip "no CPU topology in sysfs"
PRCTL=$WORKLOADS/events_prctl
WL=$WORKLOADS/wl_record
EV=syscalls:sys_enter_prctl
cpus_online() { # the online CPUs, one per line
	python3 -c '
import sys
out = []
for part in open("/sys/devices/system/cpu/online").read().strip().split(","):
    a, _, b = part.partition("-")
    out += range(int(a), int(b or a) + 1)
print("\n".join(map(str, out)))'
}
NCPU=$(cpus_online | wc -l)
topo() { cat "/sys/devices/system/cpu/cpu$1/topology/$2"; }

# What perf's rows should be, from sysfs: label -> number of CPUs.
expected_rows() { # MODE
	for c in $(cpus_online); do
		case $1 in
		core) echo "S$(topo $c physical_package_id)-D$(topo $c die_id)-C$(topo $c core_id)" ;;
		die) echo "S$(topo $c physical_package_id)-D$(topo $c die_id)" ;;
		socket) echo "S$(topo $c physical_package_id)" ;;
		node) n=$(ls -d /sys/devices/system/node/node*/cpu$c 2>/dev/null | sed -E 's|.*/node([0-9]+)/.*|\1|'); echo "N$n" ;;
		cache) # the last level: the highest level, id its first sharing CPU
			best=0; id=
			for d in /sys/devices/system/cpu/cpu$c/cache/index*; do
				l=$(cat $d/level)
				[ "$l" -gt "$best" ] && { best=$l; id=$(sed -E 's/[-,].*//' $d/shared_cpu_list); }
			done
			echo "S$(topo $c physical_package_id)-D$(topo $c die_id)-L$best-ID$id" ;;
		esac
	done | sort | uniq -c | awk '{ print $2 "," $1 }'
}

for mode in core cache die socket node; do
	[ $mode = node ] && [ ! -d /sys/devices/system/node/node0 ] && continue
	if [ $mode = cache ] && [ ! -d /sys/devices/system/cpu/cpu0/cache ]; then
		# some VMs' kernels show no cache topology: said, as perf's 'cannot build cache map'
		"$PPROBE" stat -x, --per-cache -a -e $EV -- "$PRCTL" 1000 2> "$T/$mode"
		rc=$?
		echo "no /sys/devices/system/cpu/cpu0/cache here: --per-cache must say so"
		check "--per-cache without cache topology: exit 1 (got $rc)" [ $rc -eq 1 ]
		check "--per-cache without cache topology: 'cannot build cache map'" grep -q "cannot build cache map: no cache information" "$T/$mode"
		continue
	fi
	"$PPROBE" stat -x, --per-$mode -a -e $EV -- "$PRCTL" 1000 2> "$T/$mode"
	check "--per-$mode -a: exits as the command (0)" [ $? -eq 0 ]
	# CSV: LABEL,NR,count,unit,event,...
	check "--per-$mode: the sysfs topology's rows, each with its number of CPUs" \
		[ "$(awk -F, -v ev=$EV '$5 == ev { print $1 "," $2 }' "$T/$mode" | sort)" = "$(expected_rows $mode)" ]
	check "--per-$mode: the rows add up to the 1000 prctl calls" \
		[ "$(awk -F, -v ev=$EV '$5 == ev { n += $3 } END { print n + 0 }' "$T/$mode")" = 1000 ]
	check "--per-$mode: the rows' CPUs are the online ones ($NCPU)" \
		[ "$(awk -F, -v ev=$EV '$5 == ev { n += $2 } END { print n + 0 }' "$T/$mode")" = "$NCPU" ]
done

"$PPROBE" stat -A -a -e $EV,cpu-clock -- "$PRCTL" 1000 2> "$T/A"
check "-A: one row per online CPU and event" \
	[ "$(grep -cE "^CPU[0-9]+ +[0-9]+ +$EV( |$)" "$T/A")" = "$NCPU" ]
check "-A: rows are CPU0.. in order (perf 6.1's layout: each event's CPUs in turn)" \
	[ "$(grep -E " $EV( |$)" "$T/A" | awk '{ print substr($1, 4) }' | tr '\n' ' ')" = "$(cpus_online | tr '\n' ' ')" ]
check "-A: the CPUs' counts add up to 1000" \
	[ "$(awk -v ev=$EV '$3 == ev { n += $2 } END { print n + 0 }' "$T/A")" = 1000 ]
check "-A: cpu-clock per CPU in msec, about 1 CPU utilized each" \
	grep -qE '^CPU0 +[0-9.]+ msec cpu-clock +# +(0\.9|1\.0)[0-9]* CPUs utilized' "$T/A"
"$PPROBE" stat --no-aggr -C 0 -e cpu-clock -d 0.1 2> "$T/A0"
check "--no-aggr -C 0: one row, CPU0" [ "$(grep -cE '^CPU0 +[0-9.]+ msec cpu-clock' "$T/A0")" = 1 ]
check "header says the CPUs" grep -q "Performance counter stats for CPU(s) 0:" "$T/A0"

# the human layout: perf's columns (label padded, then the CPUs summed)
"$PPROBE" stat --per-socket -a -e cpu-clock -d 0.1 2> "$T/hs"
check "--per-socket: perf's layout 'S0        N   COUNT msec cpu-clock'" \
	grep -qE "^S0 {8}$NCPU +[0-9.]+ msec cpu-clock +# +[0-9.]+ CPUs utilized" "$T/hs"
"$PPROBE" stat --per-core -a --json -e cpu-clock -d 0.1 2> "$T/json"
check "--per-core --json: perf's keys core and aggregate number" python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
assert all(x["core"].startswith("S") and x["aggregate number"] >= 1 for x in o), o
assert sum(x["aggregate number"] for x in o) == int(sys.argv[2]), o' "$T/json" "$NCPU"

# --per-thread -p: each thread of a process that started 3 threads
"$WL" threads 3 10 > /dev/null &
W=$!
for i in $(seq 50); do [ "$(ls /proc/$W/task 2>/dev/null | wc -l)" -ge 4 ] && break; sleep 0.1; done
"$PPROBE" stat --per-thread -p $W -e task-clock,cs -d 0.5 2> "$T/thr"
check "--per-thread -p: exits 0" [ $? -eq 0 ]
TIDS=$(ls /proc/$W/task | sort -n | tr '\n' ' ')
check "--per-thread: a task-clock row for every thread of the process (comm-TID)" \
	[ "$(grep -E ' task-clock' "$T/thr" | sed -E 's/^ *wl_record-([0-9]+) .*/\1/' | sort -n | tr '\n' ' ')" = "$TIDS" ]
check "--per-thread: perf's layout (comm right in 16 columns, -TID)" \
	grep -qE "^ {7}wl_record-[0-9]+ +[0-9.]+ msec task-clock" "$T/thr"
check "--per-thread: the spinning threads ran (3 rows > 50 msec)" \
	[ "$(awk '$3 == "msec" && $4 == "task-clock" && $2 + 0 > 50' "$T/thr" | wc -l)" = 3 ]
check "--per-thread: the main thread, asleep in join, is <not counted> as in perf" \
	grep -qE "^ +wl_record-$W +<not counted> msec task-clock" "$T/thr"
check "--per-thread: largest first" \
	python3 -c '
import sys, re
v = [float(m.group(1)) for l in open(sys.argv[1]) for m in [re.search(r" ([0-9.]+) msec task-clock", l)] if m]
assert v == sorted(v, reverse=True), v' "$T/thr"
"$PPROBE" stat --per-thread -x, -t $W -e task-clock -d 0.2 2> "$T/thr1"
check "--per-thread -t: the one thread, CSV 'comm-TID,value,...'" grep -qE "^wl_record-$W,<not counted>,msec,task-clock," "$T/thr1"
kill $W; wait $W 2>/dev/null

# --no-merge: accepted, the same counts (one PMU per event here)
"$PPROBE" stat --no-merge -e $EV -- "$PRCTL" 700 2> "$T/nm"
check "--no-merge: counts as without it" grep -qE "^ +700 +$EV " "$T/nm"

# :W weak group: a member that cannot join its group is counted on its own.
# An exclusive ('e') member is refused inside a group (EINVAL) by the kernel.
"$PPROBE" stat -e "{task-clock,$EV:e}" -- "$PRCTL" 300 2> "$T/strong"
check "{a,b:e}: the member cannot be opened in the group" grep -q "<not supported> *$EV:e" "$T/strong"
"$PPROBE" stat -e "{task-clock,$EV:eW}" -- "$PRCTL" 300 2> "$T/weak"
check "{a,b:eW}: the weak member counted on its own, exactly" grep -qE "^ +300 +$EV:eW " "$T/weak"
"$PPROBE" stat -e "{task-clock,$EV}:W" -- "$PRCTL" 300 2> "$T/weakg"
check "{a,b}:W: a group that can be had stays one, counts exact" grep -qE "^ +300 +$EV:W " "$T/weakg"

# perf's messages where the option cannot apply; nothing is counted
"$PPROBE" stat --per-core -e cpu-clock -- true 2> "$T/e1"
check "--per-core without -a/-C: exit 2" [ $? -eq 2 ]
check "--per-core without -a/-C: perf's message" \
	grep -q "both cgroup and no-aggregation modes only available in system-wide mode" "$T/e1"
"$PPROBE" stat --per-thread -e cpu-clock -- true 2> "$T/e2"
rc=$?
check "--per-thread with a command: exit 2, perf's message (status)" [ $rc -eq 2 ]
check "--per-thread with a command: exit 2, perf's message" grep -q "The --per-thread option is only available when monitoring via -p -t" "$T/e2"
"$PPROBE" stat --per-cache=L9 -a -e cpu-clock -- true 2> "$T/e3"
rc=$?
check "--per-cache=L9 where no CPU has one: exit 1, perf's 'cannot build cache map' (status)" [ $rc -eq 1 ]
check "--per-cache=L9 where no CPU has one: exit 1, perf's 'cannot build cache map'" \
	grep -qE "cannot build cache map: (CPU [0-9]* has no L9 cache|no cache information)" "$T/e3"
"$PPROBE" stat --per-cache=L0 -a -e cpu-clock -- true 2> "$T/e4"
rc=$?
check "--per-cache=L0: exit 2, perf's 'Cache level must be of form' (status)" [ $rc -eq 2 ]
check "--per-cache=L0: exit 2, perf's 'Cache level must be of form'" grep -q "Cache level must be of form L\[1-9\]" "$T/e4"
check "a usage error is one line" [ "$(wc -l < "$T/e4")" -eq 1 ]

# perf on the same machine (software events only: no PMU here), same rows
if command -v perf > /dev/null && perf stat --per-core -a -x, -e cpu-clock true 2> "$T/perf" >/dev/null; then
	check "perf's --per-core rows are pprobe's" \
		[ "$(awk -F, '{ print $1 "," $2 }' "$T/perf" | sort)" = "$(expected_rows core)" ]
fi
done_testing
