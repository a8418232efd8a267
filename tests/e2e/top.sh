#!/usr/bin/env bash
# pprobe top without a terminal: a plain table per refresh (-n, -d), the
# last one at the end, the same shares as record + report of the same
# workload, -z, exit statuses, a stop signal, and bad input in one line.
# The full-screen view is tests/e2e/top_tmux.sh.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS

# -n 2: two tables, no final one; hot_three (3 units for hot_one's 1) has
# the most self, about three times hot_one's.
"$PPROBE" top -g -n 2 -d 1 -- "$W/wl_record" hot 8 >"$T/two" 2>"$T/two.err"
st=$?
check "-n 2: exit 0 ($(tail -1 "$T/two.err"))" [ $st -eq 0 ]
check "-n 2: two tables, each under its refresh line" \
	[ "$(grep -c '^# pprobe top: refresh: [0-9]* samples of cpu-clock (999 Hz), [0-9]* lost, ' "$T/two")" -eq 2 ]
check "-n 2: no final table" not grep -q '^# pprobe top: final' "$T/two"
check "-g: Children and Self columns, as report" grep -q '^# Children        Self  Shared Object' "$T/two"
# the last table's rows by self: SYMBOL SELF
awk '/^# pprobe top:/ { n++ } n == 2 && $1 ~ /%$/ && $2 ~ /%$/ { sub(/%/, "", $2); print $NF, $2 }' "$T/two" |
	sort -k2,2 -rn >"$T/self"
echo "self: $(head -3 "$T/self" | tr '\n' ' ')"
check "the most self: hot_three" [ "$(head -1 "$T/self" | cut -d' ' -f1)" = hot_three ]
check "hot_three's self 2 to 4.5 times hot_one's" awk '$1 == "hot_three" { a = $2 } $1 == "hot_one" { b = $2 }
	END { exit !(b > 0 && a / b >= 2 && a / b <= 4.5) }' "$T/self"
check "main's Children about 100%" awk '/^# pprobe top:/ { n++ } n == 2 && $NF == "main" { sub(/%/, "", $1); ok = $1 + 0 >= 95 } END { exit !ok }' "$T/two"

# The same workload through record and report: the same function on top of
# the self column (top's table is report's, its samples record's).
"$PPROBE" record -g -o "$T/rec.folded" -- "$W/wl_record" hot 2 2>/dev/null
"$PPROBE" report --no-children "$T/rec.folded" >"$T/rep"
"$PPROBE" top -g --no-children -n 1 -d 1.5 -- "$W/wl_record" hot 3 >"$T/one" 2>/dev/null
rep_top=$(awk '$1 ~ /%$/ { print $NF; exit }' "$T/rep")
top_top=$(awk '$1 ~ /%$/ { print $NF; exit }' "$T/one")
check "--no-children: top's first row is report's ($top_top, $rep_top)" [ "$top_top" = hot_three -a "$rep_top" = hot_three ]
check "--no-children: the Overhead column alone" grep -q '^# Overhead  Shared Object' "$T/one"

# A command that ends before the first refresh: the final table; top exits
# as the command did.
"$PPROBE" top -d 10 -- "$W/wl_record" hot 0.5 >"$T/final" 2>/dev/null
st=$?
check "the command ends first: exit 0, one final table" \
	[ $st -eq 0 -a "$(grep -c '^# pprobe top: ' "$T/final")" -eq 1 -a "$(grep -c '^# pprobe top: final: ' "$T/final")" -eq 1 ]
check "the final table has hot_three" grep -q 'hot_three$' "$T/final"
"$PPROBE" top -d 10 -- sh -c 'exit 3' >/dev/null 2>&1
check "the command's exit status (3)" [ $? -eq 3 ]
"$PPROBE" top -d 10 -- "$T/no-such-command" >/dev/null 2>"$T/nocmd"
check "a command not found: 127, one line" [ $? -eq 127 -a "$(wc -l <"$T/nocmd")" -eq 1 ]

# -z: each table counts its own interval (about 500 samples in 0.5 s at 999 Hz)
"$PPROBE" top -z -n 3 -d 0.5 -- "$W/wl_record" hot 5 >"$T/z" 2>/dev/null
awk '/^# pprobe top: refresh: / { print $5 }' "$T/z" >"$T/zn"
echo "-z samples: $(tr '\n' ' ' <"$T/zn")"
check "-z: three tables, since the last refresh" [ "$(grep -c 'since the last refresh$' "$T/z")" -eq 3 ]
check "-z: each of 150 to 800 samples" awk '{ n++; if ($1 < 150 || $1 > 800) bad = 1 } END { exit !(n == 3 && !bad) }' "$T/zn"

# -p: an existing process, until it exits (the final table); --sort pid
"$W/wl_record" hot 1.5 >/dev/null & bg=$!
sleep 0.3
"$PPROBE" top -p $bg --sort pid,sym -d 10 >"$T/pid" 2>/dev/null
st=$?
wait $bg
check "-p: exit 0 when the process ends" [ $st -eq 0 ]
check "-p --sort pid,sym: the pid column holds $bg" grep -qE "^ +[0-9.]+%  $bg +\[\.\] hot_three$" "$T/pid"

# SIGINT: the run stops, the last table is printed, the command is ended.
"$PPROBE" top -d 10 -- "$W/wl_record" hot 30 >"$T/int" 2>"$T/int.err" & tp=$!
sleep 2
wl=$(pgrep -P $tp -x wl_record)
kill -INT $tp
reap $tp
check "SIGINT: the final table, with hot_three" grep -q 'hot_three$' "$T/int"
check "SIGINT: the command is gone" not alive "${wl:-0}"

# Bad input: one line, non-zero, nothing on stdout, no command run.
bad() {	# bad DESC STATUS REGEX ARGS...
	local d=$1 want=$2 re=$3; shift 3
	"$PPROBE" top "$@" >"$T/bad.out" 2>"$T/bad.err"
	local st=$?
	if [ $st -ne "$want" ]; then fail "$d: exit $st, not $want: $(head -c 300 "$T/bad.err")"
	elif [ "$(wc -l <"$T/bad.err")" -ne 1 ]; then fail "$d: not one line: $(head -c 300 "$T/bad.err")"
	elif [ -s "$T/bad.out" ]; then fail "$d: wrote to stdout"
	elif ! grep -Eq -- "$re" "$T/bad.err"; then fail "$d: '$(cat "$T/bad.err")' does not match /$re/"
	else pass "$d"; fi
}
bad "unknown option" 2 "^pprobe top: unknown option '--bogus'" --bogus -- "$W/wl_record" hot 5
bad "-d not a number" 2 "^pprobe top: bad duration 'x'" -d x
bad "-n 0" 2 "^pprobe top: -n wants a positive whole number" -n 0
bad "--sort with an unknown key" 2 "^pprobe top: --sort: unknown or repeated key 'cpu'" --sort cpu
bad "two -e" 2 "^pprobe top: one -e" -e cpu-clock -e task-clock
bad "-p and -t" 2 "^pprobe top: give either -p or -t" -p 1 -t 1
bad "--percent-limit 200" 2 "^pprobe top: --percent-limit wants" --percent-limit 200
bad "a pid that does not exist" 1 "no such process: 999999999" -p 999999999
check "bad input ran no command" not pgrep -f "$W/wl_record hot 5"

done_testing
