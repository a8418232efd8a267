#!/bin/sh
# Guest script (busybox ash) for tests/e2e/vm_probe_tp.sh: pprobe record and
# trace with kernel callchains in the VM, over loopback TCP traffic of known
# size, symbolized from the guest's /proc/kallsyms (there is no vmlinux).
#   usage: probe_tracepoints.sh [N_MESSAGES [SIZE]]
# Exact numbers: the workload sends N messages of SIZE bytes to itself over
# 127.0.0.1 (nothing else in the guest makes TCP traffic), so tcp:tcp_probe
# fires exactly N times with data_len=SIZE on the listening port, and
# syscalls:sys_enter_sendto exactly N times.
. /vmtest/lib.sh

N=${1:-200}
SIZE=${2:-77}
W=$WORKLOADS/vmprobe_wl
T=/tmp/probe_tp
mkdir -p $T

[ -x "$W" ] || skip "no workload $W in the guest"
[ -d $TRACEFS/events/tcp/tcp_probe ] || skip "guest kernel has no tcp:tcp_probe tracepoint"
awk '$2 ~ /^[tTwW]$/ { print $3 }' /proc/kallsyms | sort -u >$T/ktext

# kernel_frames_known FILE: every kernel frame (NAME_[k]) of the folded FILE
# is a text symbol of /proc/kallsyms.
kernel_frames_known() {
	tr ';' '\n' <"$1" | sed -n 's/_\[k\]$//p' | sort -u >$T/kframes
	[ -s $T/kframes ] || { echo "no kernel frames in $1" >&2; return 1; }
	_unknown=$(grep -vxFf $T/ktext $T/kframes)
	[ -z "$_unknown" ] || { echo "kernel frames not in kallsyms: $_unknown" >&2; return 1; }
	echo "  $(wc -l <$T/kframes) distinct kernel frames, all in /proc/kallsyms"
}

# 1. trace -a around record -a -g of the same events around the workload:
# trace's window holds record's and the workload makes the guest's only TCP
# traffic, so both see the same tcp_probe events; the sends are exact.
# (Not record around trace: record -g ptrace-seizes its command's processes
# to hold their exits, and a sanitized pprobe's LeakSanitizer cannot work
# under ptrace.)
pprobe trace -a -e tcp:tcp_probe -e syscalls:sys_enter_sendto -o $T/tr.txt -- \
	pprobe record -q -a -g -e tcp:tcp_probe -e syscalls:sys_enter_sendto -o $T/rec.folded -- \
	$W tcp $N $SIZE >$T/wl.out
check "trace -a (record -a -g (workload)) succeeds" test $? -eq 0
port=$(sed -n 's/^sent .* to 127\.0\.0\.1:\([0-9]*\)$/\1/p' $T/wl.out)
check_eq "workload" "sent $N messages of $SIZE bytes to 127.0.0.1:$port" "$(cat $T/wl.out)"
check_eq "trace: tcp_probe data segments of $SIZE bytes to port $port" "$N" \
	"$(grep -c " tcp:tcp_probe: .* src=127\.0\.0\.1:$port .*data_len=$SIZE " $T/tr.txt)"
# syscall arguments in hex, as the kernel prints them
check_eq "trace: sendto calls of $SIZE bytes" "$N" "$(grep -c " syscalls:sys_enter_sendto: .* len: $(printf '0x%08x' $SIZE), " $T/tr.txt)"
ntp=$(grep -c ' tcp:tcp_probe: ' $T/tr.txt)
echo "trace saw $ntp tcp:tcp_probe events (data segments, ACKs, FINs)"
F_TP=$T/rec.tcp-tcp_probe.folded
F_SEND=$T/rec.syscalls-sys_enter_sendto.folded
check "record wrote one folded file per event" test -s $F_TP -a -s $F_SEND
check_eq "record: tcp_probe samples = trace's events" "$ntp" "$(awk '{ n += $NF } END { print n + 0 }' $F_TP)"
# A syscall tracepoint fires with the user registers: user stack only (as perf).
check_eq "record: sendto samples, user stack down to send()" \
	"vmprobe_wl;_start;__libc_start_main;__libc_start_call_main;main;send_messages;send_message;__libc_send $N" \
	"$(cat $F_SEND)"
# (tcp_v4_do_rcv: from tcp_v4_rcv in the softirq, or from the socket's backlog.)
check_eq "record: tcp_probe stacks that do not end in tcp_v4_do_rcv;tcp_rcv_established" "" \
	"$(grep -v ';tcp_v4_do_rcv_\[k\];tcp_rcv_established_\[k\] [0-9]*$' $F_TP)"
