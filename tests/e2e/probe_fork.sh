#!/usr/bin/env bash
# Probes on programs that fork, exec and start threads (issue 10): the
# kernel cannot inherit uprobe PMU events (fork() and pthread_create() of the
# probed program failed with EFAULT), so on a command or -p process pprobe
# makes temporary tracefs probes. The program runs as without pprobe (its
# own exit status, 7), the counts are exact across forked and exec'd
# children and threads in stat, record and trace, -p follows forks made
# after the attach, and nothing is left in uprobe_events (kill -9: the next
# run sweeps it). Where tracefs cannot be written the command never runs.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/bus/event_source/devices/uprobe ] || skip "this kernel has no uprobe PMU"
need_uprobe_events
B=$WORKLOADS/probe_fork
RB=$(realpath "$B")
count() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }
# our temporary probes on the workload still in uprobe_events
ours() { grep -E '^[pr][0-9]*:pprobe_[0-9]+/' $TR/uprobe_events | grep -F "$RB"; }
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T" "$T.cache"' EXIT

# stat: 8 children (4 of them exec'd), 3 threads, 100 calls each.
"$PPROBE" stat -x, -o "$T/s.csv" -e "uprobe:$B:work,uretprobe:$B:work" -- "$B" 8 3 100 >/dev/null 2>"$T/err"
check "stat: the command's own exit status, 7" [ $? -eq 7 ]
check "stat: no fork, exec or thread failed" not grep -q '^probe_fork:' "$T/err"
check "stat: uprobe 1100 of 1100" [ "$(count "$T/s.csv" "uprobe:$B:work")" = 1100 ]
check "stat: uretprobe 1100 of 1100" [ "$(count "$T/s.csv" "uretprobe:$B:work")" = 1100 ]
check "stat: nothing left in uprobe_events" [ -z "$(ours)" ]
cat "$T/err"

# -r: the same temporary probe for every run, exact each time
"$PPROBE" stat -r 3 -x, -o "$T/r.csv" -e "uprobe:$B:work" -- "$B" 4 1 50 >/dev/null 2>&1
check "stat -r 3: 250 a run, exit 7" [ $? -eq 7 -a "$(count "$T/r.csv" "uprobe:$B:work")" = 250 ]

# A signal ends the command: its status as without pprobe (128 + SIGUSR2)
"$PPROBE" stat -x, -o "$T/k.csv" -e "uprobe:$B:work" -- sh -c "\"$B\" 2 1 10; kill -USR2 \$\$" >/dev/null 2>&1
check "stat: the command killed by SIGUSR2: 140, and its 30 calls" \
	[ $? -eq 140 -a "$(count "$T/k.csv" "uprobe:$B:work")" = 30 ]

# record: every hit, one stack each
"$PPROBE" record -q -e "uprobe:$B:work" -o "$T/r.folded" -- "$B" 4 2 50 >/dev/null 2>"$T/err"
check "record: exit 7" [ $? -eq 7 ]
check "record: 300 of 300 hits" [ "$(folded_sum "$T/r.folded")" -eq 300 ]

# trace: every hit, with the PMU probe's format, from 4 children and 2 threads
"$PPROBE" trace -e "uprobe:$B:work" -- "$B" 4 2 25 >"$T/t.txt" 2>"$T/err"
check "trace: exit 7" [ $? -eq 7 ]
check "trace: 150 of 150 hits as '(0xADDR)'" [ "$(grep -cE "uprobe:$B:work: \(0x[0-9a-f]+\)$" "$T/t.txt")" -eq 150 ]
check "trace: from 6 tasks (4 children, 2 threads)" \
	[ "$(grep -oE -- '-[0-9]+ +\[' "$T/t.txt" | sort -u | wc -l)" -eq 6 ]

# The issue's own example: a shell loop with malloc probed in libc
"$PPROBE" stat -x, -o "$T/m.csv" -e uprobe:libc.so.6:malloc -- sh -c 'for i in 1 2 3; do /bin/true; done' 2>"$T/err"
check "libc malloc on a shell loop: exit 0" [ $? -eq 0 ]
check "... no 'Cannot fork'" not grep -q 'fork' "$T/err"
check "... malloc counted" [ "$(count "$T/m.csv" uprobe:libc.so.6:malloc)" -gt 0 ]

