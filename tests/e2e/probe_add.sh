#!/usr/bin/env bash
# pprobe --add / -l / -d (perf probe's persistent tracefs probes): the values
# trace prints equal what the workload passed, on every call, at -O0 and
# -O2; %return with $retval; perf's -l format; -d globs; errors with exact
# messages and exit status, each leaving uprobe_events as it was.
. "$(dirname "$0")/lib.sh"
need_root
need_uprobe_events
# perf's group for a binary: "probe_" + its name up to the first character
# that is not alphanumeric or '_': probe_probeadd_server_O0, ..._O2
G=probe_probeadd_server_O2
N=7
PATHS=(/index.html /api/v1/users /favicon.ico)

# The probe lines of our groups and workloads (other tests may use other groups meanwhile).
ours() { grep -E "^[pr][0-9]*:probe_probeadd_server_O[02]/|probeadd_server" $TR/uprobe_events; }
cleanup() { ours | sed -E 's/^[pr][0-9]*:([^ ]+) .*/-:\1/' | while read -r l; do echo "$l" >>$TR/uprobe_events; done; }
trap 'cleanup; rm -rf "$T" "$T.cache"' EXIT
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
# the args of each line: the address the kernel prints first, "(0xIP)" or
# "(0xRET <- 0xFUNC)", goes
fields() { grep -F " $1: " "$2" | sed -E 's/.*: \(0x[0-9a-f]+( <- 0x[0-9a-f]+)?\) ?//'; }

