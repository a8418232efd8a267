#!/usr/bin/env bash
# pprobe ftrace on this machine's kernel, and what -e says about ftrace:* and
# kernel probe globs. Where the kernel refuses the function tracer (this
# host: every function-tracer file of tracefs gives EPERM to root), pprobe
# says what was refused and why in one line, exits 1, does not run the
# command and leaves tracefs exactly as found (no instance); where the kernel
# allows it, the functrace case counts exactly. Usage errors: one line, exit
# 2. The tracers themselves are tested in the VM (tests/e2e/vm_ftrace.sh).
. "$(dirname "$0")/lib.sh"
need_root
P=$WORKLOADS/ptracer
[ -x "$P" ] || skip "no workload $P"
"$PPROBE" list >/dev/null 2>&1	# mounts tracefs if it is not
TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$TR" ] || skip "no tracefs mounted"

# What pprobe could change: every readable setting of the top level, and
# the instances (other engineers' tests may make instances of their own:
# only pprobe_ftrace_* count).
state() {
	local f
	for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace set_graph_function \
		set_graph_notrace set_ftrace_pid set_ftrace_notrace_pid max_graph_depth tracing_cpumask \
		buffer_size_kb options/*; do
		[ -e "$TR/$f" ] || continue
		echo "$f: $(tr '\n' ' ' <"$TR/$f" 2>&1)"
	done
	ls "$TR/instances" | grep '^pprobe_ftrace_' || true
}
state >"$T/before"
same_state() {
	state >"$T/after"
	if cmp -s "$T/before" "$T/after"; then pass "$1: tracefs as found"; else
		fail "$1: tracefs changed: $(diff "$T/before" "$T/after" | tr '\n' ' ')"; fi
}

N=20
"$PPROBE" ftrace -T '*sys_ptrace' -- "$P" $N >"$T/ft.out" 2>"$T/ft.err"
rc=$?
cat "$T/ft.err"
if grep -q "refuses the function tracer" "$T/ft.err"; then
	check "refused: exit 1 (status $rc)" [ $rc -eq 1 ]
	check "refused: one line on stderr" [ "$(wc -l <"$T/ft.err")" -eq 1 ]
	check "refused: it says what (a function tracer file) and why (EPERM)" \
		grep -q "reading $TR/set_ftrace_[a-z_]*: Operation not permitted" "$T/ft.err"
	check "refused: and who refuses (lockdown or a security module)" grep -q "lockdown" "$T/ft.err"
	check "refused: the command did not run" not grep -q "^ptracer:" "$T/ft.err"
	check "refused: nothing on stdout" [ ! -s "$T/ft.out" ]
	"$PPROBE" ftrace -T vfs_read --count -a -d 1 >"$T/c.out" 2>"$T/c.err"
	check "refused: --count -a too (status $?)" grep -q "refuses the function tracer" "$T/c.err"
else
	check "ftrace -T -- ptracer: exit 0 (status $rc)" [ $rc -eq 0 ]
	pid=$(sed -n 's/^ptracer: pid \([0-9]*\) .*/\1/p' "$T/ft.err")
	check "N + 3 hits under ptracer-$pid" \
		[ "$(grep -c "^ *ptracer-$pid .* __x64_sys_ptrace <-" "$T/ft.out")" -eq $((N + 3)) ]
fi
same_state "ftrace -T"

if ! grep -qw function_graph "$TR/available_tracers"; then
	"$PPROBE" ftrace -G do_sys_openat2 -- "$P" 1 >"$T/g.out" 2>"$T/g.err"
	rc=$?
	cat "$T/g.err"
	check "no function_graph here: exit 1 (status $rc)" [ $rc -eq 1 ]
	check "no function_graph here: it says so, with the tracers there are" \
		grep -q "this kernel has no function_graph tracer (available_tracers: .*function" "$T/g.err"
	check "no function_graph here: the command did not run" not grep -q "^ptracer:" "$T/g.err"
	same_state "ftrace -G"
fi

# Usage errors: one line pointing at --help, exit 2, nothing run or made.
bad() {
	local desc=$1 re=$2; shift 2
	"$PPROBE" "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc -ne 2 ]; then fail "$desc: exit $rc, not 2 ($(head -c 300 "$T/err"))"
	elif [ "$(wc -l <"$T/err")" -ne 1 ]; then fail "$desc: not one line: $(cat "$T/err")"
	elif [ -s "$T/out" ]; then fail "$desc: wrote to stdout"
	elif ! grep -Eq -- "$re" "$T/err"; then fail "$desc: '$(cat "$T/err")' does not match /$re/"
	else pass "$desc"; fi
}
bad "ftrace -D 0" "^pprobe ftrace: -D wants a depth >= 1" ftrace -G x -D 0 -- "$P" 1
bad "ftrace --tracer nope" "--tracer is 'function' or 'function_graph'" ftrace --tracer nope -- "$P" 1
bad "ftrace -p and -a" "-p and -a exclude each other" ftrace -p 1 -a
bad "ftrace -p and a command" "either -p PID or a command" ftrace -p 1 -- "$P" 1
bad "ftrace --tracer function -G" "-G, -g and -D go with the function_graph tracer" \
	ftrace --tracer function -G do_sys_openat2 -- "$P" 1
bad "ftrace -C x" "bad CPU list 'x'" ftrace -C x -- "$P" 1
same_state "usage errors"

# -e ftrace:function (the function tracer's record format) is not an event.
for c in stat trace record; do
	bad "$c -e ftrace:function" "'ftrace:function' is the record format of an ftrace tracer.*pprobe ftrace -T" \
		$c -e ftrace:function -- "$P" 1
done
# Kernel probe globs without kprobes: refused, saying so.
# (Where kprobes exist a glob sets one per function: tests/vm/ftrace.sh.)
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	bad "stat -e 'kprobe:*ptrace*' (no kprobes)" "'kprobe:\*ptrace\*': this kernel has no kprobes" \
		stat -e 'kprobe:*ptrace*' -- "$P" 1
	bad "trace -e 'kretprobe:*ptrace' (no kprobes)" "this kernel has no kprobes" \
		trace -e 'kretprobe:*ptrace' -- "$P" 1
fi
same_state "refusals"
done_testing
