#!/bin/sh
# Guest script (busybox ash) for tests/e2e/vm_probe_add.sh: kernel tracefs
# probes with arguments in the VM (no kernel DWARF there: raw fetch-args
# %REG, +OFF(...), $argN, $retval), made by pprobe --add, listed by -l, used
# by trace/stat, removed by -d; temporary probes of -e 'SPEC ARG...' removed
# at exit (and swept after a kill -9). Exact values: the workload opens PATH
# N times and PATH.missing M times (ENOENT).
#   usage: probe_add.sh [N_OPENS [M_FAILED_OPENS]]
. /vmtest/lib.sh

N=${1:-3}
M=${2:-2}
W=$WORKLOADS/vmprobe_wl
T=/tmp/probe_add
mkdir -p $T
TARGET=$T/target
echo data >$TARGET
KE=$TRACEFS/kprobe_events

[ -x "$W" ] || skip "no workload $W in the guest"
[ -w $KE ] || skip "guest kernel has no kprobe_events"
OPENAT2=$(awk '$3 == "do_sys_openat2" && $2 ~ /^[tT]$/ { print $1; exit }' /proc/kallsyms)
[ -n "$OPENAT2" ] || skip "no do_sys_openat2 in /proc/kallsyms"
step() { echo "--- $* (guest uptime $(cut -d' ' -f1 /proc/uptime) s)"; }
# count FILE REGEX: lines of FILE matching REGEX (grep -c without its status)
count() { grep -c "$2" "$1"; }
check_eq "kprobe_events empty before" "" "$(cat $KE)"

step "1. --add"
# 1. --add with raw arguments: registers, a string through a register, $argN
# with an offset, $retval typed and untyped; a group and event name given.
pprobe --add 'do_sys_openat2 dfd=%di path=+0(%si):string' >$T/add1.out 2>&1
check "--add do_sys_openat2 dfd=%di path=+0(%si):string" test $? -eq 0
pprobe --add 'do_sys_openat2%return ret=$retval:s32' >$T/add2.out 2>&1
check "--add do_sys_openat2%return ret=\$retval:s32" test $? -eq 0
pprobe --add 'vmprobe:opn=do_sys_openat2 fn=+0($arg2):string flags=+0($arg3):x64' >$T/add3.out 2>&1
check "--add vmprobe:opn=do_sys_openat2 fn=+0(\$arg2):string flags=+0(\$arg3):x64" test $? -eq 0
pprobe --add 'do_sys_openat2%return $retval' >$T/add4.out 2>&1
check "--add do_sys_openat2%return \$retval" test $? -eq 0
cat $T/add1.out $T/add2.out $T/add3.out $T/add4.out
cat $KE
check "add: says probe:do_sys_openat2" grep -q '^  probe:do_sys_openat2 ' $T/add1.out
check "add: says probe:do_sys_openat2__return" grep -q '^  probe:do_sys_openat2__return ' $T/add2.out
check "add: says vmprobe:opn" grep -q '^  vmprobe:opn ' $T/add3.out
check "add: says probe:do_sys_openat2__return_1" grep -q '^  probe:do_sys_openat2__return_1 ' $T/add4.out
check_eq "kprobe_events: 4 probes" 4 "$(wc -l <$KE)"
check "kprobe_events: entry probe" grep -qx 'p:probe/do_sys_openat2 do_sys_openat2 dfd=%di\(:[a-z0-9]*\)\{0,1\} path=+0(%si):string' $KE
check "kprobe_events: return probe" grep -qx 'r[0-9]*:probe/do_sys_openat2__return do_sys_openat2 ret=$retval:s32' $KE
check "kprobe_events: named probe" grep -qx 'p:vmprobe/opn do_sys_openat2 fn=+0($arg2):string flags=+0($arg3):x64' $KE
check "kprobe_events: return probe, default name" grep -qx 'r[0-9]*:probe/do_sys_openat2__return_1 do_sys_openat2 [a-z_]*=$retval\(:[a-z0-9]*\)\{0,1\}' $KE

# -l: the four, and nothing else.
pprobe -l >$T/list.out 2>&1
check "-l succeeds" test $? -eq 0
cat $T/list.out
check_eq "-l: four probes" 4 "$(count $T/list.out '^  [a-z_]*:[a-z_0-9]* ')"
for e in probe:do_sys_openat2 probe:do_sys_openat2__return vmprobe:opn probe:do_sys_openat2__return_1; do
	check "-l lists $e" grep -q "^  $e " $T/list.out
