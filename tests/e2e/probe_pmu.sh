#!/usr/bin/env bash
# Ephemeral uprobes through the uprobe PMU: exact hit counts in stat for every
# form (FUNC, FUNC+OFF, FUNC:LINE, 0xADDR, %return, uretprobe:, -x with
# probe:, inlined copies, a libc function by library name) on -O2 and -O0
# builds; trace's addresses against nm; record -g's caller chain; nothing
# left in tracefs after the runs, and the breakpoints gone even after kill -9
# (a -p run's temporary probe then swept by the next run).
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/bus/event_source/devices/uprobe ] || skip "this kernel has no uprobe PMU"
W=$WORKLOADS
TR=/sys/kernel/tracing
[ -e $TR/uprobe_events ] || TR=/sys/kernel/debug/tracing
N=1000

# Nothing of ours in tracefs (other tools may have probes of their own there).
events_empty() {
	! grep -qsF -e "$(realpath "$W")" $TR/uprobe_events $TR/kprobe_events
}

# count FILE EVENT: the count stat -x, printed for EVENT
count() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }

# The relative line of the "odd" branch in probe_target (perf probe's FUNC:RLN).
src=$SRCDIR/tests/workloads/probe_wl.c
fline=$(grep -n '^__attribute__((noinline)) long probe_target' "$src" | cut -d: -f1)
oline=$(grep -n 'PROBE_LINE_ODD' "$src" | cut -d: -f1)
rln=$((oline - fline))

