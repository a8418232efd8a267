#!/usr/bin/env bash
# Streaming commands and a closed output pipe (issue 13): trace, stat -I and
# record -o - stop promptly when their reader goes away, die of SIGPIPE as a
# filter does (status 141), leave no probe behind, and let a traced command
# run on to its own end, untouched. record -o - keeps the command's stdout
# out of the folded stacks.
. "$(dirname "$0")/lib.sh"
need_root
TFS=/sys/kernel/tracing
mountpoint -q $TFS || mount -t tracefs nodev $TFS 2>/dev/null
LIBC=$(ldconfig -p | awk '$1 == "libc.so.6" && /x86-64/ { print $NF; exit }')
[ -n "$LIBC" ] || skip "no x86-64 libc.so.6 in ldconfig's cache"
state() { cat $TFS/uprobe_events $TFS/dynamic_events 2>/dev/null; ls $TFS/instances; }
state >"$T/state.before"

# elapsed SECONDS-START: seconds since then, as a decimal
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }'; }
# prompt DESC SECS START: pprobe was gone within SECS of START
prompt() { local e; e=$(elapsed "$3"); check "$1: exits in ${e}s (< $2 s)" awk -v e="$e" -v l="$2" 'BEGIN { exit !(e < l) }'; }

# 1. trace -a | head -1: one line, then out (timeout's 124 would mean it hung).
s=$(date +%s.%N)
timeout 30 "$PPROBE" trace -a -e sched:sched_switch 2>"$T/t.err" | head -1 >"$T/t.out"
st=("${PIPESTATUS[@]}")
check_st() { check "$1: status $2 (got $3)" [ "$3" = "$2" ]; }
check_st "trace -a | head -1" 141 "${st[0]}"
prompt "trace -a | head -1" 10 "$s"
check "trace -a | head -1: the line" grep -q 'sched:sched_switch:' "$T/t.out"
check "trace -a | head -1: nothing said on stderr" [ ! -s "$T/t.err" ]

# 2. stat -I (its counts go to stderr, as perf stat's) into a closed pipe.
s=$(date +%s.%N)
timeout 30 "$PPROBE" stat -I 100 -a -e cpu-clock 2>&1 | head -1 >"$T/s.out"
st=("${PIPESTATUS[@]}")
check_st "stat -I 100 2>&1 | head -1" 141 "${st[0]}"
prompt "stat -I | head -1" 10 "$s"
check "stat -I | head -1: one interval" grep -qE '^ +0\.1[0-9]+ +[0-9.,]+ +msec cpu-clock' "$T/s.out"

# 3. record -o - whose reader is gone before anything is written: record stops
#    at once (it writes only at the end; it watches the pipe meanwhile).
s=$(date +%s.%N)
timeout 30 "$PPROBE" record -a -o - 2>"$T/r.err" | true
st=("${PIPESTATUS[@]}")
check_st "record -a -o - | true" 141 "${st[0]}"
prompt "record -a -o - | true" 10 "$s"
check "record -o - | true: no pprobe.folded made" [ ! -e pprobe.folded ]

# 4. A traced command (it forks, execs and starts threads) whose trace pipe
#    closes: pprobe goes at once, removes its uprobe, and the command runs on
#    to its end, as it would have without pprobe (its own stdout is not that
#    pipe here). The uprobe on a command is a tracefs probe (it follows the
#    command's children): the case where something is left to remove.
rm -f "$T/marker"
s=$(date +%s.%N)
timeout 30 "$PPROBE" trace -e "uprobe:$LIBC:malloc" -- sh -c \
	"\"$WORKLOADS/wl_record\" threads 2 0.3 >/dev/null 2>&1; /bin/true; sleep 2; echo finished >\"$T/marker\"" \
	2>"$T/c.err" | head -1 >"$T/c.out"
st=("${PIPESTATUS[@]}")
check_st "trace -- cmd | head -1" 141 "${st[0]}"
prompt "trace -- cmd | head -1 (the command sleeps 2 s)" 1.9 "$s"
check "trace -- cmd | head -1: a malloc line" grep -q 'malloc' "$T/c.out"
state >"$T/state.after"
check "trace -- cmd | head -1: no uprobe or instance left" cmp -s "$T/state.before" "$T/state.after"
for i in $(seq 50); do [ -s "$T/marker" ] && break; sleep 0.1; done
check "trace -- cmd | head -1: the command ran on to its end" grep -qx finished "$T/marker"

# 5. The same with record -g (the command is ptrace-seized for its exits):
#    the command is released, not killed.
rm -f "$T/marker"
timeout 30 "$PPROBE" record -g -o - -- sh -c "sleep 1; echo finished >\"$T/marker\"" 2>/dev/null | true
st=("${PIPESTATUS[@]}")
check_st "record -g -o - -- cmd | true" 141 "${st[0]}"
cmdpid=$(pgrep -f "echo finished >.$T/marker" | head -1)
check "record -g -o - -- cmd | true: the command still runs" [ -n "$cmdpid" ]
check "record -g -o - -- cmd | true: ... untraced (TracerPid 0)" \
	grep -qE '^TracerPid:[[:space:]]+0$' "/proc/${cmdpid:-0}/status"
for i in $(seq 50); do [ -s "$T/marker" ] && break; sleep 0.1; done
check "record -g -o - -- cmd | true: the command ran on to its end" grep -qx finished "$T/marker"

# 6. record -o - -- cmd: the command's stdout goes to stderr, not into the
#    stacks (it printed 'done 500' once, which became a root frame).
"$PPROBE" record -o - -- sh -c "echo done 500; \"$WORKLOADS/wl_record\" threads 2 0.3 >/dev/null; echo done 7; exit 3" \
	>"$T/f.folded" 2>"$T/f.err"
check "record -o - -- cmd: the command's status (3)" [ $? -eq 3 ]
check "record -o - -- cmd: folded lines only on stdout" not grep -qvE '^[^ ].* [0-9]+$' "$T/f.folded"
check "record -o - -- cmd: no 'done' line in the stacks" not grep -q '^done' "$T/f.folded"
check "record -o - -- cmd: stacks of the command" grep -q '^wl_record' "$T/f.folded"
check "record -o - -- cmd: the command's output on stderr" grep -qx 'done 500' "$T/f.err"
check "record -o - -- cmd: all of it, in order" [ "$(grep -x 'done [0-9]*' "$T/f.err" | tr '\n' ' ')" = "done 500 done 7 " ]

state >"$T/state.end"
check "nothing left in tracefs" cmp -s "$T/state.before" "$T/state.end"
done_testing
