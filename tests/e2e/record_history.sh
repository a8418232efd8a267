#!/usr/bin/env bash
# A thread's earlier samples complete a later one whose stack copy ends
# short (issue 27, item 4: events that fire on every occurrence get 4 KB
# copies; a busy thread's live stack has moved on). unwind_wl threads: four
# threads each recurse 200 levels of 256+ bytes (60 KB deep), a uprobe on
# recurse() samples every level on the way down. The live stack is turned
# off (PPROBE_LIVE_STACK=0, as when the thread moved on), so only the earlier
# samples can complete a stack deeper than the copy:
# - without them (PPROBE_UNWIND_HISTORY=0) most stacks end truncated;
# - with them every stack is complete and exact: clone3, start_thread,
#   thread_main, then as many recurse frames as the level, for each of the
#   four threads (800 samples, 200 unique stacks each counted 4 times: one
#   thread's bytes never complete another's);
# - the summary says how many came from earlier samples;
# - the same when every sample is unwound after the process is gone.
. "$(dirname "$0")/lib.sh"
need_root
need_uprobe_events
unwind_check
W=$WORKLOADS/unwind_wl

PPROBE_LIVE_STACK=0 PPROBE_UNWIND_HISTORY=0 "$PPROBE" record -g -e "uprobe:$W:recurse" -o "$T/off.folded" -- "$W" threads 200 1 >/dev/null 2>"$T/off.err"
check "without history: record exits as unwind_wl did (0)" test $? -eq 0
cat "$T/off.err"
trunc=$(folded_sum "$T/off.folded" '\[truncated\]')
check "without history: most stacks are cut where the copy ends (>= 600 of 800 truncated, got $trunc)" test "$trunc" -ge 600

for u in libdw libunwind; do
	PPROBE_LIVE_STACK=0 "$PPROBE" record -g --unwinder "$u" -e "uprobe:$W:recurse" -o "$T/on.folded" -- "$W" threads 200 1 >/dev/null 2>"$T/on.err"
	check "$u: with history: record exits as unwind_wl did (0)" test $? -eq 0
	cat "$T/on.err"
	check "$u: 800 samples" grep -q ' 800 samples' "$T/on.err"
	check "$u: the summary says stacks came from earlier samples" grep -qE ', [0-9]+ from the thread.s earlier samples' "$T/on.err"
	exact=$(awk '{ n = split($1, a, ";"); r = 0; for (i = 5; i <= n; i++) r += a[i] == "recurse"
		if ($NF == 4 && a[2] == "clone3" && a[3] == "start_thread" && a[4] == "thread_main" && r == n - 4) { ok++; d[r] = 1 } }
		END { for (k in d) nd++; print ok + 0, nd + 0 }' "$T/on.folded")
	check "$u: 200 exact stacks, one per level 1-200, each from all 4 threads (got ${exact% *} exact, ${exact#* } levels)" \
		test "$exact" = "200 200"
	check "$u: and nothing else" test "$(wc -l < "$T/on.folded")" -eq 200
done

# The same, every sample unwound after its process is gone, as on a busy
# machine that fell behind: pprobe is stopped (SIGSTOP) from before the
# workload runs until it has exited (a zombie: its memory gone), the
# samples wait in the rings (-m: room for all 800). The thread stacks'
# bounds can no longer be asked of /proc; the earlier samples must still
# complete every stack.
PPROBE_LIVE_STACK=0 "$PPROBE" record -g -m 2048 -e "uprobe:$W:recurse" -o "$T/gone.folded" \
	-- sh -c "sleep 1; exec $W threads 200 1" >/dev/null 2>"$T/gone.err" &
pp=$!
state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
sh_pid=
for _ in $(seq 200); do	# the command released: its sleep runs
	sh_pid=$(pgrep -P "$pp" | head -1)
	[ -n "$sh_pid" ] && pgrep -x sleep -P "$sh_pid" >/dev/null && break
	sleep 0.05
done
kill -STOP "$pp"
for _ in $(seq 400); do
	[ "$(state "$sh_pid")" = Z ] && break
	sleep 0.05
done
check "gone: the workload ran and exited while pprobe was stopped" test "$(state "$sh_pid")" = Z
kill -CONT "$pp"
wait "$pp"
check "gone: record exits as unwind_wl did (0)" test $? -eq 0
cat "$T/gone.err"
check "gone: 800 samples, none lost" grep -q ' 800 samples, 0 lost records, 0 lost samples' "$T/gone.err"
exact=$(awk '{ n = split($1, a, ";"); r = 0; for (i = 5; i <= n; i++) r += a[i] == "recurse"
	if ($NF == 4 && a[2] == "clone3" && a[3] == "start_thread" && a[4] == "thread_main" && r == n - 4) ok++ }
	END { print ok + 0 }' "$T/gone.folded")
check "gone: 200 exact stacks from the earlier samples, as while it lived (got $exact)" test "$exact" -eq 200
shown_on_failure "$T/gone.folded"
done_testing
