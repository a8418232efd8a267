#!/usr/bin/env bash
# pprobe --add / -l / -d (perf probe's persistent tracefs probes): the values
# trace prints equal what the workload passed, on every call, at -O0 and
# -O2; %return with $retval; perf's -l format; -d globs; errors with exact
# messages and exit status, each leaving uprobe_events as it was.
. "$(dirname "$0")/lib.sh"
need_root
TR=/sys/kernel/tracing
[ -w $TR/uprobe_events ] || skip "no writable $TR/uprobe_events (kernel without CONFIG_UPROBE_EVENTS?)"
G=probe_probeadd	# perf's group for probeadd_server_*: "probe_" + the name up to its first '_'
N=7
PATHS=(/index.html /api/v1/users /favicon.ico)

# The probe lines of our groups and workloads (other tests may use other groups meanwhile).
ours() { grep -E "^[pr][0-9]*:($G|pprobe_[0-9]+)/|probeadd_server" $TR/uprobe_events; }
cleanup() { ours | sed -E 's/^[pr][0-9]*:([^ ]+) .*/-:\1/' | while read -r l; do echo "$l" >>$TR/uprobe_events; done; }
trap 'cleanup; rm -rf "$T"' EXIT
cleanup
check "no probes of ours at the start" [ -z "$(ours)" ]

