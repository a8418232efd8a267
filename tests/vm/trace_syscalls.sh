#!/bin/sh
# Guest script (busybox ash) for tests/e2e/vm_trace_syscalls.sh: pprobe
# trace --syscalls on Debian's 6.1 kernel, whose syscall tracepoints and
# formats are older than the host's: the seed case (-a -e ptrace against
# ptracer's exact N+3 calls, by request name), the summary's count, errno
# names, and all syscalls through raw_syscalls.
#   usage: trace_syscalls.sh [N]
. /vmtest/lib.sh

N=${1:-25}
W=$WORKLOADS/ptracer
T=/tmp/trace_syscalls
mkdir -p $T
[ -x "$W" ] || skip "no workload $W in the guest"
[ -d $TRACEFS/events/syscalls/sys_enter_ptrace ] || skip "guest kernel has no syscall tracepoints"

pprobe trace --syscalls -a -e ptrace --with-summary -o $T/pt.txt -- $W $N 2>$T/pt.err
check_eq "-a -e ptrace -- ptracer: exit status" 0 $?
pid=$(sed -n 's/^ptracer: pid \([0-9]*\) child.*/\1/p' $T/pt.err)
check_eq "ptrace lines under ptracer/$pid" $((N + 3)) "$(grep -c " ptracer/$pid ptrace(request: " $T/pt.txt)"
check_eq "PEEKDATA lines" $N "$(grep -c "ptrace(request: PEEKDATA, pid: [0-9]*, addr: 0x[0-9a-f]*, data: 0x[0-9a-f]*) *= 0\$" $T/pt.txt)"
check_eq "SEIZE, INTERRUPT, DETACH once each" "1 1 1" \
	"$(grep -c 'request: SEIZE' $T/pt.txt) $(grep -c 'request: INTERRUPT' $T/pt.txt) $(grep -c 'request: DETACH' $T/pt.txt)"
check_eq "the summary's ptrace calls and errors" "$((N + 3)) 0" \
	"$(awk '$1 == "ptrace" && $2 ~ /^[0-9]+$/ { print $2, $3 }' $T/pt.txt)"

pprobe trace --syscalls -e openat -o $T/o.txt -- cat /nonexistent-pprobe-file 2>/dev/null
check "openat of a missing file: -1 ENOENT (No such file or directory)" \
	grep -q 'openat(dfd: AT_FDCWD, filename: 0x[0-9a-f]*, flags: O_RDONLY, mode: 0) *= -1 ENOENT (No such file or directory)$' $T/o.txt

pprobe trace --syscalls -o $T/all.txt -- $W 2 2>/dev/null
check_eq "all syscalls (raw_syscalls): ptrace lines" 5 "$(grep -c ' ptrace(request: ' $T/all.txt)"
check "all syscalls: exit_group(error_code: 0) = ?" grep -q ' exit_group(error_code: 0) *= ?$' $T/all.txt
done_testing