done
pprobe -l 'vmprobe:*' >$T/list2.out 2>&1
check_eq "-l 'vmprobe:*': one probe" 1 "$(count $T/list2.out '^  [a-z_]*:[a-z_0-9]* ')"

step "2. trace"
# 2. trace prints the exact paths opened, the return values, the flags.
pprobe trace -e probe:do_sys_openat2 -e probe:do_sys_openat2__return -e vmprobe:opn \
	-e probe:do_sys_openat2__return_1 -o $T/trace.txt -- $W open $N $M $TARGET >$T/wl.out
check "trace -e probe:... succeeds" test $? -eq 0
cat $T/wl.out $T/trace.txt
check_eq "trace: entry events" $((N + M)) "$(count $T/trace.txt ' probe:do_sys_openat2: ')"
check_eq "trace: path=\"$TARGET\"" "$N" "$(count $T/trace.txt " probe:do_sys_openat2: (0x$OPENAT2) dfd=0xffffff9c path=\"$TARGET\"\$")"
check_eq "trace: path=\"$TARGET.missing\"" "$M" "$(count $T/trace.txt " probe:do_sys_openat2: (0x$OPENAT2) dfd=0xffffff9c path=\"$TARGET.missing\"\$")"
# The paths in the order opened: N times PATH, then M times PATH.missing.
want=$(i=0; while [ $i -lt $N ]; do echo "$TARGET"; i=$((i + 1)); done; i=0; while [ $i -lt $M ]; do echo "$TARGET.missing"; i=$((i + 1)); done)
check_eq "trace: the paths in order" "$want" "$(sed -n 's/.* probe:do_sys_openat2: .* path="\(.*\)"$/\1/p' $T/trace.txt)"
check_eq "trace: \$retval:s32 = 3 (the fd)" "$N" "$(count $T/trace.txt ' probe:do_sys_openat2__return: .* ret=3$')"
check_eq "trace: \$retval:s32 = -2 (ENOENT)" "$M" "$(count $T/trace.txt ' probe:do_sys_openat2__return: .* ret=-2$')"
check_eq "trace: \$retval = 0x3" "$N" "$(count $T/trace.txt ' probe:do_sys_openat2__return_1: .*=0x3$')"
check_eq "trace: \$retval = 0xfffffffffffffffe" "$M" "$(count $T/trace.txt ' probe:do_sys_openat2__return_1: .*=0xfffffffffffffffe$')"
# how->flags: O_RDONLY | O_LARGEFILE (0x8000, which the kernel adds on 64-bit)
check_eq "trace: \$arg2 string, \$arg3 struct's first u64" $((N + M)) \
	"$(count $T/trace.txt " vmprobe:opn: (0x$OPENAT2) fn=\"$TARGET\(.missing\)\{0,1\}\" flags=0x8000\$")"

step "3. stat, trace --filter"
# 3. stat counts them; a kernel filter on the string argument keeps exactly
# the opens of PATH, system-wide.
pprobe stat -x, -e 'probe:*,vmprobe:opn' -o $T/stat.csv -- $W open 20 7 $TARGET >/dev/null
cat $T/stat.csv
check_eq "stat -e 'probe:*,vmprobe:opn': counters" 4 "$(wc -l <$T/stat.csv)"
for e in probe:do_sys_openat2 probe:do_sys_openat2__return probe:do_sys_openat2__return_1 vmprobe:opn; do
	check_eq "stat $e" 27 "$(awk -F, -v e="$e" '$3 == e { print $1 }' $T/stat.csv)"
done
pprobe trace -a -e probe:do_sys_openat2 --filter "path == \"$TARGET\"" -o $T/filter.txt -- $W open 20 7 $TARGET >/dev/null
check_eq "trace -a --filter 'path == \"$TARGET\"'" 20 "$(count $T/filter.txt ' probe:do_sys_openat2: ')"

# The tracefs probe in record -g: exact stacks, as the PMU probe's.
pprobe record -q -g -e probe:do_sys_openat2 -o $T/rec.folded -- $W open 20 7 $TARGET >/dev/null
check "record -g -e probe:do_sys_openat2 succeeds" test $? -eq 0
cat $T/rec.folded
U="vmprobe_wl;_start;__libc_start_main;__libc_start_call_main;main;do_opens"
SYSENTRY='entry_SYSCALL_64_after_hwframe_\[k\];do_syscall_64_\[k\];'
check_eq "record -g: stacks" 2 "$(wc -l <$T/rec.folded)"
check "record -g: 20 under open_once, syscall entry .. do_sys_openat2" \
	grep -qx "$U;open_once;__libc_open;$SYSENTRY\(.*;\)\{0,1\}do_sys_openat2_\[k\] 20" $T/rec.folded