# Data segments are received in the softirq that the sender's own transmit
# runs (unless deferred to ksoftirqd): kernel and user side in one stack.
sendpath="vmprobe_wl;_start;__libc_start_main;__libc_start_call_main;main;send_messages;send_message;__libc_send;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_sendto_[k];__sys_sendto_[k];"
nsend=$(grep -F "$sendpath" $F_TP | grep -F ';tcp_sendmsg_[k];' | awk '{ n += $NF } END { print n + 0 }')
echo "record: $nsend tcp_probe samples under send(2) -> tcp_sendmsg (of $ntp)"
check "record: tcp_probe under send() -> __sys_sendto -> tcp_sendmsg (>= 1)" test "$nsend" -ge 1
check "record: kernel frames symbolized from /proc/kallsyms" kernel_frames_known $F_TP
sed 's/^/  /' $F_TP

# 2. trace -g with a kernel filter: exactly the data segments, each with its
# kernel stack (addresses and SYM+OFF from kallsyms) and its user stack.
M=3
pprobe trace -g -a -e tcp:tcp_probe --filter "data_len == $SIZE" -o $T/trg.txt -- $W tcp $M $SIZE >$T/wl2.out
check "trace -g -a --filter succeeds" test $? -eq 0
cat $T/trg.txt
check_eq "trace -g: events with data_len=$SIZE" "$M" "$(grep -c " tcp:tcp_probe: .*data_len=$SIZE " $T/trg.txt)"
check_eq "trace -g: every event's first kernel frame is tcp_rcv_established" "$M" \
	"$(grep -A1 ' tcp:tcp_probe: ' $T/trg.txt | grep -c '^[[:space:]]*ffffffff[0-9a-f]* tcp_rcv_established+0x[0-9a-f]* (\[kernel.kallsyms\])$')"
check_eq "trace -g: user frames send_message under the kernel's" "$M" "$(grep -c '^[[:space:]]*[0-9a-f]* send_message+0x[0-9a-f]* (vmprobe_wl)$' $T/trg.txt)"
# Every kernel frame "ADDR SYM+OFF": kallsyms(SYM) + OFF = ADDR for the
# event's own IP, ADDR - 1 for the return addresses under it (symbolized at
# pc - 1, as DESIGN.md says). Low 32 bits only: ash's arithmetic is signed
# 64-bit and kernel addresses are above 2^63.
awk '/ tcp:tcp_probe: / { leaf = 1; next }
	/^[[:space:]]*ffffffff[0-9a-f]* [^ ]*\+0x[0-9a-f]* \(\[kernel.kallsyms\]\)$/ {
		sub(/\+/, " ", $2); print $1, $2, leaf; leaf = 0 }' $T/trg.txt | sort -u >$T/kaddrs
# One pass over kallsyms: each frame with its symbol's address (or "none").
awk 'NR == FNR { want[$2] = 1; f[NR] = $0; n = NR; next }
	($3 in want) && $2 ~ /^[tTwW]$/ && !($3 in base) { base[$3] = $1 }
	END { for (i = 1; i <= n; i++) { split(f[i], a, " "); print f[i], (a[2] in base) ? base[a[2]] : "none" } }' \
	$T/kaddrs /proc/kallsyms >$T/kbases
bad=0 nk=0
while read -r addr sym off leaf base; do
	nk=$((nk + 1))
	if [ "$base" = none ] || [ $((0x${addr#????????} - 0x${base#????????})) -ne $((off + 1 - leaf)) ]; then
		echo "kernel frame $addr $sym+$off (leaf $leaf): kallsyms has $sym at $base" >&2
		bad=$((bad + 1))
	fi
done <$T/kbases
check "trace -g: $nk distinct kernel frames, ADDR = kallsyms(SYM) + OFF" test $nk -gt 10 -a $bad -eq 0

# 3. stat: exact syscall counts for a command.
pprobe stat -x, -e syscalls:sys_enter_openat,syscalls:sys_enter_sendto -o $T/stat.csv -- $W open 20 3 /etc/passwd
cat $T/stat.csv
check_eq "stat: openat calls" "23" "$(awk -F, '$3 == "syscalls:sys_enter_openat" { print $1 }' $T/stat.csv)"
check_eq "stat: sendto calls" "0" "$(awk -F, '$3 == "syscalls:sys_enter_sendto" { print $1 }' $T/stat.csv)"

# Nothing left behind.
check_eq "no pprobe process left" "" "$(pidof pprobe)"
check_eq "kprobe_events empty" "" "$(cat $TRACEFS/kprobe_events)"
check_eq "uprobe_events empty" "" "$(cat $TRACEFS/uprobe_events)"
rm -rf $T
done_testing
