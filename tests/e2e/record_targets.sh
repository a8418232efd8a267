#!/usr/bin/env bash
# Targets: fork+exec children, a dlopen'd library, -p, -t, -a, -C, -d.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS

# fork + exec of a differently named copy: the child's samples carry its own
# comm and symbols from its own image.
cp "$W/wl_record" "$T/wl_child"
"$PPROBE" record -e syscalls:sys_enter_prctl -g -o "$T/fe.folded" -- "$W/wl_record" fork-exec "$T/wl_child" prctl 321 2>/dev/null
check "exec'd child: 321 samples as wl_child under do_prctls" \
	[ "$(folded_sum "$T/fe.folded" '^wl_child;.*;main;do_prctls( |;)')" -eq 321 ]

# --tid / --pid (stackcollapse-perf.pl's spellings, no PID list after them):
# root frames comm-PID/TID and comm-PID. A command that forks and execs
# (wl_child) and one that starts threads: each thread under its own root.
"$PPROBE" record -e syscalls:sys_enter_prctl -e cpu-clock --tid -g -o "$T/tid.folded" -- bash -c "
	'$W/wl_record' fork-exec '$T/wl_child' prctl 321 & '$W/wl_record' threads 2 0.3 & wait" 2>"$T/tid.err"
check "--tid: exit 0 ($(tail -1 "$T/tid.err"))" [ $? -eq 0 ]
tp="$T/tid.syscalls-sys_enter_prctl.folded"
check "--tid: the exec'd child's 321 prctls under wl_child-PID/PID (pid = tid)" \
	[ "$(awk '$0 ~ /;do_prctls( |;)/ { split($1, f, ";"); if (f[1] ~ /^wl_child-[0-9]+\/[0-9]+$/) { split(substr(f[1], 10), p, "/"); if (p[1] == p[2]) n += $NF } } END { print n + 0 }' "$tp")" -eq 321 ]
# the threads: thread_spin samples under two TIDs of one PID, neither the PID
awk '/;thread_spin( |;)/ { split($1, f, ";"); print f[1] }' "$T/tid.cpu-clock.folded" | sort -u >"$T/tid.roots"
check "--tid: thread_spin under 2 roots wl_record-PID/TID of one PID, TID != PID ($(tr '\n' ' ' <"$T/tid.roots"))" \
	awk -F'[-/]' '{ pids[$2] = 1; if ($2 == $3) bad = 1; n++ } END { c = 0; for (p in pids) c++; exit !(n == 2 && c == 1 && !bad) }' "$T/tid.roots"
"$PPROBE" record -e syscalls:sys_enter_prctl --pid -o "$T/pidroot.folded" -- "$W/wl_record" fork-exec "$T/wl_child" prctl 7 2>/dev/null
check "--pid alone: root frames comm-PID" grep -qE '^wl_child-[0-9]+;.* 7$' "$T/pidroot.folded"

# A binary deleted while it runs is still symbolized after it exited: pprobe
# opens each file as it is mapped (then through /proc/PID/map_files).
cp "$W/wl_record" "$T/wl_gone"
"$PPROBE" record -g -o "$T/gone.folded" -- bash -c "'$T/wl_gone' hot 1 & p=\$!
	for i in \$(seq 100); do grep -q wl_gone /proc/\$p/maps 2>/dev/null && break; sleep 0.02; done
	sleep 0.1; rm -f '$T/wl_gone'; wait" 2>/dev/null
folded_user "$T/gone.folded" >"$T/gone.user"
gone=$(folded_sum "$T/gone.user" '^wl_gone;.*;main;run_hot;hot_(three|one)( |$)')
total=$(folded_sum "$T/gone.user" '^wl_gone;')
echo "deleted binary: hot=$gone of $total"
check "deleted binary: >= 90% of its samples named (main;run_hot;hot_*)" awk -v a="$gone" -v t="$total" 'BEGIN { exit !(t >= 50 && a / t >= 0.9) }'