check "record -g: 7 under open_missing" \
	grep -qx "$U;open_missing;__libc_open;$SYSENTRY\(.*;\)\{0,1\}do_sys_openat2_\[k\] 7" $T/rec.folded

step "4. -d"
# 4. -d removes them (globs), -l then lists nothing.
pprobe -d 'probe:do_sys_openat2*' >$T/del.out 2>&1
check "-d 'probe:do_sys_openat2*' succeeds" test $? -eq 0
pprobe -d opn >>$T/del.out 2>&1
check "-d opn (an event in any group) succeeds" test $? -eq 0
cat $T/del.out
check_eq "-d: removed" 4 "$(count $T/del.out '^Removed event: ')"
check_eq "-l after -d" "" "$(pprobe -l 2>&1)"
check_eq "kprobe_events empty after -d" "" "$(cat $KE)"
check "no events/vmprobe left" test ! -d $TRACEFS/events/vmprobe

step "5. errors"
# 5. Refusals leave nothing: no such function; the kernel's own refusal of an
# offset inside an instruction (+4: in the 5-byte ftrace call site).
pprobe --add 'no_such_function_vmprobe path=+0(%si):string' >$T/err1.out 2>&1
rc=$?
cat $T/err1.out
check "--add no_such_function fails (status $rc)" test $rc -ne 0
check "... naming the function" grep -q no_such_function_vmprobe $T/err1.out
pprobe --add 'do_sys_openat2+4 dfd=%di' >$T/err2.out 2>&1
rc=$?
cat $T/err2.out
check "--add do_sys_openat2+4 (mid-instruction) fails (status $rc)" test $rc -ne 0
check_eq "kprobe_events empty after refusals" "" "$(cat $KE)"

step "6. temporary probes"
# 6. -e 'SPEC ARG...': a temporary tracefs probe for one run, gone at exit.
pprobe trace -e 'probe:do_sys_openat2 p=+0(%si):string' -e 'kretprobe:do_sys_openat2 r=$retval:s32' \
	-o $T/temp.txt -- $W open $N $M $TARGET >/dev/null
check "trace -e 'probe:do_sys_openat2 p=+0(%si):string' succeeds" test $? -eq 0
cat $T/temp.txt
check_eq "temporary: p=\"$TARGET\"" "$N" "$(count $T/temp.txt " probe:do_sys_openat2: .* p=\"$TARGET\"\$")"
check_eq "temporary: p=\"$TARGET.missing\"" "$M" "$(count $T/temp.txt " probe:do_sys_openat2: .* p=\"$TARGET.missing\"\$")"
check_eq "temporary: r=3" "$N" "$(count $T/temp.txt " kretprobe:do_sys_openat2: .* r=3\$")"
check_eq "temporary: r=-2" "$M" "$(count $T/temp.txt " kretprobe:do_sys_openat2: .* r=-2\$")"
check_eq "temporary probes gone after the run" "" "$(cat $KE)"
# SIGINT: removed on the way out.
pprobe trace -a -e 'probe:do_sys_openat2 p=+0(%si):string' -o $T/int.txt &
tpid=$!
i=0
while ! grep -q "^p:pprobe_$tpid/" $KE && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check "temporary probe pprobe_$tpid while trace runs" grep -q "^p:pprobe_$tpid/" $KE
kill -INT $tpid
wait $tpid
rc=$?
check "trace ends on SIGINT (status $rc)" test $rc -eq 0 -o $rc -eq 130
check_eq "temporary probe gone after SIGINT" "" "$(cat $KE)"
# kill -9: tracefs keeps the probe (nothing can remove it then); the next
# pprobe sweeps the group of the dead pid.
pprobe trace -a -e 'probe:do_sys_openat2 p=+0(%si):string' -o $T/kill.txt &
tpid=$!
i=0
while ! grep -q "^p:pprobe_$tpid/" $KE && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 $tpid
wait $tpid 2>/dev/null
check "after kill -9 the stale probe is still there (pprobe_$tpid)" grep -q "^p:pprobe_$tpid/" $KE
pprobe -l >$T/sweep.out 2>&1
cat $T/sweep.out
check_eq "the next pprobe (-l) swept it" "" "$(cat $KE)"

check_eq "no pprobe process left" "" "$(pidof pprobe)"
check_eq "kprobe_events empty" "" "$(cat $KE)"
check_eq "no probe groups left in events/" "" "$(ls -d $TRACEFS/events/probe $TRACEFS/events/vmprobe $TRACEFS/events/pprobe_* 2>/dev/null)"
rm -rf $T
done_testing
