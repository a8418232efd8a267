#!/bin/sh
# Guest script (busybox ash) for tests/e2e/vm_ftrace.sh: pprobe ftrace on
# Debian's 6.1 kernel (function and function_graph tracers; the host
# refuses them), with exact numbers:
#   -T '*sys_ptrace' -- ptracer N: exactly N + 3 __x64_sys_ptrace entries,
#        all under ptracer's comm and pid; --count says the same
#   -N removes a function -T matched
#   -G do_sys_openat2 -- cat /proc/version: do_sys_openat2() { ... } with
#        nested callees and durations, under cat's comm; -D 1 only the
#        function itself... -D 2 its direct callees, not theirs
#   -p PID: a running process's opens, counted exactly (--count)
#   the global tracing state (a function tracer already running at the top
#        level with its own filters, max_graph_depth, options, instances) is
#        exactly as before after every run: normal, SIGINT, SIGTERM, a closed
#        output pipe, kill -9 of pprobe (its guard process restores it)
#   -e 'kprobe:*sys_ptrace' sets one kprobe per matching function: exactly
#        N + 3 on __x64_sys_ptrace (a command; -a with a kretprobe glob);
#        globs matching over 64 or no functions, and -e ftrace:function, are
#        refused, saying why
#   usage: ftrace.sh [N]
. /vmtest/lib.sh

N=${1:-50}
M=3
W=$WORKLOADS/vmprobe_wl
P=$WORKLOADS/ptracer
T=/tmp/ftrace
mkdir -p $T
TARGET=$T/target
echo data >$TARGET
cd $TRACEFS || skip "no tracefs"
[ -x "$P" ] || skip "no workload $P in the guest"
grep -qw function available_tracers || skip "guest kernel has no function tracer"
grep -qw function_graph available_tracers || skip "guest kernel has no function_graph tracer"
not() { ! "$@"; }
step() { echo "--- $* (guest uptime $(cut -d' ' -f1 /proc/uptime) s)"; }

