#!/usr/bin/env bash
# node's own profiler against pprobe, same run (issue 25: the top functions
# agree with the runtime's own profiler). tests/workloads/jit_scripts/
# shares.js: round() calls heavy() and light(), which take CPU 2:1. node
# writes a V8 CPU profile (--cpu-prof, 1 ms) of its main thread while
# pprobe records it (--perf-basic-prof; --no-turbo-inlining keeps heavy and
# light their own frames in compiled round, as V8's profile keeps inlined
# ones). Of the samples under round() on the main thread, heavy's and
# light's shares are V8's within 5 points, and both profiles have round()
# as their caller: pprobe's leaf-to-root order is V8's.
# Not --interpreted-frames-native-stack: with it, V8's sampler looks code
# up from its SIGPROF handler under a lock the interrupted thread may hold
# (CodeObjectRegistry), and node 20 hung for good in one CI run.
. "$(dirname "$0")/lib.sh"
need_root
: "${SRCDIR:?SRCDIR not set (run through ctest)}"
S=$SRCDIR/tests/workloads/jit_scripts
command -v node >/dev/null || skip "no node (apt-get install nodejs)"
node --perf-basic-prof --no-turbo-inlining --cpu-prof --cpu-prof-dir="$T/prof" -e 0 2>/dev/null ||
	skip "this node has no --cpu-prof or --perf-basic-prof"
rm -rf "$T/prof"
timeout -s KILL 120 "$PPROBE" record -g --root-tid -o "$T/n.folded" -- node --perf-basic-prof --no-turbo-inlining \
	--cpu-prof --cpu-prof-dir="$T/prof" --cpu-prof-interval 1000 "$S/shares.js" 2 >"$T/out" 2>"$T/err"
rc=$?
pkill -KILL -f "$S/shares.js" 2>/dev/null
cat "$T/err"
check "record exits as node did (0, got $rc)" test "$rc" -eq 0
check "node ran the workload" grep -qx ok "$T/out"
prof=$(ls "$T"/prof/*.cpuprofile 2>/dev/null | head -1)
check "node wrote its CPU profile" test -n "$prof"
[ -n "$prof" ] || done_testing
node "$S/cpuprofile_share.js" "$prof" round heavy light > "$T/v8"
cat "$T/v8" | sed 's/^/V8: /'
# pprobe: the main thread (root node-PID/TID with TID = PID), under round
F='(JS:[*~^]?)?'
awk -v f="$F" '
	{ split($1, a, "[-/;]"); if (a[2] != a[3] || $0 !~ ";" f "round ") next; t += $NF
	  if ($0 ~ ";" f "heavy ") { h += $NF; if ($0 ~ ";" f "round [^;]*;" f "heavy ") hr += $NF }
	  if ($0 ~ ";" f "light ") { l += $NF; if ($0 ~ ";" f "round [^;]*;" f "light ") lr += $NF } }
	END { printf "%d %.2f %.2f %d %d %d %d\n", t, t ? 100 * h / t : 0, t ? 100 * l / t : 0, h, hr, l, lr }' \
	"$T/n.folded" > "$T/pp"
read -r run pheavy plight h hr l lr < "$T/pp"
read -r _ vrun vrcallers _ < <(grep '^round ' "$T/v8")
read -r _ vheavy vhcallers _ < <(grep '^heavy ' "$T/v8")
read -r _ vlight vlcallers _ < <(grep '^light ' "$T/v8")
# V8's shares of round's samples
vh=$(awk -v a="$vheavy" -v r="$vrun" 'BEGIN { printf "%.2f", (r > 0 ? 100 * a / r : 0) }')
vl=$(awk -v a="$vlight" -v r="$vrun" 'BEGIN { printf "%.2f", (r > 0 ? 100 * a / r : 0) }')
echo "under round(): pprobe $run samples, heavy $pheavy%, light $plight%; V8 heavy $vh%, light $vl%"
check "pprobe sampled round() on the main thread (>= 300, got $run)" test "$run" -ge 300
check "heavy: pprobe $pheavy% of round, V8 $vh% (within 5 points)" \
	awk -v a="$pheavy" -v b="$vh" 'BEGIN { exit !(b > 0 && a - b <= 5 && b - a <= 5) }'
check "light: pprobe $plight% of round, V8 $vl% (within 5 points)" \
	awk -v a="$plight" -v b="$vl" 'BEGIN { exit !(b > 0 && a - b <= 5 && b - a <= 5) }'
# (V8 names other callers too, now and then, for a sample taken while round's
# frame was being set up)
check "V8: heavy and light are called by round ($vhcallers; $vlcallers)" \
	eval 'echo ",$vhcallers," | grep -q ",round," && echo ",$vlcallers," | grep -q ",round,"'
check "pprobe: heavy's stacks go through round, as V8's ($hr of $h)" test $((hr * 100)) -ge $((h * 95))
check "pprobe: light's stacks go through round, as V8's ($lr of $l)" test $((lr * 100)) -ge $((l * 95))
done_testing
