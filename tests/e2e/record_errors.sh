#!/usr/bin/env bash
# Every error: a clear message, the right status, and nothing left behind.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS
cd "$T"

expect() {	# expect DESC STATUS REGEX -- pprobe args...
	local desc=$1 status=$2 re=$3; shift 4
	"$PPROBE" "$@" >"$T/out" 2>"$T/err"
	local st=$?
	if [ $st -ne "$status" ]; then fail "$desc: status $st, expected $status ($(head -c 300 "$T/err"))"; return; fi
	if ! grep -Eq "$re" "$T/err"; then fail "$desc: message '$(head -c 300 "$T/err")' does not match /$re/"; return; fi
	pass "$desc"
}

expect "unknown event" 2 "unknown event 'cpu-clok'" -- record -e cpu-clok -o o.folded -- true
expect "command not found" 127 "cannot run 'no-such-cmd-xyz'" -- record -o o.folded -- no-such-cmd-xyz
expect "no such pid" 1 "no such process: 999999" -- record -p 999999 -o o.folded
expect "no such tid" 1 "no such thread: 999999" -- record -t 999999 -o o.folded
expect "bad -m" 2 "power of two" -- record -m 3 -o o.folded -- true
expect "bad -F" 2 "bad frequency" -- record -F abc -o o.folded -- true
expect "-F and -c" 2 "exclude each other" -- record -F 99 -c 5 -o o.folded -- true
expect "nothing to record" 2 "nothing to record" -- record -o o.folded
expect "bad cpu" 2 "not online" -- record -C 999 -o o.folded -- true
expect "several events to stdout" 2 "one file each" -- record -e cpu-clock,task-clock -o - -- true
expect "unwritable output" 1 "cannot write /nonexistent-dir/o.folded" -- record -o /nonexistent-dir/o.folded -- true
check "no output file after the errors" [ ! -e o.folded ]
check "no temporary files" [ -z "$(ls -A "$T" | grep -v '^out$\|^err$')" ]
done_testing
