#!/usr/bin/env bash
# Stacks sampled in a signal handler (wl_record handler: SIGALRM every 1.5-2.5 ms,
# its handler spins in in_handler while main spins in run_hot): the walk goes
# through the kernel's signal frame to the interrupted code and on to _start,
# with both unwinders. The frame between is glibc's __restore_rt, named: the
# handler's return address is the trampoline's first byte, and the byte
# before it, where a caller's frame is looked up, is in no function.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
W=$WORKLOADS/wl_record
for u in libdw libunwind; do
	"$PPROBE" record -g --unwinder "$u" -o "$T/$u.folded" -- "$W" handler 1.5 >/dev/null 2>"$T/err"
	rc=$?
	check "$u: record exits as the workload did (0, got $rc)" test "$rc" -eq 0
	folded_user "$T/$u.folded" > "$T/u.folded"
	n=$(folded_sum "$T/u.folded" ';on_alarm;in_handler( |;)')
	full=$(folded_sum "$T/u.folded" "^wl_record;_start;.*;main;run_hot;(.*;)?__restore_rt;on_alarm;in_handler( |;)")
	echo "$u: $full of $n stacks in the handler go on through __restore_rt to main and _start"
	grep ';in_handler' "$T/u.folded" | grep -v "^wl_record;_start;.*;main;run_hot;.*__restore_rt" | head -3 | sed 's/^/  not through: /'
	check "$u: the handler is sampled (>= 30 stacks, got $n)" test "$n" -ge 30
	check "$u: >= 95% of them go on to _start through __restore_rt ($full of $n)" test $((full * 100)) -ge $((n * 95))
done
done_testing