for wl in probe_wl_O2 probe_wl_O0; do
	B=$W/$wl
	# FUNC:LINE needs the finder to read the function's lines (pprobe -L)
	line_ev="uprobe:$B:probe_target:$rln" lines=1
	if ! "$PPROBE" -x "$B" -L probe_target >"$T/L" 2>&1; then
		echo "NOTE: no FUNC:LINE checks on $wl: pprobe -L probe_target fails there: $(cat "$T/L")"
		line_ev="uprobe:$B:probe_target+0" lines=0
	fi
	"$PPROBE" stat -x, -o "$T/s.csv" \
		-e "uprobe:$B:probe_target,uretprobe:$B:probe_target,uprobe:$B:probe_target%return" \
		-e "$line_ev,uprobe:$B:probe_inl,uprobe:$B:probe_untaken" \
		-e "uprobe:libc.so.6:getppid,uretprobe:/lib/x86_64-linux-gnu/libc.so.6:getppid" \
		-e "uprobe:$B:probe_clone,uretprobe:$B:probe_clone" \
		-- "$B" $N >/dev/null 2>"$T/err"
	check "$wl: stat exits 0" [ $? -eq 0 ]
	cat "$T/err"
	check "$wl: uprobe FUNC: $N" [ "$(count "$T/s.csv" "uprobe:$B:probe_target")" = $N ]
	check "$wl: uretprobe: $N" [ "$(count "$T/s.csv" "uretprobe:$B:probe_target")" = $N ]
	check "$wl: FUNC%return: $N" [ "$(count "$T/s.csv" "uprobe:$B:probe_target%return")" = $N ]
	[ $lines = 0 ] || check "$wl: FUNC:$rln (the odd branch): $((N / 2))" \
		[ "$(count "$T/s.csv" "uprobe:$B:probe_target:$rln")" = $((N / 2)) ]
	check "$wl: inlined copies counted together, one line: $((3 * N))" \
		[ "$(count "$T/s.csv" "uprobe:$B:probe_inl")" = $((3 * N)) ]
	check "$wl: a function never called: 0" [ "$(count "$T/s.csv" "uprobe:$B:probe_untaken")" = 0 ]
	check "$wl: libc by name: getppid $N" [ "$(count "$T/s.csv" "uprobe:libc.so.6:getppid")" = $N ]
	check "$wl: libc by path: uretprobe getppid $N" \
		[ "$(count "$T/s.csv" "uretprobe:/lib/x86_64-linux-gnu/libc.so.6:getppid")" = $N ]
	check "$wl: a function and its clones: $((3 * N)) calls, $((3 * N)) returns" \
		[ "$(count "$T/s.csv" "uprobe:$B:probe_clone") $(count "$T/s.csv" "uretprobe:$B:probe_clone")" = "$((3 * N)) $((3 * N))" ]
	check "$wl: 10 lines (one per spec)" [ "$(wc -l <"$T/s.csv")" -eq 10 ]
	if nm "$B" | grep -q ' probe_clone\.constprop\.0$'; then
		"$PPROBE" stat -x, -o "$T/c.csv" -e "uprobe:$B:probe_clone.constprop.0" -- "$B" $N >/dev/null 2>&1
		check "$wl: the clone alone, by its symbol: $((2 * N))" \
			[ "$(count "$T/c.csv" "uprobe:$B:probe_clone.constprop.0")" = $((2 * N)) ]
	fi
	check "$wl: nothing in uprobe_events/kprobe_events" events_empty

	# FUNC+OFF at the second instruction; 0xADDR of the function (nm's)
	off=$(objdump -d --no-show-raw-insn "$B" | awk '/<probe_target>:/ { getline; getline; sub(":", "", $1); print $1; exit }')
	start=$(nm "$B" | awk '$3 == "probe_target" { print $1 }' | sed 's/^0*//')
	rel=$(printf '0x%x' $((0x$off - 0x$start)))
	"$PPROBE" stat -x, -o "$T/o.csv" -e "uprobe:$B:probe_target+$rel,uprobe:$B:0x$start" -- "$B" $N >/dev/null 2>&1
	check "$wl: FUNC+$rel: $N" [ "$(count "$T/o.csv" "uprobe:$B:probe_target+$rel")" = $N ]
	check "$wl: 0x$start: $N" [ "$(count "$T/o.csv" "uprobe:$B:0x$start")" = $N ]

	# --exec BINARY (stat's -x is the CSV separator): probe: is a uprobe in
	# it (before or after -e), in stat and trace
	xline=probe:probe_target:$rln
	[ $lines = 0 ] && xline=probe:probe_target+0
	"$PPROBE" stat -x, -o "$T/x.csv" -e "probe:probe_target,probe:probe_target%return" --exec "$B" \
		-e "$xline" -- "$B" $N >/dev/null 2>&1
	check "$wl: -x: probe:FUNC $N" [ "$(count "$T/x.csv" "probe:probe_target")" = $N ]
	check "$wl: -x: probe:FUNC%return $N" [ "$(count "$T/x.csv" "probe:probe_target%return")" = $N ]
	[ $lines = 0 ] || check "$wl: -x: probe:FUNC:LINE $((N / 2))" [ "$(count "$T/x.csv" "probe:probe_target:$rln")" = $((N / 2)) ]
	"$PPROBE" stat --exec "$B" -e probe:probe_inl -- "$B" 7 >/dev/null 2>"$T/h.txt"
	check "$wl: --exec, human output: 21 probe:probe_inl" grep -qE '^ +21 +probe:probe_inl ' "$T/h.txt"
done