# -p: attached before the process forks (it waits for SIGUSR1)
work_addr() {	# work's address in process $1 (PIE: load base + nm's address)
	local base off
	base=$(awk -v f="$RB" '$6 == f && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/$1/maps)
	off=$(nm "$B" | awk '$3 == "work" { print $1 }')
	printf '%x' $((0x$base + 0x$off))
}
byte_at() { python3 -c '
import sys
with open("/proc/%s/mem" % sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2], 16)); print(f.read(1).hex())' "$1" "$2"; }
for cmd in stat trace; do
	"$B" -w 6 2 40 >"$T/ready" 2>"$T/wl.err" & wl=$!
	for i in $(seq 50); do grep -q ready "$T/ready" && break; sleep 0.1; done
	a=$(work_addr $wl)
	if [ $cmd = stat ]; then
		"$PPROBE" stat -x, -o "$T/p.csv" -p $wl -e "uprobe:$B:work,uretprobe:$B:work" 2>"$T/perr" & pp=$!
	else
		"$PPROBE" trace -p $wl -e "uretprobe:$B:work" >"$T/p.txt" 2>"$T/perr" & pp=$!
	fi
	for i in $(seq 100); do [ "$(byte_at $wl $a)" = cc ] && break; sleep 0.1; done
	check "-p $cmd: attached (int3 at work)" [ "$(byte_at $wl $a)" = cc ]
	kill -USR1 $wl
	wait $wl
	check "-p $cmd: the process forked, exec'd, started threads and exited 7" [ $? -eq 7 ]
	cat "$T/wl.err"
	wait $pp
	check "-p $cmd: pprobe exits 0 when it is gone" [ $? -eq 0 ]
	if [ $cmd = stat ]; then
		check "-p stat: uprobe 320 of 320" [ "$(count "$T/p.csv" "uprobe:$B:work")" = 320 ]
		check "-p stat: uretprobe 320 of 320" [ "$(count "$T/p.csv" "uretprobe:$B:work")" = 320 ]
	else
		check "-p trace: 320 of 320 returns" [ "$(grep -c "uretprobe:$B:work: (0x" "$T/p.txt")" -eq 320 ]
	fi
	check "-p $cmd: nothing left in uprobe_events" [ -z "$(ours)" ]
done

# USDT with a semaphore on a command that forks and execs it twice: the
# temporary probe carries the semaphore (PATH:0xOFF(0xREFCTR)).
if [ -e /sys/bus/event_source/devices/uprobe/format/ref_ctr_offset ]; then
	U=$WORKLOADS/probe_usdt
	"$PPROBE" stat -x, -o "$T/u.csv" -e "sdt:$U:pprobe_pmu:gated" -- sh -c "\"$U\" 30; \"$U\" 30" >"$T/out" 2>&1
	check "USDT on sh -c 'A; A': exit 0" [ $? -eq 0 ]
	check "... both saw the semaphore set: gated=30 twice" [ "$(grep -c '^gated=30 ' "$T/out")" -eq 2 ]
	check "... 60 of 60 hits" [ "$(count "$T/u.csv" "sdt:$U:pprobe_pmu:gated")" = 60 ]
fi

# kill -9: the temporary probe stays (nothing can remove it), the program
# keeps running as without pprobe, the next run sweeps the probe.
"$PPROBE" stat -e "uprobe:$B:work" -- "$B" -w 1 0 1 >/dev/null 2>&1 & pp=$!
for i in $(seq 50); do grep -q "^p:pprobe_$pp/work " $TR/uprobe_events && break; sleep 0.1; done
check "kill -9: pprobe_$pp/work exists while it runs" grep -q "^p:pprobe_$pp/work $RB:0x" $TR/uprobe_events
wl=$(pgrep -P $pp)
kill -9 $pp; wait $pp 2>/dev/null
check "kill -9: pprobe_$pp/work is left behind" grep -q "^p:pprobe_$pp/work " $TR/uprobe_events
[ -n "$wl" ] && kill -USR1 $wl
"$PPROBE" stat -e task-clock -- true 2>/dev/null
check "kill -9: the next run swept it" not grep -q "^p:pprobe_$pp/" $TR/uprobe_events

# Where tracefs cannot take the probe (a user with CAP_PERFMON but no
# tracefs access), one line says so and the command never runs.
if command -v setpriv >/dev/null && [ "$(stat -c %a $TR)" = 700 ]; then
	ran=$(mktemp -u /tmp/pprobe-ran.XXXXXX)	# where nobody can write
	setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps +perfmon --ambient-caps +perfmon \
		"$PPROBE" stat -e "uprobe:$B:work" -- sh -c "touch '$ran'" 2>"$T/err"
	check "no tracefs access: exit 1" [ $? -eq 1 ]
	check "... the command did not run" [ ! -e "$ran" ]
	rm -f "$ran"
	check "... one line" [ "$(wc -l <"$T/err")" -eq 1 ]
	check "... it says why" grep -qF "is made a temporary tracefs probe" "$T/err"
	check "... and what needs no temporary probe" grep -qF -- "-a, -C and -t TID need no temporary probe" "$T/err"
	cat "$T/err"
else
	echo "NOTE: no check of the message for a user without tracefs access (no setpriv, or $TR not mode 700)"
fi
check "nothing left in uprobe_events" [ -z "$(ours)" ]

done_testing
