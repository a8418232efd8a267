#!/usr/bin/env bash
# record -g --hold-exits holds the command's exiting threads (ptrace
# exit-stops) until their last samples are unwound: a process that exits
# from deep in its stack right after a burst keeps every stack complete.
# The command must not notice otherwise: signals, stops and continues, exit
# statuses, forks and threads behave as without pprobe. By default the
# command is not traced (a debugger or LeakSanitizer can attach).
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS

# The point: 1000 traced system calls at depth 200, then exit(0) right
# there. Unwinding them takes ~100 ms; without the hold the process is gone
# long before, and the live stack beyond each 8 KB copy with it.
P=syscalls:sys_enter_prctl
# complete_at_depth FILE: samples whose stack starts at _start and holds
# main;run, then exactly 200 recurse frames, then leaf_exitburst.
complete_at_depth() {
	awk '/^unwind_wl;_start;/ && /;main;run;recurse;/ && /;recurse;leaf_exitburst;/ {
		n = split($1, f, ";"); r = 0
		for (i = 1; i <= n; i++) r += f[i] == "recurse"
		if (r == 200) c += $NF
	} END { print c + 0 }' "$1"
}
"$PPROBE" record --hold-exits -e $P -g -o "$T/h.folded" -- "$W/unwind_wl" exitburst 200 1000 2>"$T/err"
cat "$T/err"
full=$(complete_at_depth "$T/h.folded")
check "--hold-exits: all 1000 burst stacks complete, 200 deep ($full)" [ "$full" -eq 1000 ]
"$PPROBE" record -e $P -g -o "$T/n.folded" -- "$W/unwind_wl" exitburst 200 1000 2>/dev/null
nfull=$(complete_at_depth "$T/n.folded")
echo "without --hold-exits: $nfull of $(folded_sum "$T/n.folded") complete"
check "without it most are lost with the process ($nfull complete)" [ "$nfull" -lt 900 ]

# Traced by pprobe itself only with --hold-exits (and DWARF stacks).
"$PPROBE" record -g --hold-exits -q -o "$T/x.folded" -- sh -c 'sed -n "s/^TracerPid:[[:space:]]*//p" /proc/$$/status; sleep 0.1' >"$T/tp" &
pp=$!
wait $pp
check "with --hold-exits the command's tracer is pprobe ($pp, got $(cat "$T/tp"))" [ "$(cat "$T/tp")" = "$pp" ]
"$PPROBE" record -g -q -o "$T/x.folded" -- sh -c 'sed -n "s/^TracerPid:[[:space:]]*//p" /proc/$$/status' >"$T/tp"
check "by default: not traced (got $(cat "$T/tp"))" [ "$(cat "$T/tp")" = 0 ]
"$PPROBE" record --call-graph fp --hold-exits -q -o "$T/x.folded" -- sh -c 'sed -n "s/^TracerPid:[[:space:]]*//p" /proc/$$/status' >"$T/tp"
check "fp stacks need no hold: not traced (got $(cat "$T/tp"))" [ "$(cat "$T/tp")" = 0 ]
H="-g --hold-exits"

# Signals reach the command's handlers; the command's exit status is pprobe's.
out=$("$PPROBE" record $H -q -o "$T/x.folded" -- sh -c 'trap "echo got-usr1" USR1; kill -USR1 $$; echo after')
check "a handled signal is delivered (got: $(echo $out))" [ "$(echo $out)" = "got-usr1 after" ]
"$PPROBE" record $H -q -o "$T/x.folded" -- sh -c 'kill -SEGV $$'
check "killed by SIGSEGV: status 139" [ $? -eq 139 ]
"$PPROBE" record $H -q -o "$T/x.folded" -- sh -c 'exit 7'
check "exit status 7" [ $? -eq 7 ]

# A stop and a continue from outside: the command stays stopped until
# SIGCONT (state T, or t: a group-stop seen by its tracer), then goes on.
"$PPROBE" record $H -q -o "$T/x.folded" -- sh -c 'echo $$ >'"$T"'/pid; kill -STOP $$; echo resumed' >"$T/out" &
pp=$!
for i in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
child=$(cat "$T/pid")
sleep 0.3
state=$(awk '{ print $3 }' /proc/$child/stat 2>/dev/null)
check "stopped command is stopped (state $state)" [ "$state" = T -o "$state" = t ]
check "and has not printed yet" [ ! -s "$T/out" ]
kill -CONT "$child"
for i in $(seq 50); do kill -0 $pp 2>/dev/null || break; sleep 0.1; done
wait $pp
st=$?
check "continued: it finished (status $st)" [ $st -eq 0 ]
check "continued: it printed 'resumed'" grep -qx resumed "$T/out"

# Forks, execs and threads of the command are held too, and finish.
"$PPROBE" record $H -q -o "$T/f.folded" -- sh -c 'i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i+1)); done; echo $i' >"$T/out"
st=$?
check "50 fork+exec children ran to the end (status $st, printed $(cat "$T/out"))" [ $st -eq 0 -a "$(cat "$T/out")" = 50 ]
"$PPROBE" record $H -q -o "$T/t.folded" -- "$W/unwind_wl" threads 10 1
st=$?
check "threads workload exits 0 (status $st)" [ $st -eq 0 ]
check "and its threads were sampled" [ "$(folded_sum "$T/t.folded" ';thread_main;')" -gt 0 ]

# Nothing left behind by a command that is stopped when pprobe is interrupted.
cp /bin/sleep "$T/sleep_hold"
"$PPROBE" record $H -q -o "$T/i.folded" -- "$T/sleep_hold" 60 &
pp=$!
sleep 0.5
kill -STOP "$(pgrep -f "$T/sleep_hold 60" | grep -v "^$pp$" | head -1)" 2>/dev/null
kill -INT $pp
for i in $(seq 50); do kill -0 $pp 2>/dev/null || break; sleep 0.1; done
check "pprobe stopped" not kill -0 $pp 2>/dev/null
wait $pp
check "no stopped child left behind" not pgrep -f "$T/sleep_hold"
done_testing