# expected values of request i (see tests/workloads/probeadd_server.c)
expect_entry() {
	for ((i = 0; i < N; i++)); do
		p=${PATHS[i % 3]}
		printf 'path="%s" len=%d id=%d minor=%d\n' "$p" ${#p} $((1000 + i)) $((i % 2))
	done
}
expect_ret() {
	for ((i = 0; i < N; i++)); do
		p=${PATHS[i % 3]}
		printf 'arg1=%d\n' $((${#p} * 2 + i % 4))
	done
}
# trace's lines of one event, fields after the probe address
fields() { grep -F " $1: " "$2" | sed -E 's/.*: __probe_(ip|func)=0x[0-9a-f]+( __probe_ret_ip=0x[0-9a-f]+)? ?//'; }

for opt in O0 O2; do
	bin=$WORKLOADS/probeadd_server_$opt
	real=$(realpath "$bin")
	# raw fetch-args: at the entry, before any prologue, the ABI registers
	"$PPROBE" -x "$bin" --add 'handle path=+0(+0(%di)):string len=%si:s32 id=+16(%di):s64 minor=+28(%di):s32' \
		>"$T/out" 2>"$T/err"
	check "$opt: --add exits 0" [ $? -eq 0 ]
	printf 'Added new event:\n  %s (on handle in %s with path=+0(+0(%%di)):string len=%%si:s32 id=+16(%%di):s64 minor=+28(%%di):s32)\n\nYou can now use it in pprobe record, trace and stat, such as:\n\n\tpprobe trace -e %s -a sleep 1\n\n' \
		"$G:handle" "$real" "$G:handle" >"$T/want"
	check "$opt: --add says what it added, as perf" diff -u "$T/want" "$T/err"
	check "$opt: --add prints nothing on stdout" [ ! -s "$T/out" ]
	check "$opt: one uprobe_events line at handle's file offset" \
		[ "$(ours | grep -c "^p:$G/handle $real:0x")" -eq 1 ]
	# the same function again, as a return probe, with separate words for the args
	"$PPROBE" -x "$bin" --add 'handle%return' '$retval:s32' 2>"$T/err"
	check "$opt: %return added as handle__return" grep -q "^  $G:handle__return (on handle%return in $real with \$retval:s32)$" "$T/err"

	"$PPROBE" trace -e "$G:handle" -e "$G:handle__return" -- "$bin" $N >"$T/trace" 2>"$T/err"
	check "$opt: trace exits 0" [ $? -eq 0 ]
	expect_entry >"$T/want"
	fields "$G:handle" "$T/trace" >"$T/got"
	check "$opt: every call's path, len, id, ver.minor exact ($N calls)" diff -u "$T/want" "$T/got"
	expect_ret >"$T/want"
	fields "$G:handle__return" "$T/trace" >"$T/got"
	check "$opt: every return value exact" diff -u "$T/want" "$T/got"
	check "$opt: entries and returns alternate" \
		[ "$(grep -oE "$G:handle(__return)?:" "$T/trace" | uniq | wc -l)" -eq $((2 * N)) ]

	# -l: perf's format, the point as DWARF names it
	"$PPROBE" -l >"$T/list" 2>"$T/err"
	check "$opt: -l exits 0" [ $? -eq 0 ]
	check "$opt: -l handle" grep -qxF "$(printf '  %-20s (on handle@%s in %s with path len id minor)' "$G:handle" "$SRCDIR/tests/workloads/probeadd_server.c" "$real")" "$T/list"
	check "$opt: -l handle__return" grep -qxF "  $G:handle__return (on handle%return@$SRCDIR/tests/workloads/probeadd_server.c in $real with arg1)" "$T/list"
	"$PPROBE" -l "$G:*return" >"$T/list2"
	check "$opt: -l PATTERN" [ "$(cat "$T/list2")" = "  $G:handle__return (on handle%return@$SRCDIR/tests/workloads/probeadd_server.c in $real with arg1)" ]

	# an existing name gets _1; a line gets FUNC_L<line>
	"$PPROBE" -x "$bin" -a handle 2>"$T/err"
	check "$opt: the name taken: handle_1" grep -q "^  $G:handle_1 " "$T/err"

	# -d: globs, perf's words
	"$PPROBE" -d "$G:handle_?" -d 'handle__ret*' >"$T/out" 2>"$T/err"
	check "$opt: -d exits 0" [ $? -eq 0 ]
	printf 'Removed event: %s\nRemoved event: %s\n' "$G:handle_1" "$G:handle__return" >"$T/want"
	check "$opt: -d names what it removed" diff -u "$T/want" "$T/err"
	check "$opt: handle is left" [ "$(ours | sed -E 's/ .*//')" = "p:$G/handle" ]
	"$PPROBE" -d "$G:*" 2>"$T/err"
	check "$opt: -d GROUP:*" [ "$(cat "$T/err")" = "Removed event: $G:handle" ]
	check "$opt: nothing of ours left" [ -z "$(ours)" ]
done

bin=$WORKLOADS/probeadd_server_O2
real=$(realpath "$bin")
# errors: exact message, exit status, uprobe_events unchanged. "Unchanged" is
# judged on the lines these commands could write (our groups, our workloads,
# pprobe_PID): other helpers' tests may add and remove their own meanwhile.
before=$(ours)
err_case() {	# DESC STATUS EXPECTED-STDERR-FILE ARGS...
	local d=$1 st=$2 want=$3; shift 3
	"$PPROBE" "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	check "$d: exit $st (got $rc)" [ $rc -eq "$st" ]
	check "$d: message" diff -u "$want" "$T/err"
	check "$d: uprobe_events unchanged" [ "$(ours)" = "$before" ]
}
printf 'pprobe: no function handl in %s; did you mean: handle\n' "$real" >"$T/want"
err_case "unknown function" 1 "$T/want" -x "$bin" --add 'handl len'
"$PPROBE" -x "$bin" --add 'handle a=%zz' 2>"$T/err"
check "kernel refusal: exit 2" [ $? -eq 2 ]
check "kernel refusal: the kernel's words" grep -qx 'trace_uprobe: error: Invalid register name' "$T/err"
cmdline=$(grep -oP '^  Command: \K.*' "$T/err")
check "kernel refusal: the command written" grep -qxE "p:$G/handle $real:0x[0-9a-f]+ a=%zz" <<<"$cmdline"
check "kernel refusal: first line" grep -qx 'pprobe: the kernel refused the probe (uprobe_events: Invalid argument):' <(head -1 "$T/err")
caret=$(tail -1 "$T/err")
check "kernel refusal: caret under %zz" [ "$caret" = "$(printf '%*s^' $((11 + ${#cmdline} - 3)) '')" ]
check "kernel refusal: uprobe_events unchanged" [ "$(ours)" = "$before" ]
# a second --add that fails takes the first one back
"$PPROBE" -x "$bin" --add 'handle a=%di' --add 'nosuchfn' 2>"$T/err"
check "two --add, second unknown: exit 1" [ $? -eq 1 ]
check "two --add, second unknown: message" grep -qx "pprobe: no function nosuchfn in $real" "$T/err"
check "two --add, second unknown: the first taken back" [ "$(ours)" = "$before" ]
# a kernel probe on this kernel (no kprobes)
if [ ! -e $TR/kprobe_events ]; then
	printf "pprobe: this kernel has no kprobes (no kprobe_events in tracefs%s: CONFIG_KPROBE_EVENTS off): the kernel function tcp_sendmsg cannot be probed; tracepoints near tcp_sendmsg: tcp:tcp_sendmsg_locked\n" \
		"$([ -e /sys/bus/event_source/devices/kprobe ] || echo ', no kprobe PMU')" >"$T/want"
	err_case "kernel probe without kprobes" 1 "$T/want" --add 'tcp_sendmsg size=%dx'
else
	echo "kprobe_events present: the kprobe-less message is not tested here (tests/e2e/vm_probe*.sh run kernel --add)"
fi
printf 'pprobe: "nosuch*" does not match any probe event (pprobe -l lists them)\n' >"$T/want"
err_case "-d without a match" 1 "$T/want" -d 'nosuch*'
printf "pprobe: bad event name '9x': letters, digits and '_', not starting with a digit, under 64 characters\n" >"$T/want"
err_case "bad event name" 2 "$T/want" -x "$bin" --add '9x=handle'
done_testing