# trace: each hit with its address; the non-PIE build runs at nm's addresses.
B=$W/probe_wl_O0
"$PPROBE" trace -e "uprobe:$B:probe_target,uretprobe:$B:probe_target" -- "$B" 3 >"$T/t.txt" 2>"$T/err"
check "trace exits 0" [ $? -eq 0 ]
cat "$T/t.txt"
entry=$(nm "$B" | awk '$3 == "probe_target" { print $1 }' | sed 's/^0*//')
mid=$(nm "$B" | awk '$3 == "middle" { print $1 }' | sed 's/^0*//')
# the return address: the instruction after middle's call to probe_target
ret=$(objdump -d --no-show-raw-insn "$B" | awk -v t="<probe_target>" '
	/^[0-9a-f]+ <middle>:/ { m = 1; next } m && /^$/ { exit }
	m && found { sub(":", "", $1); print $1; exit }
	m && $0 ~ "call.*" t { found = 1 }')
check "3 entries at nm's probe_target (0x$entry)" \
	[ "$(grep -cE "^ *probe_wl_O0-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: uprobe:$B:probe_target: \(0x$entry\)$" "$T/t.txt")" -eq 3 ]
check "3 returns to middle+ (0x$ret) from 0x$entry" \
	[ "$(grep -cE "uretprobe:$B:probe_target: \(0x$ret <- 0x$entry\)$" "$T/t.txt")" -eq 3 ]
check "the return address is inside middle" [ $((0x$ret)) -gt $((0x$mid)) ]
"$PPROBE" trace --json -e "uretprobe:$B:probe_target" -- "$B" 2 2>/dev/null | grep '^{' >"$T/j.txt"
check "--json: func and ret_ip" python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert len(objs) == 2, objs
assert all(o["fields"] == {"func": int(sys.argv[2], 16), "ret_ip": int(sys.argv[3], 16)} for o in objs), objs
' "$T/j.txt" "$entry" "$ret"

# record -g: the caller chain of each hit, exact counts, file names from the event.
for wl in probe_wl_O2 probe_wl_O0; do
	B=$W/$wl
	"$PPROBE" record -q -g -e "uprobe:$B:probe_target" -o "$T/r.folded" -- "$B" 500 >/dev/null 2>&1
	check "$wl: record -g: 500 hits, all main;outer;middle;probe_target" \
		[ "$(folded_sum "$T/r.folded" "^$wl;_start;.*;main;outer;middle;probe_target [0-9]+$")" -eq 500 ]
	check "$wl: record -g: nothing else" [ "$(folded_sum "$T/r.folded")" -eq 500 ]
	[ "$(wc -l <"$T/r.folded")" -eq 1 ] || cat "$T/r.folded"
	"$PPROBE" record -q -g -e "uprobe:$B:probe_inl,uretprobe:$B:probe_target" -o "$T/m.folded" -- "$B" 100 >/dev/null 2>&1
	f1=$T/m.uprobe-$(echo "$B" | tr / _)-probe_inl.folded
	f2=$T/m.uretprobe-$(echo "$B" | tr / _)-probe_target.folded
	check "$wl: one file per event, named after it" [ -s "$f1" -a -s "$f2" ]
	check "$wl: inlined copies in one file: site_a 100, site_b 200, nothing else" \
		[ "$(folded_sum "$f1" ";main;site_a;probe_inl_\[i\] ") $(folded_sum "$f1" ";main;site_b;probe_inl_\[i\] ") $(folded_sum "$f1")" = "100 200 300" ]
	check "$wl: uretprobe: 100 hits in middle" [ "$(folded_sum "$f2" ";main;outer;middle [0-9]+$")" -eq 100 ]
done
check "nothing in uprobe_events/kprobe_events after the runs" events_empty

# record -x: probe: in the binary, as in stat and trace
B=$W/probe_wl_O2
"$PPROBE" record -q -g -x "$B" -e probe:probe_target%return -o "$T/x.folded" -- "$B" 50 >/dev/null 2>&1
check "record -x BIN -e probe:FUNC%return: 50 returns into middle" \
	[ "$(folded_sum "$T/x.folded" ";main;outer;middle [0-9]+$") $(folded_sum "$T/x.folded")" = "50 50" ]

# Probe events already in tracefs (perf probe's probe:NAME, any GROUP:NAME)
# are used as they are, not made again through the PMU.
off=$(printf '0x%x' $(("0x$(nm "$B" | awk '$3 == "probe_target" { print $1 }')")))	# PIE: offset = address
g=probe ev=pmu_e2e_$$ g2=pmu_e2e_$$
cleanup_tracefs() { echo "-:$g/$ev" >>$TR/uprobe_events; echo "-:$g2/target" >>$TR/uprobe_events; } 2>/dev/null
trap 'cleanup_tracefs; rm -rf "$T" "$T.cache"' EXIT
if echo "p:$g/$ev $B:$off" >>$TR/uprobe_events && echo "p:$g2/target $B:$off" >>$TR/uprobe_events; then
	"$PPROBE" stat -x, -o "$T/tf.csv" -e "probe:$ev,$g2:target" -- "$B" 77 >/dev/null 2>&1
	check "tracefs probe:$ev (no -x): 77" [ "$(count "$T/tf.csv" "probe:$ev")" = 77 ]
	check "tracefs $g2:target: 77" [ "$(count "$T/tf.csv" "$g2:target")" = 77 ]
	"$PPROBE" trace -e "probe:$ev" -- "$B" 1 2>/dev/null | grep "probe:$ev" >"$T/tf.txt"
	check "trace of the tracefs probe: its own format (the ip as trace_pipe prints it)" \
		grep -qE "^ *probe_wl_O2-[0-9]+ +\[[0-9]+\] +[0-9.]+: probe:$ev: \(0x[0-9a-f]+\)\$" "$T/tf.txt"
	cleanup_tracefs
else
	echo "NOTE: cannot add a tracefs uprobe here: no check of existing probe events"
fi

# -p PID: a bare name is looked for among the process's mappings first
# (the program here: no library directory or PATH has it).
B=$W/probe_wl_O2
"$B" 100 2 >/dev/null & wl=$!
"$PPROBE" stat -x, -o "$T/p.csv" -p $wl -e uprobe:probe_wl_O2:probe_target,uprobe:libc:getppid 2>"$T/err"
check "-p: stat exits 0" [ $? -eq 0 ]
cat "$T/err"
wait $wl
check "-p: the program by its name: 100" [ "$(count "$T/p.csv" uprobe:probe_wl_O2:probe_target)" = 100 ]
check "-p: libc by a short name: 100" [ "$(count "$T/p.csv" uprobe:libc:getppid)" = 100 ]

# kill -9: the kernel drops the probes with pprobe's fds: the int3 pprobe's
# uprobe put into a running process's code goes away.
B=$W/probe_wl_O0
"$B" 1 30 >/dev/null & wl=$!
addr=$(nm "$B" | awk '$3 == "probe_untaken" { print $1 }')
byte_at() { python3 -c '
import sys
with open("/proc/%s/mem" % sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2], 16)); print(f.read(1).hex())' "$wl" "$addr"; }
orig=$(byte_at)
"$PPROBE" stat -p $wl -e "uprobe:$B:probe_untaken" -d 60 2>/dev/null & pp=$!
for i in $(seq 50); do [ "$(byte_at)" = cc ] && break; sleep 0.1; done
check "while probed: int3 at probe_untaken (was $orig)" [ "$(byte_at)" = cc ]
# -p follows the process's new tasks: a temporary tracefs probe (the PMU's
# events cannot be inherited), in pprobe's own group
check "while probed: the temporary probe pprobe_$pp/probe_untaken" \
	grep -qE "^p:pprobe_$pp/probe_untaken $(realpath "$B"):0x" $TR/uprobe_events
kill -9 $pp; wait $pp 2>/dev/null
for i in $(seq 50); do [ "$(byte_at)" = "$orig" ] && break; sleep 0.1; done
check "after kill -9: the original byte ($orig) is back" [ "$(byte_at)" = "$orig" ]
"$PPROBE" stat -e task-clock -- true 2>/dev/null
check "after kill -9: the next run swept pprobe_$pp" not grep -q "^p:pprobe_$pp/" $TR/uprobe_events
check "after kill -9 and the next run: nothing in uprobe_events/kprobe_events" events_empty
kill $wl; wait $wl 2>/dev/null

# -t: per thread, nothing inherited: the PMU, nothing in tracefs
"$B" 1 30 >/dev/null & wl=$!
"$PPROBE" stat -t $wl -e "uprobe:$B:probe_untaken" -d 60 2>/dev/null & pp=$!
for i in $(seq 50); do [ "$(byte_at)" = cc ] && break; sleep 0.1; done
check "-t: int3 at probe_untaken" [ "$(byte_at)" = cc ]
check "-t: nothing in uprobe_events (the PMU)" events_empty
kill $pp; wait $pp 2>/dev/null
kill $wl; wait $wl 2>/dev/null

done_testing
