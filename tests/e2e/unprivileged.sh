#!/usr/bin/env bash
# An ordinary user (runuser -u nobody), as perf lets one (issue 28): at
# kernel.perf_event_paranoid 2 record -g and stat of the user's own command
# (sh forking a program that starts threads) work with user-space-only
# events, said once in one line; rings shrink to the memory such a user may
# lock, said once; what stays refused (-a, another user's process, a
# tracepoint behind tracefs's permissions) is said once, in one line naming
# the sysctl or capability that would allow it. At paranoid 1 kernel space
# is allowed and nothing is said. The sysctl is put back on every exit.
. "$(dirname "$0")/lib.sh"
need_root
command -v runuser >/dev/null || skip "no runuser (util-linux)"
P=/proc/sys/kernel/perf_event_paranoid
old=$(cat $P)
echo 2 > $P 2>/dev/null || skip "kernel.perf_event_paranoid cannot be set here"
trap 'echo "$old" > $P; rm -rf "$T" "$T.cache"' EXIT
runuser -u nobody -- test -x "$PPROBE" || skip "nobody cannot run $PPROBE (a directory above it is closed)"
runuser -u nobody -- test -x "$WORKLOADS/wl_record" || skip "nobody cannot run the workloads"
U=$T/nobody
chmod o+x "$T"	# mktemp -d makes it 0700
mkdir "$U" && chmod 1777 "$U"
as_nobody() { (cd "$U" && runuser -u nobody -- env PPROBE_CACHE_DIR= "$@"); }
WL="$WORKLOADS/wl_record threads 2 0.5"

for level in 2 1; do
	echo $level > $P
	as_nobody "$PPROBE" record -g -o "$U/r$level.folded" -- sh -c "$WL" >/dev/null 2>"$U/r$level.err"
	rc=$?
	check "paranoid $level: record -g as nobody: exit 0 (got $rc)" test "$rc" -eq 0
	check "paranoid $level: record -g: the threads' stacks, whole (thread_main under start_thread)" \
		grep -qE '^wl_record;.*start_thread;.*thread_main' "$U/r$level.folded"
	as_nobody "$PPROBE" stat -- sh -c "$WL" >"$U/s$level.out" 2>&1
	rc=$?
	check "paranoid $level: stat as nobody: exit 0 (got $rc)" test "$rc" -eq 0
	check "paranoid $level: stat: task-clock counted" grep -qE '[0-9.]+ +msec task-clock' "$U/s$level.out"
	check "paranoid $level: no permission error from record or stat" \
		not grep -q 'no permission' "$U/r$level.err" "$U/s$level.out"
	shown_on_failure "$U/r$level.err" "$U/s$level.out"
done
check "paranoid 2: record says user space only, once" \
	test "$(grep -c 'user space only (kernel.perf_event_paranoid is 2 and no CAP_PERFMON)' "$U/r2.err")" -eq 1
check "paranoid 2: record says its smaller rings, once" test "$(grep -c 'what an unprivileged user may lock' "$U/r2.err")" -eq 1
check "paranoid 2: no kernel frames" not grep -q '_\[k\]' "$U/r2.folded"
check "paranoid 2: stat says user space only, once, naming its events" \
	test "$(grep -c 'user space only .* for task-clock, context-switches' "$U/s2.out")" -eq 1
check "paranoid 2: stat names its counts as perf stat does (task-clock:u)" grep -qE 'msec task-clock:u ' "$U/s2.out"
check "paranoid 1: kernel space allowed: nothing said of user space" not grep -q 'user space only' "$U/r1.err" "$U/s1.out"
check "paranoid 1: stat's counts not marked :u" grep -qE 'msec task-clock +#' "$U/s1.out"

echo 2 > $P
as_nobody "$PPROBE" stat -r 3 -- true >/dev/null 2>"$U/r3.err"
check "paranoid 2: stat -r 3 says it once, not each run" test "$(grep -c 'user space only' "$U/r3.err")" -eq 1

# Still refused, each said once in one line with what would allow it.
as_nobody "$PPROBE" record -a -d 0.2 -o "$U/a.folded" >/dev/null 2>"$U/a.err"
rc=$?
check "record -a: exit 1 (got $rc)" test "$rc" -eq 1
check "record -a: one line naming paranoid 0 and CAP_PERFMON" \
	test "$(wc -l <"$U/a.err")" -eq 1 -a -n "$(grep "kernel.perf_event_paranoid=0'.*cap_perfmon" "$U/a.err")"
as_nobody "$PPROBE" record -p 1 -d 0.2 -o "$U/p.folded" >/dev/null 2>"$U/p.err"
check "record -p of root's process: one line saying whose it is" \
	test "$(wc -l <"$U/p.err")" -eq 1 -a -n "$(grep 'no permission to watch 1 .*belongs to another user (uid 0)' "$U/p.err")"
as_nobody "$PPROBE" stat -a -- sleep 0.1 >/dev/null 2>"$U/sa.err"
check "stat -a: the refusal explained once" test "$(grep -c 'no permission' "$U/sa.err")" -eq 1
check "stat -a: the other events named as refused alike" grep -q 'refused alike: context-switches, cpu-migrations, page-faults' "$U/sa.err"
"$PPROBE" trace -e syscalls:sys_enter_prctl -- true >/dev/null 2>&1	# root mounts tracefs, as a first run would
as_nobody "$PPROBE" trace -e syscalls:sys_enter_prctl -- "$WORKLOADS/wl_record" prctl 3 >/dev/null 2>"$U/t.err"
rc=$?
if runuser -u nobody -- test -r /sys/kernel/tracing/events/syscalls/sys_enter_prctl/format 2>/dev/null; then
	echo "SKIP part: tracefs is readable by nobody here"
else
	check "trace of a tracepoint tracefs keeps from nobody: exit 2 (got $rc)" test "$rc" -eq 2
	check "trace: one line saying tracefs's permissions and paranoid -1" \
		test "$(wc -l <"$U/t.err")" -eq 1 -a -n "$(grep 'not accessible to this user.*paranoid -1' "$U/t.err")"
fi
shown_on_failure "$U/a.err" "$U/p.err" "$U/sa.err" "$U/t.err"
done_testing
