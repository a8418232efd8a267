#!/usr/bin/env bash
# record --off-cpu against perf's ways of recording context switches, on a
# switch-heavy workload (two threads ping-ponging a byte over a pipe), same
# run.
#
#   scripts/bench/offcpu.sh [BUILD_DIR]     (root; needs perf from linux-perf)
#   N=200000 RUNS=3 scripts/bench/offcpu.sh
#
# Prints a Markdown table: the workload's elapsed time (its own clock, the
# median of RUNS) and slowdown against it alone, the recorder's CPU (its
# process tree's, the workload's subtracted), the CPU of the post-processing
# perf needs before anything like a profile exists (perf script to text:
# the off-CPU intervals still have to be paired and folded from it, so this
# is a lower bound), bytes written, and lost records.
#
# The workload's two threads are pinned to CPU 0 (PIN=-1: not pinned): a
# ping-pong's speed otherwise depends mostly on where the scheduler puts
# them. perf's own --off-cpu needs BPF skeletons: Debian's perf 6.1 is
# built without them ("option `off-cpu' is being ignored because no
# BUILD_BPF_SKEL=1"), so the
# peers are what perf can do without BPF: sched_switch with callchains (the
# switch-outs only: the switch-ins need sched_switch of the other task, or
# -a) and perf sched record (system-wide, no stacks).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
PP=$build/pprobe
WL=$build/tests/workloads/offcpu_wl
N=${N:-100000}
RUNS=${RUNS:-3}
PIN=${PIN:-0}
command -v perf >/dev/null || { echo "perf not installed (apt-get install linux-perf)" >&2; exit 1; }
[ -x "$PP" ] && [ -x "$WL" ] || { echo "build pprobe first (scripts/build.sh)" >&2; exit 1; }
T=$(mktemp -d /tmp/pprobe-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

# cpu_of CMD...: run, print "wall user+sys" of CMD and all its children.
cpu_of() {
	/usr/bin/time -f '%e %U %S' -o "$T/time" "$@" >"$T/stdout" 2>"$T/stderr" || true
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$T/time"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
elapsed() { awk '$1 == "elapsed" { print $2 }' "$T/stdout"; }

# The workload alone: its elapsed time and CPU.
for i in $(seq "$RUNS"); do
	read -r _ c < <(cpu_of "$WL" pingpong "$N" "$PIN")
	echo "$(elapsed) $c"
done >"$T/alone"
base=$(awk '{ print $1 }' "$T/alone" | median)
wcpu=$(awk '{ print $2 }' "$T/alone" | median)

# row NAME POSTPROC_CMD|"" BYTES_FILE... -- CMD...: RUNS runs, medians.
row() {
	local name=$1 post=$2
	shift 2
	local files=()
	while [ "$1" != "--" ]; do files+=("$1"); shift; done
	shift
	: >"$T/runs"
	for i in $(seq "$RUNS"); do
		rm -f "$T"/out.*
		read -r _ total < <(cpu_of "$@")
		local el lost pcpu=0 bytes=0
		el=$(elapsed)
		[ -n "$el" ] || { echo "| $name | failed: $(head -c 200 "$T/stderr") |"; return; }
		if grep -q "lost records" "$T/stderr"; then
			lost=$(grep -o '[0-9]* lost records, [0-9]* lost samples' "$T/stderr" | awk '{ print $1 + $4 }')
		else
			# per event: "LOST_SAMPLES events: N" (no percentage)
			lost=$(perf report -i "$T/out.data" --stats 2>/dev/null |
				awk '/LOST_SAMPLES events:/ && !/%/ { s += $3 } END { print s + 0 }')
		fi
		if [ -n "$post" ]; then
			read -r _ pcpu < <(cpu_of sh -c "$post")
		fi
		for f in "${files[@]}"; do bytes=$((bytes + $(stat -c %s "$f" 2>/dev/null || echo 0))); done
		echo "$el $(echo "$total - $wcpu" | bc -l) $pcpu $bytes $lost" >>"$T/runs"
	done
	local el cpu pcpu bytes lost
	el=$(awk '{ print $1 }' "$T/runs" | median)
	cpu=$(awk '{ print $2 }' "$T/runs" | median)
	pcpu=$(awk '{ print $3 }' "$T/runs" | median)
	bytes=$(awk '{ print $4 }' "$T/runs" | median)
	lost=$(awk '{ print $5 }' "$T/runs" | median)
	printf '| %s | %.3f | %.2fx | %.3f | %s | %s | %s |\n' "$name" "$el" "$(echo "$el / $base" | bc -l)" "$cpu" \
		"$([ -n "$post" ] && printf '%.3f' "$pcpu" || echo "-")" "$bytes" "$lost"
}

echo "Workload: offcpu_wl pingpong $N $PIN (two threads on CPU $PIN, $N round trips over pipes: $((N * 2)) context switches at least; $base s alone); median of $RUNS runs; $(nproc) CPUs, $(uname -r)."
echo
echo "| recorder | workload s | slowdown | recorder CPU s | post-processing CPU s | bytes written | lost |"
echo "|---|---|---|---|---|---|---|"
printf '| (none) | %.3f | 1.00x | - | - | - | - |\n' "$base"
row "pprobe record --off-cpu -g (dwarf; folded, one pass)" "" "$T/out.folded" -- \
	"$PP" record --off-cpu -g -o "$T/out.folded" -- "$WL" pingpong "$N" "$PIN"
row "pprobe record --off-cpu --call-graph dwarf,1024" "" "$T/out.folded" -- \
	"$PP" record --off-cpu --call-graph dwarf,1024 -o "$T/out.folded" -- "$WL" pingpong "$N" "$PIN"
row "pprobe record --off-cpu --call-graph fp" "" "$T/out.folded" -- \
	"$PP" record --off-cpu --call-graph fp -o "$T/out.folded" -- "$WL" pingpong "$N" "$PIN"
row "pprobe record --off-cpu (no stacks)" "" "$T/out.folded" -- \
	"$PP" record --off-cpu -o "$T/out.folded" -- "$WL" pingpong "$N" "$PIN"
row "perf record -e sched:sched_switch -g (fp) + perf script" \
	"perf script -i '$T/out.data' >'$T/out.txt' 2>/dev/null" "$T/out.data" -- \
	perf record -q -e sched:sched_switch -g -o "$T/out.data" -- "$WL" pingpong "$N" "$PIN"
row "perf record -e sched:sched_switch --call-graph dwarf + perf script" \
	"perf script -i '$T/out.data' >'$T/out.txt' 2>/dev/null" "$T/out.data" -- \
	perf record -q -e sched:sched_switch --call-graph dwarf -o "$T/out.data" -- "$WL" pingpong "$N" "$PIN"
row "perf sched record (-a, no stacks) + perf script" \
	"perf script -i '$T/out.data' >'$T/out.txt' 2>/dev/null" "$T/out.data" -- \
	perf sched record -o "$T/out.data" -- "$WL" pingpong "$N" "$PIN"
