#!/usr/bin/env bash
# Unwinding on worker threads (issue 27, item 2: record --workers N): the
# output is the same as one thread's, byte for byte.
# - A uprobe on recurse() samples every call, so what is sampled is the same
#   in every run: unwind_wl's four threads (800 samples, 200 levels), and
#   three processes of it started by a shell (fork, exec, threads: 2,400).
#   With the live stack off (PPROBE_LIVE_STACK=0: what it holds depends on
#   when it is read) each stack comes from its copy and the thread's earlier
#   samples alone, so the folded files of 1, 2 and 4 workers must be equal.
#   --hold-exits: a thread's stack mapping is read from /proc/PID/maps (no
#   MMAP2 for it), which must still be there when its samples are unwound,
#   however late (a sanitized build is slow).
# - Sampled at a rate, no two runs are alike: PPROBE_WORKERS_CHECK=1 unwinds
#   each worker's stack again on the main thread, in the order the samples
#   came, and counts those that differ (gcc compiles and unwind_wl's
#   threads at once; the live stack off).
# - System-wide, the workers' own samples are left out as the other
#   threads of pprobe's are.
# - --workers' bad values: a usage error, one line.
. "$(dirname "$0")/lib.sh"
need_root
need_uprobe_events
unwind_check
W=$WORKLOADS/unwind_wl
export PPROBE_LIVE_STACK=0

for n in 1 2 4; do
	"$PPROBE" record -g --hold-exits --workers "$n" -e "uprobe:$W:recurse" -o "$T/t$n.folded" -- "$W" threads 200 1 \
		>/dev/null 2>"$T/t$n.err"
	check "threads, $n workers: record exits as unwind_wl did (0)" test $? -eq 0
	check "threads, $n workers: 800 samples" grep -q ' 800 samples' "$T/t$n.err"
	shown_on_failure "$T/t$n.err"
	"$PPROBE" record -g --hold-exits --workers "$n" -e "uprobe:$W:recurse" -o "$T/p$n.folded" -- \
		sh -c "$W threads 200 1 & $W threads 200 1 & $W threads 200 1; wait" >/dev/null 2>"$T/p$n.err"
	check "processes, $n workers: record exits as sh did (0)" test $? -eq 0
	check "processes, $n workers: 2400 samples" grep -q ' 2400 samples' "$T/p$n.err"
	shown_on_failure "$T/p$n.err"
done
check "threads: 200 unique stacks" test "$(wc -l < "$T/t1.folded")" -eq 200
check "processes: 2400 samples in the folded file" test "$(folded_sum "$T/p1.folded")" -eq 2400
for n in 2 4; do
	check "threads: $n workers' folded file is 1 worker's, byte for byte" cmp "$T/t1.folded" "$T/t$n.folded"
	check "processes: $n workers' folded file is 1 worker's, byte for byte" cmp "$T/p1.folded" "$T/p$n.folded"
done

# Rate-sampled: every stack a worker unwound, unwound again here.
PPROBE_WORKERS_CHECK=1 "$PPROBE" record -g --workers 2 -F 999 -o "$T/r.folded" -- sh -c \
	"for i in 1 2 3; do gcc -O2 -c -x c - -o $T/o\$i.o < $SRCDIR/symbolize/unwind.c & done; $W threads 100 2; wait" \
	>/dev/null 2>"$T/r.err"
check "rate-sampled: record exits as sh did (0)" test $? -eq 0
cat "$T/r.err" | grep -E 'samples|unwinding|workers check'
walks=$(sed -nE 's/.*workers check: ([0-9]+) of ([0-9]+) stacks.*/\1 \2/p' "$T/r.err")
check "rate-sampled: the workers' stacks were checked (> 500: ${walks#* })" test "${walks#* }" -gt 500
check "rate-sampled: each the same as unwound on the main thread (differ: ${walks% *})" test "${walks% *}" -eq 0
check "rate-sampled: the workers' unwinders share nothing that breaks gcc's stacks (>= 95% complete)" \
	awk '/unwinding:/ { for (i = 1; i <= NF; i++) if ($i == "complete,") { sub("%", "", $(i - 1)); ok = $(i - 1) + 0 >= 95 } }
		END { exit !ok }' "$T/r.err"

# System-wide: pprobe's worker threads (pprobe-unwN) are not profiled.
"$W" threads 50 3 >/dev/null &
load=$!
# --pid roots name each process: this pprobe's, not another one that runs
# on the machine meanwhile (a developer's, another test's)
"$PPROBE" record -a -g --pid --workers 2 -d 1 -o "$T/a.folded" >/dev/null 2>"$T/a.err" &
pp=$!
wait $pp
check "-a: record exits 0" test $? -eq 0
reap "$load"
check "-a: stacks recorded" test "$(folded_sum "$T/a.folded")" -gt 100
check "-a: none of pprobe's threads (pprobe-unwN) in the profile" not grep -qE "^pprobe[^;]*-$pp;" "$T/a.folded"
shown_on_failure "$T/a.err"

for bad in 0 65 x 2x; do
	"$PPROBE" record -g --workers "$bad" -- true >/dev/null 2>"$T/bad.err"
	rc=$?
	check "--workers $bad: usage error (2, got $rc), one line" test "$rc" -eq 2 -a "$(wc -l < "$T/bad.err")" -eq 1
done
grep . "$T/bad.err"
check "--help says --workers" sh -c "'$PPROBE' record --help | grep -q -- --workers"
done_testing
