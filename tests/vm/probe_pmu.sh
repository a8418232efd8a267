#!/bin/sh
# Guest script (busybox ash) for tests/e2e/vm_probe_pmu.sh: pprobe's
# ephemeral kernel probes in the VM (the kprobe PMU with -a; temporary
# kprobe_events probes on a command or -p), with exact numbers:
#   stat -e kprobe:do_sys_openat2 / probe:do_sys_openat2 / kretprobe:... /
#        probe:do_sys_openat2%return / kprobe:do_sys_openat2+OFF /
#        probe:do_sys_openat2+OFF / kprobe:0xADDR (kallsyms)
#        count exactly the N + M opens of the workload (a command, and -p PID)
#   trace -e kprobe:... prints the probed IP = the symbol's kallsyms address
#   record -e probe:tcp_sendmsg -g -a over K loopback sends: exactly K
#        samples, one stack from the user's send() through the syscall entry
#        to tcp_sendmsg
#   a forking shell loop (sh -c 'for ..; do cat /proc/version; done') runs
#        and exits as without pprobe; kprobe and kretprobe count what the
#        open syscall tracepoints count (stat, trace, record)
#   a threaded command (stat, trace: opens from every thread's tid) and a -p
#        process that forks after the attach exit with their own status (7)
#        and are counted as the open syscall tracepoints count them
#   nothing registered afterwards (debugfs kprobes/list), even after kill -9.
#   usage: probe_pmu.sh [N_OPENS [M_FAILED_OPENS [K_SENDS [SIZE]]]]
. /vmtest/lib.sh

N=${1:-100}
M=${2:-7}
K=${3:-50}
SIZE=${4:-77}
W=$WORKLOADS/vmprobe_wl
T=/tmp/probe_pmu
KLIST=/sys/kernel/debug/kprobes/list
mkdir -p $T
TARGET=$T/target
echo data >$TARGET

[ -x "$W" ] || skip "no workload $W in the guest"
[ -r /sys/bus/event_source/devices/kprobe/type ] || skip "guest kernel has no kprobe PMU"
[ -r $KLIST ] || skip "no $KLIST (debugfs) to see registered kprobes"
ksym() { awk -v s="$1" '$3 == s && $2 ~ /^[tTwW]$/ { print $1; exit }' /proc/kallsyms; }
OPENAT2=$(ksym do_sys_openat2)
[ -n "$OPENAT2" ] || skip "no do_sys_openat2 in /proc/kallsyms"
# do_sys_openat2+5: the instruction after the 5-byte ftrace call site at +0
# (+9 with IBT's endbr64 before it); +4 is inside that call site.
OFF=5
grep -q '^CONFIG_X86_KERNEL_IBT=y' /boot/config-"$(uname -r)" 2>/dev/null && OFF=9
# registered FUNC: the kprobes registered on FUNC (debugfs), one per line
registered() { grep -w "$1" $KLIST; }
# wait_registered FUNC [COUNT]: until COUNT (default 1) kprobes on FUNC are
# registered (pprobe is ready: one kprobe per event and CPU with -a)
wait_registered() {
	_i=0
	while [ "$(registered "$1" | wc -l)" -lt "${2:-1}" ]; do
		_i=$((_i + 1))
		[ $_i -le 600 ] || return 1
		sleep 0.1
	done
}
check_eq "no kprobes registered before" "" "$(cat $KLIST)"

