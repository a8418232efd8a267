#!/usr/bin/env bash
# What a user sees when an ephemeral probe cannot be made: exact messages
# and exit status 2, from stat, record and trace alike, and nothing left
# behind in tracefs.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/bus/event_source/devices/uprobe ] || skip "this kernel has no uprobe PMU"
B=$WORKLOADS/probe_wl_O2
RB=$(realpath "$B")

# err CMD EVENT MESSAGE: pprobe CMD -e EVENT exits 2 saying exactly MESSAGE
err() {
	local cmd=$1 ev=$2 msg=$3
	"$PPROBE" "$cmd" -e "$ev" -- true >/dev/null 2>"$T/err"
	local rc=$?
	check "$cmd -e '$ev': exit 2" [ $rc -eq 2 ]
	check "$cmd -e '$ev': the message" [ "$(cat "$T/err")" = "pprobe $cmd: '$ev': $msg" ]
	[ "$(cat "$T/err")" = "pprobe $cmd: '$ev': $msg" ] || { echo "got:  $(cat "$T/err")"; echo "want: pprobe $cmd: '$ev': $msg"; }
}

for cmd in stat record trace; do
	err $cmd "uprobe:/no/such/app:main" \
		"no such binary '/no/such/app' (give a path, or a library or program name found in the library directories or PATH)"
	err $cmd "uprobe:$B:probe_targe" "no function probe_targe in $RB; did you mean: probe_target"
done
err stat "uprobe:libc.so.6:getppidd" "no function getppidd in $(realpath /lib/x86_64-linux-gnu/libc.so.6); did you mean: getppid"
err stat "uprobe:no-such-prog-xyz:main" \
	"no such binary 'no-such-prog-xyz' (give a path, or a library or program name found in the library directories or PATH)"
# a raw offset or address must start an instruction: one byte into the
# first instruction of probe_target longer than one byte
read -r ins mid < <(objdump -d "$B" | python3 -c '
import re, sys
f = start = None
for line in sys.stdin:
    if line.rstrip().endswith("<probe_target>:"):
        f = True
        continue
    if f:
        m = re.match(r"\s*([0-9a-f]+):\t([0-9a-f ]+)\t", line)
        if not m:
            break
        addr, nbytes = int(m.group(1), 16), len(m.group(2).split())
        start = addr if start is None else start
        if nbytes > 1:
            print(addr - start, addr - start + 1)
            break')
start=$(nm "$B" | awk '$3 == "probe_target" { print $1 }' | sed 's/^0*//')
want="$(printf 'probe_target+0x%x is in the middle of the instruction at probe_target+%s' $mid \
	"$([ $ins = 0 ] && echo 0 || printf '0x%x' $ins)") (a probe there would corrupt it)"
err stat "uprobe:$B:probe_target+$mid" "$want"
err stat "uprobe:$B:0x$(printf %x $((0x$start + mid)))" "$want"
err stat "uprobe:$B:0x1" "0x1 is not inside a function of $RB"
err stat "uprobe:$B:probe_target+0x10000" "probe_target+0x10000 is past the end of probe_target"
err stat "uprobe:$B:probe_target:99" "probe_target:99: no code at that line of probe_target (see -L probe_target for the probe-able lines)"
err stat "uretprobe:$B:probe_inl" "probe_inl%return: probe_inl is only inlined (2 copies); an inlined copy has no return: probe a line (probe_inl:N) instead"
err stat "uprobe:$B" "a uprobe is written uprobe:BINARY:FUNC[+OFF], uprobe:BINARY:FUNC:LINE or uprobe:BINARY:0xADDR"
err stat "uretprobe:$B:probe_target+4" "a return probe is on the function itself, without an offset"
err stat "uprobe:$B:probe_target+x" "'x' is not an offset (FUNC+OFF, e.g. func+0x10)"
# arguments make a temporary tracefs probe (tests/e2e/probe_add_temp.sh); its
# errors name the spec and the argument
"$PPROBE" stat -e "uprobe:$B:probe_target nosuchvar" -- true 2>"$T/err"
check "arguments: exit 2" [ $? -eq 2 ]
check "arguments: the spec and the argument named" grep -qF "'uprobe:$B:probe_target': argument 'nosuchvar' at probe_target+0: no variable 'nosuchvar' here" "$T/err"

# The kernel here has no kprobes: said, with the tracepoints of the function.
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	nok="this kernel has no kprobes (no kprobe PMU in /sys/bus/event_source/devices; CONFIG_KPROBES is off): kernel functions cannot be probed"
	if [ -d /sys/kernel/tracing/events/tcp/tcp_sendmsg_locked ]; then
		for ev in probe:tcp_sendmsg kprobe:tcp_sendmsg kretprobe:tcp_sendmsg probe:tcp_sendmsg%return; do
			"$PPROBE" stat -e "$ev" -- true 2>"$T/err"
			check "$ev: exit 2" [ $? -eq 2 ]
			check "$ev: no kprobes" grep -qF "pprobe stat: '$ev': $nok; tracepoints that match 'tcp_sendmsg': " "$T/err"
			check "$ev: tcp:tcp_sendmsg_locked suggested" grep -qE ": (.*, )?tcp:tcp_sendmsg_locked(, .*)?$" "$T/err"
		done
		"$PPROBE" record -a -g -e probe:tcp_sendmsg -- true 2>"$T/err"
		check "record -e probe:tcp_sendmsg: exit 2" [ $? -eq 2 ]
		check "record: the same message" grep -qF "pprobe record: 'probe:tcp_sendmsg': $nok; tracepoints that match 'tcp_sendmsg': " "$T/err"
		check "record: tcp:tcp_sendmsg_locked suggested" grep -qE ": (.*, )?tcp:tcp_sendmsg_locked(, .*)?$" "$T/err"
	fi
	err stat "kprobe:do_sys_openat2" "$nok; tracepoints that match 'do_sys_openat2': syscalls:sys_enter_openat2, syscalls:sys_exit_openat2"
	err stat "kprobe:zz_nothing_like_it" "$nok; no tracepoint matches 'zz_nothing_like_it' ('pprobe list' shows the tracepoints)"
fi
check "nothing of ours in uprobe_events/kprobe_events" \
	not grep -qsF -e "$(realpath "$WORKLOADS")" /sys/kernel/tracing/uprobe_events /sys/kernel/tracing/kprobe_events

done_testing