# dlopen: samples in the library are named from it.
"$PPROBE" record -g -o "$T/dl.folded" -- "$W/wl_record" dlopen "$W/libwl_dl.so" 1 2>/dev/null
folded_user "$T/dl.folded" >"$T/dl.user"
dl=$(folded_sum "$T/dl.user" ';main;dl_spin;dl_inner( |$)')
total=$(folded_sum "$T/dl.user")
echo "dlopen: dl_spin;dl_inner=$dl total=$total"
check "dlopen: >= 80% of samples in dl_spin;dl_inner" awk -v a="$dl" -v t="$total" 'BEGIN { exit !(t >= 50 && a / t >= 0.8) }'

# -p: an existing process, for -d seconds.
"$W/wl_record" hot 6 & bg=$!
sleep 0.3
"$PPROBE" record -g --pid "$bg" -d 1 -o "$T/pid.folded" 2>"$T/err"	# perf's --pid PID: attach
st=$?
check "-p exits 0" [ $st -eq 0 ]
# (the user part: a sample in an interrupt that hit hot_one is hot_one's)
folded_user "$T/pid.folded" >"$T/pid.user"
hot=$(folded_sum "$T/pid.user" ';run_hot;hot_(one|three)( |$)')
total=$(folded_sum "$T/pid.user")
echo "-p: hot=$hot total=$total"
# (counts depend on the CPU the target gets: only a floor, the share is the point)
check "-p: samples (>= 100), >= 95% in hot functions" awk -v a="$hot" -v t="$total" 'BEGIN { exit !(t >= 100 && a / t >= 0.95) }'
check "-p: the target keeps running" kill -0 "$bg"

# -t: one thread of it.
"$PPROBE" record -t "$bg" -d 0.5 -o "$T/tid.folded" 2>/dev/null
check "-t: samples of the thread" [ "$(folded_sum "$T/tid.folded" '^wl_record;')" -ge 30 ]
kill "$bg"; wait "$bg" 2>/dev/null

# -p follows the process until it exits, without -d.
"$W/wl_record" hot 1.5 & bg=$!
sleep 0.1
timeout 10 "$PPROBE" record -p "$bg" -o "$T/pexit.folded" 2>/dev/null
check "-p stops when the target exits" [ $? -eq 0 ]
check "-p until exit: samples" [ "$(folded_sum "$T/pexit.folded")" -ge 20 ]

# -a: all CPUs; a command only bounds the duration. Count only our comm:
# other processes may call prctl too.
"$PPROBE" record -a -e syscalls:sys_enter_prctl -o "$T/a.folded" -- "$W/wl_record" prctl 400 2>/dev/null
check "-a: exactly 400 prctl samples of wl_record" [ "$(folded_sum "$T/a.folded" '^wl_record;')" -eq 400 ]

# -C 0: only CPU 0, pinned workloads on CPU 0 and CPU 1.
if [ "$(nproc)" -ge 2 ]; then
	"$PPROBE" record -C 0 -e syscalls:sys_enter_prctl -o "$T/c.folded" -- \
		sh -c "taskset -c 0 '$W/wl_record' prctl 100; taskset -c 1 '$W/wl_record' prctl 50" 2>/dev/null
	check "-C 0: the 100 calls on CPU 0 only" [ "$(folded_sum "$T/c.folded" '^wl_record;')" -eq 100 ]
fi

# -a -d: duration bound without a command.
start=$(date +%s.%N)
"$PPROBE" record -a -d 0.5 -o "$T/d.folded" 2>/dev/null
end=$(date +%s.%N)
check "-a -d 0.5 takes ~0.5 s" awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s >= 0.45 && e - s < 5) }'

