#!/bin/sh
# Guest script (busybox ash) for tests/e2e/vm_record_offcpu.sh: record
# --off-cpu on Debian's 6.1 kernel (the host runs 6.18): the same
# prev_state encoding and PERF_RECORD_SWITCH records on an older kernel.
# Under TCG time is slow and uneven, so only what cannot vary is checked:
# a sleep never ends early (naps at least as long as asked, pipe waits
# nearly so, since they start a little after the helper's deadline is set;
# blocked, with their kernel frames), and a thread spinning beside another
# on one CPU is preempted.
. /vmtest/lib.sh

W=$WORKLOADS/offcpu_wl
T=/tmp/offcpu
mkdir -p $T
[ -x "$W" ] || skip "no workload $W in the guest"
[ -d $TRACEFS/events/sched/sched_switch ] || skip "guest kernel has no sched:sched_switch"

# sum FILE REGEX: total weight of the folded lines matching REGEX (busybox
# awk reads escapes in -v values: a literal [ is [[] there, not \[)
sum() { awk -v re="$2" '$0 ~ re { n += $NF } END { printf "%.0f\n", n }' "$1"; }
# at_least A B [MAX_RATIO]: B <= A <= B * MAX_RATIO (default 4)
at_least() { awk -v a="$1" -v b="$2" -v m="${3:-4}" 'BEGIN { exit !(a >= b && a <= b * m) }'; }

# 8 rounds in the parent (2 pipe waits), 4 in its exec'd child (1 wait);
# the fork, exec and a thread come halfway.
$PPROBE record --off-cpu -g -o $T/cmd.folded -- $W 8 4 >$T/wl.out 2>$T/err
st=$?
cat $T/err
check_eq "command: its exit status" 3 $st
burn=$(sum $T/cmd.folded '^offcpu_wl;.*;main;rounds;burn(;| )[^[]*$')
nap=$(sum $T/cmd.folded '^offcpu_wl;.*;main;rounds;nap;.*do_nanosleep_[[]k[]];.*schedule_[[]k[]];.*[[]off-cpu: blocked[]] [0-9]+$')
wait=$(sum $T/cmd.folded '^offcpu_wl;.*;main;rounds;wait_reply;.*pipe_read_[[]k[]];.*schedule_[[]k[]];.*[[]off-cpu: blocked[]] [0-9]+$')
echo "burn=$burn nap=$nap wait=$wait ns"
# where wait_reply's time went, for a failure's reader: its frames below it, the weight
awk '/;main;rounds;wait_reply;/ { sub(/.*;wait_reply;/, ""); n = split($0, f, ";"); print "wait_reply:", f[1] ";" f[2] " ... " f[n] }' $T/cmd.folded
# (cpu-clock's 1 ms hrtimer misses ticks under TCG: 12 x 10 ms burnt gave
# 55 ms of samples here, the host's kernel gives it within 2%)
check "command: burn on-CPU" [ "$burn" -gt 10000000 ]
check "command: 12 naps of 10 ms at least, blocked in do_nanosleep" at_least "$nap" 120000000
# A pipe wait is 10 ms from wait_reply's ask to the helper's reply. On the
# one guest CPU the scheduler splits it: main is often preempted right after
# its write (the helper wakes, and pprobe runs: under ASan and TCG 12-14 ms
# of the 30 seen) and blocked in pipe_read only for what is left, or not
# at all when the reply came first (3 waits: 0-30 ms blocked, the rest
# preempted). The kernel decides the split; the profile must hold the
# waits off-CPU in wait_reply's write and read, and no more than the
# workload's own clock says (from the ask to the reply; a preemption before
# or after, in clock_gettime, is outside both).
offw=$(sum $T/cmd.folded '^offcpu_wl;.*;main;rounds;wait_reply;(read|write);.*[[]off-cpu: (blocked|preempted)[]] [0-9]+$')
measured=$(awk '$1 == "waited" { m += $3 } END { printf "%.0f\n", m }' $T/wl.out)
echo "wait_reply's write and read off-CPU $offw ns (blocked in pipe_read $wait); the workload's own clock: $measured ns"
check "command: 3 pipe waits of ~10 ms off-CPU in wait_reply (>= 15 ms, <= its own clock + 2%)" \
	awk -v o="$offw" -v m="${measured:-0}" 'BEGIN { exit !(o >= 15000000 && o <= m * 1.02 + 2000000) }'
check "command: the side thread's naps" at_least "$(sum $T/cmd.folded '^offcpu_wl;.*;side_work;nap;.*[[]off-cpu: blocked[]] ')" 40000000
check "command: stacks from _start" [ "$(sum $T/cmd.folded '^offcpu_wl;_start;.*;main;rounds;nap;.*[[]off-cpu: blocked[]] ')" = "$nap" ]

$PPROBE record --off-cpu -g -o $T/c.folded -- $W contend 100 2>/dev/null
pre=$(sum $T/c.folded ';spin;burn_ms;.*[[]off-cpu: preempted[]] [0-9]+$')
spin=$(sum $T/c.folded ';spin;burn_ms( |;)[^[]*$')
echo "contend: on-CPU $spin, preempted $pre ns"
check "contend: each spinning thread preempted about as long as the other ran (>= 50%)" \
	awk -v p="$pre" -v s="$spin" 'BEGIN { exit !(s > 0 && p >= s / 2) }'
done_testing
