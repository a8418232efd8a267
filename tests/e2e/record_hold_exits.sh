#!/usr/bin/env bash
# record -g holds the command's exiting threads (ptrace exit-stops) until
# their last samples are unwound. The command must not notice otherwise:
# signals, stops and continues, exit statuses, forks and threads behave as
# without pprobe; --no-hold-exits leaves it untraced (a debugger can attach).
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS

# Traced by pprobe itself with DWARF stacks; untraced with --no-hold-exits or fp.
"$PPROBE" record -g -q -o "$T/x.folded" -- sh -c 'sed -n "s/^TracerPid:[[:space:]]*//p" /proc/$$/status; sleep 0.1' >"$T/tp" &
pp=$!
wait $pp
check "with -g the command's tracer is pprobe ($pp, got $(cat "$T/tp"))" [ "$(cat "$T/tp")" = "$pp" ]
"$PPROBE" record -g --no-hold-exits -q -o "$T/x.folded" -- sh -c 'sed -n "s/^TracerPid:[[:space:]]*//p" /proc/$$/status' >"$T/tp"
check "--no-hold-exits: not traced (got $(cat "$T/tp"))" [ "$(cat "$T/tp")" = 0 ]
"$PPROBE" record --call-graph fp -q -o "$T/x.folded" -- sh -c 'sed -n "s/^TracerPid:[[:space:]]*//p" /proc/$$/status' >"$T/tp"
check "fp stacks need no hold: not traced (got $(cat "$T/tp"))" [ "$(cat "$T/tp")" = 0 ]

# Signals reach the command's handlers; the command's exit status is pprobe's.
out=$("$PPROBE" record -g -q -o "$T/x.folded" -- sh -c 'trap "echo got-usr1" USR1; kill -USR1 $$; echo after')
check "a handled signal is delivered (got: $(echo $out))" [ "$(echo $out)" = "got-usr1 after" ]
"$PPROBE" record -g -q -o "$T/x.folded" -- sh -c 'kill -SEGV $$'
check "killed by SIGSEGV: status 139" [ $? -eq 139 ]
"$PPROBE" record -g -q -o "$T/x.folded" -- sh -c 'exit 7'
check "exit status 7" [ $? -eq 7 ]

# A stop and a continue from outside: the command stays stopped until
# SIGCONT (state T, or t: a group-stop seen by its tracer), then goes on.
"$PPROBE" record -g -q -o "$T/x.folded" -- sh -c 'echo $$ >'"$T"'/pid; kill -STOP $$; echo resumed' >"$T/out" &
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
"$PPROBE" record -g -q -o "$T/f.folded" -- sh -c 'i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i+1)); done; echo $i' >"$T/out"
st=$?
check "50 fork+exec children ran to the end (status $st, printed $(cat "$T/out"))" [ $st -eq 0 -a "$(cat "$T/out")" = 50 ]
"$PPROBE" record -g -q -o "$T/t.folded" -- "$W/unwind_wl" threads 10 1
st=$?
check "threads workload exits 0 (status $st)" [ $st -eq 0 ]
check "and its threads were sampled" [ "$(folded_sum "$T/t.folded" ';thread_main;')" -gt 0 ]

# Nothing left behind by a command that is stopped when pprobe is interrupted.
cp /bin/sleep "$T/sleep_hold"
"$PPROBE" record -g -q -o "$T/i.folded" -- "$T/sleep_hold" 60 &
pp=$!
sleep 0.5
kill -STOP "$(pgrep -f "$T/sleep_hold 60" | grep -v "^$pp$" | head -1)" 2>/dev/null
kill -INT $pp
for i in $(seq 50); do kill -0 $pp 2>/dev/null || break; sleep 0.1; done
check "pprobe stopped" not kill -0 $pp 2>/dev/null
wait $pp
check "no stopped child left behind" not pgrep -f "$T/sleep_hold"
done_testing
