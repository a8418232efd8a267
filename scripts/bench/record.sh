#!/usr/bin/env bash
# pprobe record vs perf record + perf script + folding, same workload, same run.
#
#   scripts/bench/record.sh [BUILD_DIR]     (root; needs perf from linux-perf)
#
# Prints a Markdown table: profiler CPU seconds (the profiler's own, the
# workload's CPU subtracted), bytes written, the workload's slowdown at 999 Hz
# and 9,999 Hz, lost events; and the kept-events counts of bursts of 1,000,
# 10,000 and 100,000 traced syscalls with stacks (BURSTS_ONLY=1: those alone).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
PP=$build/pprobe
WL=$build/tests/workloads/wl_record
ROUNDS=${ROUNDS:-6000}
command -v perf >/dev/null || { echo "perf not installed (apt-get install linux-perf)" >&2; exit 1; }
[ -x "$PP" ] && [ -x "$WL" ] || { echo "build pprobe first (scripts/build.sh)" >&2; exit 1; }
T=$(mktemp -d /tmp/pprobe-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

# cpu_of CMD...: run, print "wall user+sys" of CMD and all its children.
cpu_of() {
	/usr/bin/time -f '%e %U %S' -o "$T/time" "$@" >"$T/stdout" 2>"$T/stderr"
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$T/time"
}
wl_field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$T/stdout"; }
median3() { sort -n | awk '{ a[NR] = $1 } END { print a[2] }'; }

if [ -z "${BURSTS_ONLY:-}" ]; then
base=$(for i in 1 2 3; do "$WL" fixed "$ROUNDS" | awk '{ print $2 }'; done | median3)

echo "Workload: wl_record fixed $ROUNDS (hot loops + write(2)s, $base s alone); one run each."
echo
echo "| profiler | stacks | rate | profiler CPU s | bytes written | workload slowdown | lost |"
echo "|---|---|---|---|---|---|---|"
for cg in fp dwarf; do
for hz in 999 9999; do
	# pprobe: one pass, folded output.
	read -r _ total < <(cpu_of "$PP" record --call-graph "$cg" -F "$hz" -o "$T/pp.folded" -- "$WL" fixed "$ROUNDS")
	wcpu=$(wl_field cpu); wel=$(wl_field elapsed)
	lost=$(grep -o '[0-9]* lost records, [0-9]* lost samples' "$T/stderr" | awk '{ print $1 + $4 }')
	printf '| pprobe record | %s | %s Hz | %.3f | %s | %.3fx | %s |\n' "$cg" "$hz" \
		"$(echo "$total - $wcpu" | bc -l)" "$(stat -c %s "$T/pp.folded")" "$(echo "$wel / $base" | bc -l)" "$lost"

	# perf: record, then script, then fold.
	read -r _ total < <(cpu_of perf record -q --call-graph "$cg" -F "$hz" -o "$T/perf.data" -- "$WL" fixed "$ROUNDS")
	wcpu=$(wl_field cpu); wel=$(wl_field elapsed)
	lost=$(perf report -i "$T/perf.data" --stats 2>/dev/null | awk '/LOST/ { s += $NF } END { print s + 0 }')
	read -r _ scpu < <(cpu_of sh -c "perf script -i '$T/perf.data' 2>/dev/null | awk -f '$here/fold-perf-script.awk' > '$T/perf.folded'")
	bytes=$(( $(stat -c %s "$T/perf.data") + $(stat -c %s "$T/perf.folded") ))
	printf '| perf record + script + fold | %s | %s Hz | %.3f | %s | %.3fx | %s |\n' "$cg" "$hz" \
		"$(echo "$total - $wcpu + $scpu" | bc -l)" "$bytes" "$(echo "$wel / $base" | bc -l)" "$lost"
done
done
echo
fi

echo "Bursts of prctl(2) calls traced with stacks (-e syscalls:sys_enter_prctl), events kept:"
echo
echo "| profiler | call graph | of 1,000 | of 10,000 | of 100,000 |"
echo "|---|---|---|---|---|"
for cg in fp dwarf; do
	row="| pprobe record | $cg |"
	for n in 1000 10000 100000; do
		"$PP" record --call-graph "$cg" -e syscalls:sys_enter_prctl -o "$T/b.folded" -- "$WL" prctl $n 2>"$T/b.err"
		row="$row $(awk '{ s += $NF } END { print s + 0 }' "$T/b.folded") ($(grep -o 'queue peak [0-9.]* MiB' "$T/b.err" | awk '{ print $3 }') MiB queued) |"
	done
	echo "$row"
	row="| perf record | $cg |"
	for n in 1000 10000 100000; do
		perf record -q --call-graph "$cg" -e syscalls:sys_enter_prctl -o "$T/b.data" -- "$WL" prctl $n >/dev/null 2>&1
		row="$row $(perf script -i "$T/b.data" -F event 2>/dev/null | grep -c sys_enter_prctl) |"
	done
	echo "$row"
done