SRC=$SRCDIR/tests/workloads/probeadd_server.c
for opt in O0 O2; do
	bin=$WORKLOADS/probeadd_server_$opt
	G=probe_${bin##*/}
	real=$(realpath "$bin")
	# DWARF arguments: a string through a pointer member, an int parameter, a
	# long member, a member of a member (-O0: stack slots; -O2: registers)
	"$PPROBE" -x "$bin" --add 'handle path=req->path:string len id=req->id minor=req->ver.minor' \
		>"$T/out" 2>"$T/err"
	check "$opt: --add exits 0" [ $? -eq 0 ]
	printf 'Added new event:\n  %s (on handle in %s with path=req->path:string len id=req->id minor=req->ver.minor)\n\nYou can now use it in pprobe record, trace and stat, such as:\n\n\tpprobe trace -e %s -a sleep 1\n\n' \
		"$G:handle" "$real" "$G:handle" >"$T/want"
	check "$opt: --add says what it added, as perf" diff -u "$T/want" "$T/err"
	check "$opt: --add prints nothing on stdout" [ ! -s "$T/out" ]
	check "$opt: one uprobe_events line at handle's file offset" \
		[ "$(ours | grep -c "^p:$G/handle $real:0x[0-9a-f]* path=[^ ]*:string len=[^ ]*:s32 id=[^ ]*:s64 minor=[^ ]*:s32$")" -eq 1 ]
	# the same function again, as a return probe, the args as separate words (perf's --add func a b)
	"$PPROBE" -x "$bin" --add 'handle%return' 'ret=$retval' 2>"$T/err"
	check "$opt: %return added as handle__return" grep -qxF "  $G:handle__return (on handle%return in $real with ret=\$retval)" "$T/err"

	"$PPROBE" trace -e "$G:handle" -e "$G:handle__return" -- "$bin" $N >"$T/trace" 2>"$T/err"
	check "$opt: trace exits 0" [ $? -eq 0 ]
	expect_entry >"$T/want"
	fields "$G:handle" "$T/trace" >"$T/got"
	check "$opt: every call's path, len, id, ver.minor exact ($N calls)" diff -u "$T/want" "$T/got"
	expect_ret | sed 's/^arg1=/ret=/' >"$T/want"
	fields "$G:handle__return" "$T/trace" >"$T/got"
	check "$opt: every return value exact" diff -u "$T/want" "$T/got"
	check "$opt: entries and returns alternate" \
		[ "$(grep -oE "$G:handle(__return)?:" "$T/trace" | uniq | wc -l)" -eq $((2 * N)) ]

	# -l: perf's format, the point as DWARF names it
	"$PPROBE" -l >"$T/list" 2>"$T/err"
	check "$opt: -l exits 0" [ $? -eq 0 ]
	check "$opt: -l handle" grep -qxF "$(printf '  %-20s (on handle@%s in %s with path len id minor)' "$G:handle" "$SRC" "$real")" "$T/list"
	check "$opt: -l handle__return" grep -qxF "  $G:handle__return (on handle%return@$SRC in $real with ret)" "$T/list"
	"$PPROBE" -l "$G:*return" >"$T/list2"
	check "$opt: -l PATTERN" [ "$(cat "$T/list2")" = "  $G:handle__return (on handle%return@$SRC in $real with ret)" ]

	# an address in the binary: abs_ADDR, -l names the function there
	addr=$(nm "$bin" | awk '$3 == "handle" { print $1 }')
	"$PPROBE" -x "$bin" --add "0x$addr len" 2>"$T/err"
	a=$(printf '%x' $((16#$addr)))
	check "$opt: 0xADDR: abs_$a" grep -qxF "$(printf '  %-20s (on 0x%s in %s with len)' "$G:abs_$a" "$addr" "$real")" "$T/err"
	check "$opt: 0xADDR: -l names handle" grep -qxF "$(printf '  %-20s (on handle@%s in %s with len)' "$G:abs_$a" "$SRC" "$real")" <("$PPROBE" -l "$G:abs_*")
	"$PPROBE" -d "$G:abs_$a" 2>/dev/null
	# an existing name gets _1
	"$PPROBE" -x "$bin" -a handle 2>"$T/err"
	check "$opt: the name taken: handle_1" grep -q "^  $G:handle_1 " "$T/err"
	# every inlined copy: record_score, record_score_1 (perf's suffixes)
	"$PPROBE" -x "$bin" -a record_score 2>"$T/err"
	check "$opt: two inlined copies, two events" \
		[ "$(grep -c "^  $G:record_score\(_1\)\? *(on record_score in $real)$" "$T/err")" -eq 2 ]
	"$PPROBE" trace -e "$G:record_score*" -- "$bin" $N >"$T/trace" 2>"$T/err"
	a=$(grep -c " $G:record_score: " "$T/trace"); b=$(grep -c " $G:record_score_1: " "$T/trace")
	check "$opt: the copies are hit N and 1 times ($a, $b)" \
		[ "$(printf '%s\n' "$a" "$b" | sort -n | tr '\n' ' ')" = "1 $N " ]
	if [ $opt = O0 ]; then	# -O2: see the report about GCC's entry_pc outside the copy's ranges
		"$PPROBE" -d "$G:record_score*" 2>/dev/null
		"$PPROBE" -x "$bin" -a 'record_score method len' 2>"$T/err"
		"$PPROBE" trace -e "$G:record_score*" -- "$bin" $N >"$T/trace" 2>"$T/err"
		for ((i = 0; i < N; i++)); do p=${PATHS[i % 3]}; echo "method=$((i % 4)) len=${#p}"; done >"$T/want"
		echo "method=9 len=$N" >>"$T/want"
		grep -oE 'method=.*' "$T/trace" >"$T/got"
		check "$opt: arguments of both inlined copies exact" diff -u "$T/want" "$T/got"
	fi

	# -d: globs, perf's words
	"$PPROBE" -d "$G:handle_?" -d 'handle__ret*' -d "$G:record_score*" >"$T/out" 2>"$T/err"
	check "$opt: -d exits 0" [ $? -eq 0 ]
	printf 'Removed event: %s\n' "$G:handle_1" "$G:handle__return" "$G:record_score" "$G:record_score_1" >"$T/want"
	check "$opt: -d names what it removed" diff -u "$T/want" "$T/err"
	check "$opt: handle is left" [ "$(ours | sed -E 's/ .*//')" = "p:$G/handle" ]
	"$PPROBE" -d "$G:*" 2>"$T/err"
	check "$opt: -d GROUP:*" [ "$(cat "$T/err")" = "Removed event: $G:handle" ]
	check "$opt: nothing of ours left" [ -z "$(ours)" ]
done

# the issue's example: names as perf gives them (req->path -> path)
for opt in O0 O2; do
	bin=$WORKLOADS/probeadd_server_$opt
	G=probe_${bin##*/}
	"$PPROBE" -x "$bin" --add 'handle req->path:string len' 2>/dev/null
	"$PPROBE" trace -e "$G:handle" -- "$bin" $N >"$T/trace" 2>"$T/err"
	expect_entry | sed 's/ id=.*//' >"$T/want"
	fields "$G:handle" "$T/trace" >"$T/got"
	check "$opt: 'handle req->path:string len' traces path=\"...\" len=N for each call" diff -u "$T/want" "$T/got"
	"$PPROBE" -d "$G:handle" 2>/dev/null
done

# tracefs fetch-args as such, at the -O2 entry (the ABI registers); unnamed ones are argN
bin=$WORKLOADS/probeadd_server_O2
G=probe_${bin##*/}
"$PPROBE" -x "$bin" --add 'handle +0(+0(%di)):string len=%si:s32 id=+16(%di):s64 +28(%di):s32' 2>"$T/err"
check "raw fetch-args: --add exits 0" [ $? -eq 0 ]
"$PPROBE" trace -e "$G:handle" -- "$bin" $N >"$T/trace" 2>"$T/err"
expect_entry | sed -e 's/^path=/arg1=/' -e 's/minor=/arg4=/' >"$T/want"
fields "$G:handle" "$T/trace" >"$T/got"
check "raw fetch-args: every value exact" diff -u "$T/want" "$T/got"
"$PPROBE" -d "$G:handle" 2>/dev/null

bin=$WORKLOADS/probeadd_server_O2
G=probe_${bin##*/}
real=$(realpath "$bin")
# errors: exact message, exit status, uprobe_events unchanged. "Unchanged" is
# judged on the lines these commands could write (our group, our workloads):
# other tests may add and remove their own meanwhile.
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
# what only the kernel refuses: explained with its error_log, caret included
"$PPROBE" -x "$bin" --add 'handle c=$comm:u32' 2>"$T/err"
check "kernel refusal: exit 2" [ $? -eq 2 ]
check "kernel refusal: first line" grep -qx 'pprobe: the kernel refused the probe (uprobe_events: Invalid argument):' <(head -1 "$T/err")
check "kernel refusal: the kernel's words" grep -qx 'trace_uprobe: error: $comm and immediate-string only accepts string type' "$T/err"
cmdline=$(grep -oP '^  Command: \K.*' "$T/err")
check "kernel refusal: the command written" grep -qxE "p:$G/handle $real:0x[0-9a-f]+ c=\\\$comm:u32" <<<"$cmdline"
caret=$(tail -1 "$T/err")
check "kernel refusal: caret under the type" [ "$caret" = "$(printf '%*s^' $((11 + ${#cmdline} - 3)) '')" ]
check "kernel refusal: uprobe_events unchanged" [ "$(ours)" = "$before" ]
# DWARF errors name the argument and why
printf "pprobe: argument 'nosuch' at handle+0: no variable 'nosuch' here (variables in scope: req, len; globals of the program are found by name too)\n" >"$T/want"
err_case "unknown variable" 1 "$T/want" -x "$bin" --add 'handle len nosuch'
printf "pprobe: argument 'len)' at handle+0: unexpected ')' in 'len)' (expected ->MEMBER, .MEMBER or [INDEX])\n" >"$T/want"
err_case "bad argument syntax" 2 "$T/want" -x "$bin" --add 'handle len)'
printf "pprobe: argument '\$retval' at handle+0: \$retval exists only on a return probe (handle%%return)\n" >"$T/want"
err_case "\$retval at an entry" 2 "$T/want" -x "$bin" --add 'handle $retval'
# optimized out: inspect_wl's lost_value:6 (tests/e2e/inspect.sh checks 'got' has no location there with gdb)
iw=$WORKLOADS/inspect_wl_O2
if "$PPROBE" -x "$iw" -V lost_value:6 | grep -qP '^\t\tint\tgot\t<optimized out>$'; then
	off=$("$PPROBE" -x "$iw" -V lost_value:6 | grep -oP '@<lost_value\+\K[0-9]+' | head -1)
	printf "pprobe: argument 'got' at lost_value+%d: got is optimized out at this address (it has no location here; see -V --range for where it has one)\n" "$off" >"$T/want"
	err_case "optimized-out variable" 1 "$T/want" -x "$iw" --add 'lost_value:6 n got'
	check "optimized-out variable: nothing of inspect_wl's group" [ -z "$(grep '^[pr]:probe_inspect/' $TR/uprobe_events)" ]
else
	echo "SKIP optimized-out case: this compiler keeps 'got' at lost_value:6"
fi
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
# an event in use cannot go: said, and it stays
"$PPROBE" -x "$bin" --add 'handle len' 2>/dev/null
"$PPROBE" trace -e "$G:handle" -a >/dev/null 2>&1 & tpid=$!
for ((k = 0; k < 100; k++)); do ls -l /proc/$tpid/fd 2>/dev/null | grep -q 'perf_event' && break; sleep 0.1; done
sleep 0.3
"$PPROBE" -d "$G:handle" 2>"$T/err"
check "-d in use: exit 1" [ $? -eq 1 ]
check "-d in use: said" grep -qxF "pprobe: removing $G:handle: Device or resource busy (a tracer has it open: stop it first)" "$T/err"
check "-d in use: the event stays" [ "$(ours | sed -E 's/ .*//')" = "p:$G/handle" ]
kill -INT $tpid; wait $tpid
"$PPROBE" -d "$G:handle" 2>/dev/null
check "-d after the tracer stopped" [ "$(ours)" = "$before" ]
printf 'pprobe: "nosuch*" does not match any probe event (pprobe -l lists them)\n' >"$T/want"
err_case "-d without a match" 1 "$T/want" -d 'nosuch*'
printf "pprobe: bad event name '9x': letters, digits and '_', not starting with a digit, under 64 characters\n" >"$T/want"
err_case "bad event name" 2 "$T/want" -x "$bin" --add '9x=handle'
done_testing