# The global state pprobe may touch, and some it must not: a function
# tracer already at work at the top level, with filters of its own.
echo function >current_tracer
echo vfs_read >set_ftrace_filter
echo vfs_write >>set_ftrace_filter
echo schedule >set_ftrace_notrace
echo 7 >max_graph_depth
echo 1 >options/funcgraph-abstime
echo 1 >tracing_on
snapshot() {
	for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace set_graph_function \
		set_graph_notrace set_ftrace_pid set_ftrace_notrace_pid max_graph_depth tracing_cpumask \
		buffer_size_kb; do
		echo "$f: $(tr '\n' ' ' <$f)"
	done
	for o in options/*; do echo "$o: $(cat $o)"; done
	echo "instances: $(ls instances | tr '\n' ' ')"
}
snapshot >$T/before
# same_state WHAT: the state is the one found at the start (a guard may
# still be at work after kill -9: give it a few seconds)
same_state() {
	_i=0
	while ! snapshot >$T/after || ! cmp -s $T/before $T/after; do
		_i=$((_i + 1))
		[ $_i -le 50 ] || break
		sleep 0.1
	done
	if cmp -s $T/before $T/after; then pass "$1: tracing state as found"; else
		fail "$1: tracing state changed:"; diff $T/before $T/after; fi
}
# running PID: pprobe PID has turned tracing on (its instance, or the top level)
running() {
	_i=0
	while [ $_i -lt 600 ]; do
		if [ -d instances/pprobe_ftrace_$1 ]; then
			[ "$(cat instances/pprobe_ftrace_$1/tracing_on 2>/dev/null)" = 1 ] &&
				[ "$(cat instances/pprobe_ftrace_$1/current_tracer 2>/dev/null)" != nop ] && return 0
		elif [ "$(cat current_tracer)" = function_graph ] && [ "$(cat tracing_on)" = 1 ]; then
			return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

step "1. functrace: -T '*sys_ptrace' -- ptracer $N"
pprobe ftrace -T '*sys_ptrace' -- $P $N >$T/ft.out 2>$T/ft.err
check "ftrace -T -- ptracer: exit 0 (the command's status)" test $? -eq 0
cat $T/ft.err
head -3 $T/ft.out
PPID_=$(sed -n 's/^ptracer: pid \([0-9]*\) .*/\1/p' $T/ft.err)
check_eq "__x64_sys_ptrace hits under ptracer-$PPID_" $((N + 3)) \
	"$(grep -c "^ *ptracer-$PPID_ .* __x64_sys_ptrace <-" $T/ft.out)"
check_eq "lines in all (only the command and what it forks is traced)" $((N + 3)) "$(grep -c . $T/ft.out)"
same_state "ftrace -T"

pprobe ftrace -T '*sys_ptrace' --count -- $P $N >$T/count.out 2>$T/count.err
check "ftrace --count: exit 0" test $? -eq 0
cat $T/count.out
check_eq "--count: __x64_sys_ptrace" $((N + 3)) "$(awk '$1 == "__x64_sys_ptrace" { print $2 }' $T/count.out)"
check_eq "--count: the header" "FUNC COUNT" "$(head -1 $T/count.out | tr -s ' ')"

pprobe ftrace -T '*sys_ptrace' -T do_sys_openat2 -N do_sys_openat2 -- sh -c "cat $TARGET; $P 3" \
	>$T/notrace.out 2>/dev/null
check_eq "-N: do_sys_openat2 left out" 0 "$(grep -c do_sys_openat2 $T/notrace.out)"
check_eq "-N: the other functions stay (a forked and exec'd child's)" 6 \
	"$(grep -c '__x64_sys_ptrace <-' $T/notrace.out)"
pprobe ftrace -T do_sys_openat2 --count -- sh -c "cat $TARGET" >$T/withopen.out 2>/dev/null
check "without -N: do_sys_openat2 is there (sh's and cat's opens)" \
	test "$(awk '$1 == "do_sys_openat2" { print $2 }' $T/withopen.out)" -gt 0
same_state "ftrace -N"

step "2. function_graph: -G do_sys_openat2 -- cat /proc/version"
pprobe ftrace -m 8192 -G do_sys_openat2 -- cat /proc/version >$T/fg.out 2>$T/fg.err
check "ftrace -G -- cat: exit 0" test $? -eq 0
cat $T/fg.err
head -12 $T/fg.out
check "the command's own output passes" grep -q "^Linux version" $T/fg.out
# (options/funcgraph-abstime, set before, puts the time first: the user's display options stay)
check "do_sys_openat2() { under cat's comm" grep -q "[0-9]) *cat-[0-9]* *| *| *do_sys_openat2() {" $T/fg.out
check "a nested callee with its duration: FUNC();" \
	grep -Eq "[0-9]\) +cat-[0-9]+ +\| +[+!#*@\$]? *[0-9.]+ us +\|     +[a-z_0-9.]+\(\);" $T/fg.out
check "the closing brace with the duration" grep -q "| *[+!#*@$]* *[0-9.]* us *| *}$" $T/fg.out
check "nothing lost" not grep -q LOST $T/fg.out
same_state "ftrace -G"

# Under TCG every kernel call through the graph tracer costs: from here on
# -T keeps it to a few functions (set_ftrace_filter applies to both tracers)
G="-G do_sys_openat2 -T do_sys_openat2 -T getname -T getname_flags* -T do_filp_open -T path_openat"
pprobe ftrace $G -D 2 -- cat /proc/version >$T/d2.out 2>/dev/null
check "-D 2: its callees (getname)" grep -q "getname();" $T/d2.out
check "-D 2: no grandchildren (getname_flags, path_openat)" not grep -q "getname_flags\|path_openat" $T/d2.out
pprobe ftrace $G -- cat /proc/version >$T/d0.out 2>/dev/null
check "without -D: the grandchildren are there (path_openat)" grep -q "path_openat" $T/d0.out
same_state "ftrace -D"

step "3. -p PID: a running process"
mkfifo $T/go
$W -w open $N $M $TARGET <$T/go >$T/wl.out &
wpid=$!
exec 8>$T/go
i=0
while [ "$(readlink /proc/$wpid/exe)" != "$W" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
pprobe ftrace -T do_sys_openat2 --count -p $wpid >$T/p.out 2>$T/p.err &
fpid=$!
check "ftrace -p is tracing" running $fpid
echo go >&8
exec 8>&-
wait $wpid
check "the workload succeeds" test $? -eq 0
wait $fpid
check "ftrace -p ends with its process, exit 0" test $? -eq 0
cat $T/p.out $T/p.err
check_eq "-p: do_sys_openat2 of the workload" $((N + M)) "$(awk '$1 == "do_sys_openat2" { print $2 }' $T/p.out)"
same_state "ftrace -p"

step "4. exits: SIGINT, SIGTERM, kill -9, a closed pipe"
for how in INT TERM KILL; do
	for mode in "$G" "-T vfs_read"; do
		[ $how = TERM ] && [ "$mode" = "$G" ] && continue
		pprobe ftrace -a $mode >/dev/null 2>$T/sig.err &
		fpid=$!
		what=$( [ "$mode" = "$G" ] && echo "-G" || echo "$mode")
		check "ftrace -a $what is tracing" running $fpid
		kill -$how $fpid
		wait $fpid
		rc=$?
		[ $how = KILL ] || check "SIG$how: exit 0 (status $rc)" test $rc -eq 0
		same_state "SIG$how of ftrace -a $what"
	done
done
# A closed output pipe ends the run at once (-a and a command). Something to
# trace: ptracer's PEEKDATA loop, long enough to outlast the pipe.
$P 100000000 2>/dev/null &
rpid=$!
# (ash has no PIPESTATUS: pprobe's status goes to a file)
{ pprobe ftrace -a -T '*sys_ptrace' 2>$T/pipe.err; echo $? >$T/pipe.st; } | head -1 >$T/pipe.out
check_eq "-a | head -1: one line" 1 "$(grep -c '__x64_sys_ptrace <-' $T/pipe.out)"
check_eq "-a | head -1: dies of SIGPIPE, as a filter" 141 "$(cat $T/pipe.st)"
check_eq "-a | head -1: nothing said on stderr" "" "$(cat $T/pipe.err)"
kill $rpid
{ pprobe ftrace -T '*sys_ptrace' -- $P 100000000 2>$T/pipe.err; echo $? >$T/pipe.st; } | head -1 >$T/pipe.out
check_eq "-- ptracer | head -1: one line" 1 "$(grep -c '__x64_sys_ptrace <-' $T/pipe.out)"
check_eq "-- ptracer | head -1: dies of SIGPIPE, as a filter" 141 "$(cat $T/pipe.st)"
check_eq "-- ptracer | head -1: nothing said on stderr" "" "$(cat $T/pipe.err)"
# the command is let go, not killed: it runs on, untraced
check "-- ptracer | head -1: the command runs on after pprobe" pidof ptracer
# (ptracer's children wait stopped for a parent that is gone)
kill -9 $(pidof ptracer) 2>/dev/null
same_state "a closed output pipe"

step "5. refusals"
# Kernel probe globs: one kprobe per matching function (command: temporary
# tracefs probes; -a: the kprobe PMU), exact counts; too many, or none, refused.
pprobe stat -x, -e 'kprobe:*sys_ptrace' -o $T/kg.csv -- $P $N 2>$T/kg.err
check "stat -e 'kprobe:*sys_ptrace' -- ptracer: exit 0 (status $?)" test $? -eq 0
cat $T/kg.csv
check_eq "kprobe glob: kprobe:__x64_sys_ptrace" $((N + 3)) \
	"$(awk -F, '$3 == "kprobe:__x64_sys_ptrace" { print $1 }' $T/kg.csv)"
check_eq "kprobe glob: every function that matches, once" \
	"$(sed 's/[ \t].*//' available_filter_functions | grep 'sys_ptrace$' | sort -u | tr '\n' ' ')" \
	"$(awk -F, '$3 ~ /^kprobe:/ { sub(/^kprobe:/, "", $3); print $3 }' $T/kg.csv | sort | tr '\n' ' ')"
check_eq "kprobe glob: all of them together" $((N + 3)) \
	"$(awk -F, '$3 ~ /^kprobe:/ { n += $1 } END { print n }' $T/kg.csv)"
pprobe stat -x, -a -e 'kretprobe:__x64_sys_ptr*' -o $T/kga.csv -- $P $N 2>/dev/null
cat $T/kga.csv
check_eq "kretprobe glob -a (the kprobe PMU): kretprobe:__x64_sys_ptrace" $((N + 3)) \
	"$(awk -F, '$3 == "kretprobe:__x64_sys_ptrace" { print $1 }' $T/kga.csv)"
pprobe stat -e 'kprobe:vfs_*' -- true >$T/glob.out 2>&1
check "-e 'kprobe:vfs_*' (too many) refused (status $?)" test $? -ne 0
cat $T/glob.out
check "it says how many and the cap" grep -q "matches [0-9]* kernel functions, more than the 64" $T/glob.out
pprobe stat -e 'kprobe:no_such_fn_xyz*' -- true >$T/glob0.out 2>&1
cat $T/glob0.out
check "-e 'kprobe:no_such_fn_xyz*' refused, saying none matches" \
	grep -q "no kernel function that kprobes can take matches" $T/glob0.out
check_eq "no temporary kprobe left" "" "$(cat kprobe_events)"
check_eq "no kprobe registered" "" "$(cat /sys/kernel/debug/kprobes/list 2>/dev/null)"
pprobe stat -e ftrace:function -- true >$T/ff.out 2>&1
check "-e ftrace:function refused" grep -q "use\|pprobe ftrace" $T/ff.out
pprobe ftrace -T no_such_function_xyz -- true >$T/nf.out 2>&1
check "a filter that matches nothing: exit 1 (status $?)" test $? -eq 1
cat $T/nf.out
check "it says no function matches" grep -q "no kernel function matches 'no_such_function_xyz'" $T/nf.out
same_state "refusals"

check_eq "no pprobe process left" "" "$(pidof pprobe pprobe-ftguard)"
echo nop >current_tracer
done_testing
