#!/usr/bin/env bash
# Syscall tracing cost: pprobe trace --syscalls against perf trace and strace
# on the same workload, in one run.
#
#   scripts/bench/trace_syscalls.sh [N] [RUNS]     (default 200000 calls, 3 runs)
#
# The workload makes exactly N prctl(PR_GET_DUMPABLE) calls (tests/workloads
# wl_record prctl N); each tool traces only prctl, one line per call, to a
# file. Printed per tool: the median wall time of the whole traced run
# (start-up included), the slowdown against the untraced workload, and the
# lines written, which must be N (a tool that drops calls is faster for it:
# the column says so).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-200000}
RUNS=${2:-3}
PPROBE=${PPROBE:-build/pprobe}
WL=${WL:-build/tests/workloads/wl_record}
W=${BENCH_DIR:-/tmp/pprobe-bench-syscalls}
mkdir -p "$W"
[ -x "$PPROBE" ] || { echo "$PPROBE missing: build first (scripts/build.sh)" >&2; exit 1; }
[ -x "$WL" ] || { echo "$WL missing: build first" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "needs root (tracepoints)" >&2; exit 1; }

# time_of CMD...: wall seconds of CMD
time_of() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>>"$W/err" || { echo "failed: $* (see $W/err)" >&2; return 1; }
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# bench NAME LINES_FILE CMD...: "NAME median_s lines"
bench() {
	local name=$1 out=$2; shift 2
	local times=()
	for ((r = 0; r < RUNS; r++)); do
		rm -f "$out"
		times+=("$(time_of "$@")")
	done
	local lines=0
	[ -n "$out" ] && [ -f "$out" ] && lines=$(grep -c 'prctl(' "$out" || true)
	printf '%s %s %s\n' "$name" "$(printf '%s\n' "${times[@]}" | median)" "$lines"
}

: >"$W/err"
{
	bench untraced "" "$WL" prctl "$N"
	bench "pprobe trace --syscalls" "$W/pprobe.txt" "$PPROBE" trace --syscalls -e prctl -o "$W/pprobe.txt" -- "$WL" prctl "$N"
	if command -v perf >/dev/null; then
		bench "perf trace" "$W/perf.txt" perf trace -e prctl -o "$W/perf.txt" -- "$WL" prctl "$N"
	fi
	if command -v strace >/dev/null; then
		bench "strace -f" "$W/strace.txt" strace -f -e trace=prctl -o "$W/strace.txt" "$WL" prctl "$N"
	fi
} >"$W/results"

base=$(awk '$1 == "untraced" { print $2 }' "$W/results")
echo "syscall tracing, $N prctl calls, median of $RUNS runs, $(nproc) CPUs, kernel $(uname -r), $(date -u +%Y-%m-%d)"
printf '%-26s %10s %10s %10s\n' tool "wall (s)" slowdown "lines"
awk -v base="$base" -v n="$N" '{ lines = $NF; t = $(NF - 1); $NF = ""; $(NF - 1) = ""; sub(/ +$/, "")
	printf "%-26s %10.3f %9.1fx %10s\n", $0, t, t / base, ($0 == "untraced") ? "-" : lines (lines == n ? "" : " (not N)") }' "$W/results"