step() { echo "--- $* (guest uptime $(cut -d' ' -f1 /proc/uptime) s)"; }
# held FIFO WHAT ARGS...: start the workload with -w, its stdin on FIFO
# (fd 8 here holds it open), and wait until it is the exec'd vmprobe_wl
# blocked there: the shell's own open of the fifo is not the workload's.
# Sets wpid; writing a byte to fd 8 releases it.
held() {
	_f=$1; _what=$2; shift 2
	mkfifo $_f
	$W -w "$@" <$_f >$T/$_what.out &
	wpid=$!
	exec 8>$_f
	_i=0
	while [ "$(readlink /proc/$wpid/exe)" != "$W" ] && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	check "$_what workload exec'd" test "$(readlink /proc/$wpid/exe)" = "$W"
}
step "1. stat"
# 1. stat: every spelling counts exactly the opens of the command.
EVS="kprobe:do_sys_openat2,probe:do_sys_openat2,kretprobe:do_sys_openat2,probe:do_sys_openat2%return,kprobe:do_sys_openat2+$OFF,probe:do_sys_openat2+$OFF,kprobe:0x$OPENAT2"
pprobe stat -x, -e "$EVS" -o $T/stat.csv -- $W open $N $M $TARGET >$T/wl.out
check "stat -e $EVS -- workload succeeds" test $? -eq 0
cat $T/wl.out $T/stat.csv
check_eq "workload" "opened $TARGET $N times, $TARGET.missing failed with ENOENT $M times" "$(cat $T/wl.out)"
for e in $(echo "$EVS" | tr , ' '); do
	check_eq "stat $e" "$((N + M))" "$(awk -F, -v e="$e" '$3 == e { print $1 }' $T/stat.csv)"
done

# An offset inside an instruction is refused, saying so (a kprobe there
# would corrupt the kernel's code; the kernel refuses it with EILSEQ).
pprobe stat -e kprobe:do_sys_openat2+$((OFF - 1)) -- true >$T/mid.out 2>&1
rc=$?
cat $T/mid.out
check "stat -e kprobe:do_sys_openat2+$((OFF - 1)) (mid-instruction) fails (status $rc)" test $rc -ne 0
check "the error says the offset is not at an instruction" grep -qi "instruction" $T/mid.out

step "2. stat -p"
# 2. stat -p PID: the workload waits on a fifo until the probe is in place.
# Attach only once the workload is the exec'd vmprobe_wl blocked on its stdin:
# the shell's own open of the fifo for the redirection must not be counted.
held $T/go wl2 open $N $M $TARGET
# Ready means counting: the first -I interval line (stderr, unbuffered) says
# the events are enabled; the intervals add up to the total.
pprobe stat -I 100 -x, -e kretprobe:do_sys_openat2 -p $wpid 2>$T/stat2.csv &
spid=$!
i=0
while ! grep -q ',kretprobe:do_sys_openat2,' $T/stat2.csv && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check "stat -p -I 100 is counting" grep -q ',kretprobe:do_sys_openat2,' $T/stat2.csv
registered do_sys_openat2
echo go >&8
exec 8>&-
wait $wpid
check "workload -w succeeds" test $? -eq 0
wait $spid
check "stat -p ends with its process" test $? -eq 0
tail -3 $T/stat2.csv
check_eq "stat -p $wpid -I 100 kretprobe:do_sys_openat2 (intervals summed)" "$((N + M))" \
	"$(awk -F, '$4 == "kretprobe:do_sys_openat2" { n += $2 } END { print n + 0 }' $T/stat2.csv)"

step "3. trace"
# 3. trace: the probed IP is the symbol's address in kallsyms.
pprobe trace -e kprobe:do_sys_openat2 -e kretprobe:do_sys_openat2 -e kprobe:do_sys_openat2+$OFF \
	-o $T/trace.txt -- $W open 3 2 $TARGET >/dev/null