# -a -g on busy CPUs: pprobe's own samples are left out before they are
# queued (none under its PID, the count said), and the events stop at the
# deadline however long the unwinding of what was queued takes (the summary's
# span is the -d asked for).
# loops CMD: CMD looping on both CPUs, their PIDs in $loops (stop_loops)
loops() {
	loops=""
	for _ in 1 2; do
		sh -c "while :; do $1; done" &
		loops="$loops $!"
	done
}
stop_loops() {
	# shellcheck disable=SC2086
	kill $loops 2>/dev/null
	# shellcheck disable=SC2086
	wait $loops 2>/dev/null
}
# check_span WHAT ERR D: the span record's summary (ERR) gives is -d's D,
# within 50 ms (the lower bound 5% under D)
check_span() {
	local span
	span=$(sed -n 's/^pprobe record: \([0-9.]*\) s, .*/\1/p' "$2")
	check "$1: the span recorded is $3 s within 50 ms (${span:-none})" \
		awk -v s="${span:-0}" -v d="$3" 'BEGIN { exit !(s >= d * 0.95 && s <= d + 0.05) }'
}
loops :
"$PPROBE" record -a -g -F 999 -d 1 --pid -o "$T/busy.folded" 2>"$T/busy.err" &
ppid=$!
wait $ppid
rc=$?
stop_loops
check "-a -g busy: exit 0 ($(grep -m1 ' s, ' "$T/busy.err"))" [ $rc -eq 0 ]
check "-a -g busy: no stack of pprobe's own PID $ppid ($(grep -c "^pprobe-$ppid;" "$T/busy.folded") lines)" \
	sh -c "! grep -q '^pprobe-$ppid;' '$T/busy.folded'"
check "-a -g busy: the busy loops sampled ($(grep -c '^sh-' "$T/busy.folded") sh lines)" grep -q '^sh-' "$T/busy.folded"
own=$(sed -n "s/^pprobe record: \([0-9]*\) samples of pprobe's own threads left out$/\1/p" "$T/busy.err")
echo "# own samples left out: ${own:-none said}"
loops /bin/true
# The first samples of short processes make the main thread read their
# files (libc's debug file from libc6-dbg: ~0.17 s) while a -d 0.1 ends:
# the drain thread stops the events at the deadline all the same (the main
# thread alone stopped them at 0.21-0.27 s).
"$PPROBE" record -a -g -d 0.1 -o "$T/short.folded" 2>"$T/short.err"
check_span "-a -g churn -d 0.1" "$T/short.err" 0.1
# Sideband in a ring of its own: with process churn and a samples' ring too
# small for the rate (-m 32), samples are lost (said) but no mmap, comm or
# fork record is, and the run still ends at -d.
"$PPROBE" record -a -g -m 32 -d 1 -o "$T/churn.folded" 2>"$T/churn.err"
stop_loops
grep ' lost' "$T/churn.err" | sed 's/^/# /'
check "-m 32 churn: no sideband record lost" sh -c "! grep -q 'records lost (.*the sideband' '$T/churn.err'"
check "-m 32 churn: the short processes named (true or dash stacks)" grep -qE '^(true|sh|dash);' "$T/churn.folded"
# once 2.76 s of a -d 1 when the main thread alone stopped the events
check_span "-m 32 churn -d 1" "$T/churn.err" 1

# A tracepoint pprobe itself hits (it opens files while it symbolizes): its
# own hits are filtered out in the kernel (before: 1,592 left out on the
# drain thread in a 3 s run of process churn), and not counted lost
# against the kernel's count. With a --filter of the user's, the two
# filters are one (the kernel takes one per event).
for f in "" "flags != 12345"; do
	"$PPROBE" record -a -g -e syscalls:sys_enter_openat ${f:+--filter "$f"} --pid -o "$T/open.folded" -- \
		sh -c "for i in \$(seq 40); do cat /etc/hostname /etc/passwd >/dev/null; done" 2>"$T/open.err" &
	ppid2=$!
	wait $ppid2
	w=${f:+ --filter}
	check "-a openat$w: exit 0, nothing lost ($(grep -m1 ' s, ' "$T/open.err"))" \
		grep -q ' s, [0-9]* samples, 0 lost records, 0 lost samples' "$T/open.err"
	check "-a openat$w: no stack of pprobe's own PID $ppid2" sh -c "! grep -q '^pprobe-$ppid2;' '$T/open.folded'"
	check "-a openat$w: cat's openats recorded (40 runs of 2 files: $(folded_sum "$T/open.folded" '^cat-'))" \
		[ "$(folded_sum "$T/open.folded" '^cat-')" -ge 80 ]
	check "-a openat$w: pprobe's own openats filtered out in the kernel, none left to leave out ($(grep "own threads" "$T/open.err"))" \
		not grep -q "own threads left out" "$T/open.err"
done
check_span "-a -g busy -d 1" "$T/busy.err" 1
done_testing
