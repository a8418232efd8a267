#!/bin/sh
# Guest script (runs inside scripts/vmtest.sh's VM under busybox ash: POSIX
# sh, no bash). Proves the VM offers what the kprobe tests need, with exact
# counts: the kprobe PMU, tracefs kprobe_events, a kprobe and a kretprobe
# created through tracefs that see exactly the opens this shell makes, and
# that the pprobe binary and the workloads run in the guest.
#   usage: kprobe_harness.sh [N_OPENS [N_FAILED_OPENS]]
. /vmtest/lib.sh

N=${1:-1000}
M=${2:-7}
GROUP=pprobe_vmtest
EV=$TRACEFS/events/$GROUP
TARGET=/tmp/vmtest-target

echo "facts:"
sed 's/^/  /' "$VMTEST_FACTS"

ktype=$(cat /sys/bus/event_source/devices/kprobe/type 2>/dev/null)
case $ktype in
'' | *[!0-9]*) fail "kprobe PMU: /sys/bus/event_source/devices/kprobe/type missing" ;;
*) pass "kprobe PMU type $ktype" ;;
esac
check "kretprobe bit in the kprobe PMU format" test -r /sys/bus/event_source/devices/kprobe/format/retprobe
check "uprobe PMU" test -r /sys/bus/event_source/devices/uprobe/type
check "tracefs kprobe_events" test -w $TRACEFS/kprobe_events
check "do_sys_openat2 in kallsyms" grep -qw do_sys_openat2 /proc/kallsyms
[ "$FAILS" -eq 0 ] || done_testing

# Clean up the probes on every exit path of this script.
cleanup() {
	[ -d "$EV" ] || return 0
	echo 0 >"$EV/enable" 2>/dev/null
	echo "-:$GROUP/open" >>$TRACEFS/kprobe_events 2>/dev/null
	echo "-:$GROUP/open_ret" >>$TRACEFS/kprobe_events 2>/dev/null
}
trap cleanup EXIT

# The entry probe fetches the file name (2nd argument of
# do_sys_openat2(dfd, filename, how)), so a filter on it keeps exactly the
# opens of $TARGET; the return probe keeps the opens made by this shell's pid.
check "create kprobe" sh -c "echo 'p:$GROUP/open do_sys_openat2 path=+0(\$arg2):string' >>$TRACEFS/kprobe_events"
check "create kretprobe" sh -c "echo 'r:$GROUP/open_ret do_sys_openat2 ret=\$retval:s32' >>$TRACEFS/kprobe_events"
if [ ! -d "$EV/open" ] || [ ! -d "$EV/open_ret" ]; then
	cat $TRACEFS/error_log >&2
	fail "probe events not created"
	done_testing
fi
check "filter on path" sh -c "echo 'path == \"$TARGET\"' >$EV/open/filter"
check "filter on pid" sh -c "echo 'common_pid == $$' >$EV/open_ret/filter"

echo data >$TARGET
exec 9>/dev/null      # stderr of the failing opens: dup2, not another open
echo >$TRACEFS/trace
# Toggle the events in subshells (other pids), so that the shell's own opens
# between enable and disable are exactly the loops' N + M.
(echo 1 >"$EV/enable")
i=0
while [ $i -lt "$N" ]; do
	true <$TARGET      # a builtin: one open in this shell's process
	i=$((i + 1))
done
i=0
while [ $i -lt "$M" ]; do
	true 2>&9 </nonexistent      # fails with ENOENT
	i=$((i + 1))
done
(echo 0 >"$EV/enable")

check_eq "kprobe hits on $TARGET" "$N" "$(grep -c ' open: ' $TRACEFS/trace)"
check_eq "kretprobe returns >= 0 in this shell" "$N" "$(grep ' open_ret: ' $TRACEFS/trace | grep -vc 'ret=-')"
check_eq "kretprobe returns -ENOENT in this shell" "$M" "$(grep -c ' open_ret: .*ret=-2$' $TRACEFS/trace)"
# kprobe_profile counts every hit, unfiltered: at least our N + M opens (the
# disabling subshell's open of 'enable' and any other process's opens come on top).
hits=$(awk '$1 == "open" { print $2 }' $TRACEFS/kprobe_profile)
missed=$(awk '$1 == "open" { print $3 }' $TRACEFS/kprobe_profile)
if [ "${hits:-0}" -ge $((N + M)) ]; then pass "kprobe_profile hits $hits >= $((N + M))"; else fail "kprobe_profile hits ${hits:-none} < $((N + M))"; fi
check_eq "kprobe_profile misses" 0 "$missed"

echo >$TRACEFS/trace
cleanup
check "probes removed" test ! -d "$EV"
check_eq "kprobe_events empty" "" "$(cat $TRACEFS/kprobe_events)"

# The pprobe binary (with its shared libraries) runs in the guest.
echo "pprobe-version: $("$PPROBE" --version 2>&1)"
check "pprobe --version runs" "$PPROBE" --version
echo "workloads: $(ls "$WORKLOADS" | tr '\n' ' ')"
for w in "$WORKLOADS"/*; do
	[ -f "$w" ] && [ -x "$w" ] || continue
	# Every workload's libraries resolve (ld.so --list says "not found" otherwise).
	missing=$(/lib64/ld-linux-x86-64.so.2 --list "$w" 2>&1 | grep 'not found')
	if [ -z "$missing" ]; then pass "workload $(basename "$w") loads"; else fail "workload $(basename "$w"): $missing"; fi
done
done_testing