check "trace -e kprobe: -e kretprobe: succeeds" test $? -eq 0
cat $T/trace.txt
echo "kallsyms: do_sys_openat2 at $OPENAT2"
OPENAT2_OFF=$(printf '%x' $((0x${OPENAT2#????????} + OFF)))
OPENAT2_OFF=${OPENAT2%????????}$(printf '%08x' $((0x$OPENAT2_OFF)))
check_eq "trace: kprobe hits at do_sys_openat2 = 0x$OPENAT2" 5 \
	"$(grep -c " kprobe:do_sys_openat2: (0x$OPENAT2)\$" $T/trace.txt)"
check_eq "trace: kprobe hits at do_sys_openat2+$OFF = 0x$OPENAT2_OFF" 5 \
	"$(grep -c " kprobe:do_sys_openat2+$OFF: (0x$OPENAT2_OFF)\$" $T/trace.txt)"
check_eq "trace: kretprobe returns from do_sys_openat2" 5 \
	"$(grep -c " kretprobe:do_sys_openat2: (0xffffffff[0-9a-f]* <- 0x$OPENAT2)\$" $T/trace.txt)"
check_eq "trace: events in all" 15 "$(grep -c ' k[a-z]*probe:do_sys_openat2' $T/trace.txt)"

step "3b. record -g"
# 3b. record -g on the open workload: every sample of the entry probe has the
# kernel stack from the syscall entry to do_sys_openat2 under the exact user
# stack (N under open_once, M under open_missing); the return probe's
# samples fire in do_sys_openat2's caller, under the same user stacks.
pprobe record -q -g -e kprobe:do_sys_openat2 -e kretprobe:do_sys_openat2 -o $T/open.folded -- $W open $N $M $TARGET >/dev/null
check "record -g -e kprobe: -e kretprobe: succeeds" test $? -eq 0
FK=$T/open.kprobe-do_sys_openat2.folded
FR=$T/open.kretprobe-do_sys_openat2.folded
cat $FK $FR
U="vmprobe_wl;_start;__libc_start_main;__libc_start_call_main;main;do_opens"
SYSENTRY='entry_SYSCALL_64_after_hwframe_\[k\];do_syscall_64_\[k\];'
check_eq "record -g kprobe: stacks" 2 "$(wc -l <$FK)"
check "record -g kprobe: $N under open_once, syscall entry .. do_sys_openat2" \
	grep -qx "$U;open_once;__libc_open;$SYSENTRY\(.*;\)\{0,1\}do_sys_openat2_\[k\] $N" $FK
check "record -g kprobe: $M under open_missing, syscall entry .. do_sys_openat2" \
	grep -qx "$U;open_missing;__libc_open;$SYSENTRY\(.*;\)\{0,1\}do_sys_openat2_\[k\] $M" $FK
check_eq "record -g kretprobe: stacks" 2 "$(wc -l <$FR)"
check "record -g kretprobe: $N under open_once, in do_sys_openat2's caller" \
	grep -qx "$U;open_once;__libc_open;$SYSENTRY\([a-z_0-9]*_\[k\];\)*[a-z_0-9]*_\[k\] $N" $FR
check "record -g kretprobe: $M under open_missing" \
	grep -qx "$U;open_missing;__libc_open;$SYSENTRY\([a-z_0-9]*_\[k\];\)*[a-z_0-9]*_\[k\] $M" $FR
check_eq "record -g kretprobe: no stack ends in do_sys_openat2 itself" "" "$(grep 'do_sys_openat2_\[k\] [0-9]*$' $FR)"

step "3c. a forking shell loop"
# 3c. Kernel probes on a command that forks and execs (issue 10): the kprobe
# PMU's events cannot be inherited (fork() failed with EFAULT), so they are
# temporary kprobe_events probes. The loop runs as without pprobe, and the
# probes count what the syscall tracepoints (inherited as they are) count.
LOOP='for i in 1 2 3; do cat /proc/version; done'
SC=syscalls:sys_enter_openat
[ -d $TRACEFS/events/syscalls/sys_enter_open ] && SC=$SC,syscalls:sys_enter_open
pprobe stat -x, -e "kprobe:do_sys_openat2,kretprobe:do_sys_openat2,$SC" -o $T/loop.csv -- sh -c "$LOOP" >$T/loop.out 2>$T/loop.err
check "stat on the loop: exit 0" test $? -eq 0
cat $T/loop.err $T/loop.csv
check_eq "stat: the loop ran: 3 /proc/version" 3 "$(grep -c '^Linux version' $T/loop.out)"
opens=$(awk -F, '$3 ~ /^syscalls:/ { n += $1 } END { print n + 0 }' $T/loop.csv)
check "stat: the loop's shell and 3 cats opened files ($opens)" test "$opens" -ge 3
check_eq "stat loop kprobe:do_sys_openat2 = open syscalls" "$opens" \
	"$(awk -F, '$3 == "kprobe:do_sys_openat2" { print $1 }' $T/loop.csv)"
check_eq "stat loop kretprobe:do_sys_openat2 = open syscalls" "$opens" \
	"$(awk -F, '$3 == "kretprobe:do_sys_openat2" { print $1 }' $T/loop.csv)"
pprobe trace -e kretprobe:do_sys_openat2 -e "$SC" -o $T/loop.txt -- sh -c "$LOOP" >$T/loop.out
check "trace on the loop: exit 0" test $? -eq 0
check_eq "trace: the loop ran: 3 /proc/version" 3 "$(grep -c '^Linux version' $T/loop.out)"
check_eq "trace loop kretprobe = open syscalls" "$(grep -c ' syscalls:sys_enter_open' $T/loop.txt)" \
	"$(grep -c ' kretprobe:do_sys_openat2: (0x' $T/loop.txt)"
check_eq "trace loop: cat's opens of /proc/version seen from 3 cats" 3 \
	"$(grep ' kretprobe:do_sys_openat2: ' $T/loop.txt | grep -o '^ *cat-[0-9]*' | sort -u | wc -l)"
pprobe record -e kprobe:do_sys_openat2 -o $T/loop.folded -- sh -c "$LOOP; exit 7" >$T/loop.out
check_eq "record on the loop: the command's status" 7 "$?"
check_eq "record: the loop ran: 3 /proc/version" 3 "$(grep -c '^Linux version' $T/loop.out)"
check "record: samples from the shell and the cats" \
	test "$(awk '{ n += $NF } END { print n + 0 }' $T/loop.folded)" -ge 3
check_eq "no temporary probe left in kprobe_events" "" "$(cat $TRACEFS/kprobe_events)"

step "3d. threads"
# 3d. A command that starts threads (issue 10: pthread_create failed with
# EFAULT under inherited kprobe PMU events): TH threads, all alive together,
# of NT opens each; the workload exits 7 only if every pthread_create and
# every open succeeded. The probes count what the syscall tracepoints count.
TH=4 NT=25
pprobe stat -x, -e "kprobe:do_sys_openat2,kretprobe:do_sys_openat2,$SC" -o $T/thr.csv -- $W threads $TH $NT $TARGET >$T/thr.out
check_eq "stat on threads: the workload's status" 7 "$?"
cat $T/thr.out $T/thr.csv
opens=$(awk -F, '$3 ~ /^syscalls:/ { n += $1 } END { print n + 0 }' $T/thr.csv)
check "stat threads: open syscalls ($opens) >= $TH threads * $NT" test "$opens" -ge $((TH * NT))
check_eq "stat threads kprobe:do_sys_openat2 = open syscalls" "$opens" \
	"$(awk -F, '$3 == "kprobe:do_sys_openat2" { print $1 }' $T/thr.csv)"
check_eq "stat threads kretprobe:do_sys_openat2 = open syscalls" "$opens" \
	"$(awk -F, '$3 == "kretprobe:do_sys_openat2" { print $1 }' $T/thr.csv)"
check_eq "no temporary probe left after stat on threads" "" "$(cat $TRACEFS/kprobe_events)"
pprobe trace -e kretprobe:do_sys_openat2 -e "$SC" -o $T/thr.txt -- $W threads $TH $NT $TARGET >$T/thr.out
check_eq "trace on threads: the workload's status" 7 "$?"
cat $T/thr.out
rets=$(grep -c ' kretprobe:do_sys_openat2: (0x' $T/thr.txt)
check "trace threads: kretprobe hits ($rets) >= $TH threads * $NT" test "$rets" -ge $((TH * NT))
check_eq "trace threads kretprobe = open syscalls" "$(grep -c ' syscalls:sys_enter_open' $T/thr.txt)" "$rets"
grep ' kretprobe:do_sys_openat2: ' $T/thr.txt | grep -o '^ *vmprobe_wl-[0-9]*' | sort | uniq -c
check_eq "trace threads: tids with $NT or more kretprobe hits" $TH \
	"$(grep ' kretprobe:do_sys_openat2: ' $T/thr.txt | grep -o '^ *vmprobe_wl-[0-9]*' | sort | uniq -c | awk -v n=$NT '$1 >= n' | wc -l)"
check_eq "no temporary probe left after trace on threads" "" "$(cat $TRACEFS/kprobe_events)"

step "3e. stat -p on a process that forks after the attach"
# 3e. -p PID, then the process forks FC children of NC opens each: the forks
# succeed (the workload exits 7 only if every fork, child and open did) and
# the children are counted. The probe is a temporary kprobe_events probe of
# group pprobe_<pprobe's pid>; -I 100's first line says all is counting.
FC=3 NC=20
held $T/go2 fork fork $FC $NC $TARGET
pprobe stat -I 100 -x, -e "kprobe:do_sys_openat2,kretprobe:do_sys_openat2,$SC" -p $wpid 2>$T/fork.csv &
spid=$!
i=0
while ! { grep -q ",kretprobe:do_sys_openat2," $T/fork.csv && grep -q ",syscalls:sys_enter_openat," $T/fork.csv; } && [ $i -lt 600 ]; do
	sleep 0.1; i=$((i + 1))
done
check "stat -p -I 100 is counting" grep -q ',kprobe:do_sys_openat2,' $T/fork.csv
cat $TRACEFS/kprobe_events
check "stat -p: a temporary probe of group pprobe_$spid in kprobe_events" grep -q "^[pr]:pprobe_$spid/" $TRACEFS/kprobe_events
echo go >&8
exec 8>&-
wait $wpid
check_eq "fork workload under stat -p: its status (every fork and child succeeded)" 7 "$?"
cat $T/fork.out
wait $spid
check "stat -p ends with its process" test $? -eq 0
tail -4 $T/fork.csv
sum() { awk -F, -v e="$1" '$4 ~ e { n += $2 } END { print n + 0 }' $T/fork.csv; }
opens=$(sum '^syscalls:')
check "stat -p: open syscalls ($opens) >= $FC children * $NC" test "$opens" -ge $((FC * NC))
check_eq "stat -p kprobe:do_sys_openat2 on the forking process = open syscalls" "$opens" "$(sum '^kprobe:do_sys_openat2$')"
check_eq "stat -p kretprobe:do_sys_openat2 on the forking process = open syscalls" "$opens" "$(sum '^kretprobe:do_sys_openat2$')"
check_eq "no temporary probe left after stat -p" "" "$(cat $TRACEFS/kprobe_events)"

step "4. record"
# 4. The acceptance case: record -e probe:tcp_sendmsg -g -a over exactly K
# loopback sends: K samples, all one stack from the user side's send() down
# through the syscall entry and __sys_sendto to tcp_sendmsg.
pprobe record -e probe:tcp_sendmsg -g -a -o $T/rec.folded -- $W tcp $K $SIZE >$T/wl3.out
check "record -e probe:tcp_sendmsg -g -a succeeds" test $? -eq 0
cat $T/wl3.out $T/rec.folded
check_eq "record: samples" "$K" "$(awk '{ n += $NF } END { print n + 0 }' $T/rec.folded)"
check_eq "record: unique stacks" 1 "$(wc -l <$T/rec.folded)"
user="vmprobe_wl;_start;__libc_start_main;__libc_start_call_main;main;send_messages;send_message;__libc_send;"
check "record: the stack is send() -> syscall entry -> __sys_sendto -> ... -> tcp_sendmsg" \
	grep -qx "$user"'entry_SYSCALL_64_after_hwframe_\[k\];do_syscall_64_\[k\];\(.*;\)\{0,1\}__sys_sendto_\[k\];\(.*;\)\{0,1\}tcp_sendmsg_\[k\] '"$K" $T/rec.folded
check_eq "no kprobe left after record" "" "$(registered tcp_sendmsg)"

step "5. kill -9"
# 5. kill -9: the PMU probe goes with pprobe's file descriptors.
pprobe record -e probe:tcp_sendmsg -e kretprobe:do_sys_openat2 -g -a -o $T/killed.folded &
rpid=$!
NCPU=$(nproc)
check "kprobes registered while record runs (one per CPU)" wait_registered tcp_sendmsg $NCPU
check "kretprobes registered while record runs (one per CPU)" wait_registered do_sys_openat2 $NCPU
cat $KLIST
check_eq "kprobe_events while record runs (PMU probes are not tracefs probes)" "" "$(cat $TRACEFS/kprobe_events)"
kill -9 $rpid
wait $rpid 2>/dev/null
check_eq "no kprobe left after kill -9" "" "$(cat $KLIST)"

check_eq "no pprobe process left" "" "$(pidof pprobe)"
check_eq "kprobe_events empty" "" "$(cat $TRACEFS/kprobe_events)"
check_eq "kprobes registered" "" "$(cat $KLIST)"
rm -rf $T
done_testing
