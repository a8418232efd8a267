#!/usr/bin/env bash
# Flame graph rendering speed and memory: pprobe flamegraph vs Brendan
# Gregg's flamegraph.pl on the same generated folded file, in one run.
#
#   scripts/bench/flamegraph.sh [LINES]        (default 1000000)
#
# The input is deterministic (awk with a fixed seed): LINES folded stacks,
# 8..40 frames deep, C++-style names, each frame one of 6 callees of its
# parent with skewed odds (hot paths are shared, the tail is distinct, as in
# real profiles), so lines are mostly distinct stacks like
# `perf script | stackcollapse-perf.pl` output. Measures wall time and peak RSS with /usr/bin/time -v.
# flamegraph.pl is looked up as $FLAMEGRAPH_PL, in PATH, or cloned into
# /tmp/FlameGraph for this benchmark only (never committed). Set
# SKIP_PERL=1 to measure pprobe alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
LINES=${1:-1000000}
PPROBE=${PPROBE:-build/pprobe}
W=${BENCH_DIR:-/tmp/pprobe-bench-flamegraph}
mkdir -p "$W"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$PPROBE" ] || { echo "$PPROBE missing: build first (cmake -S . -B build && cmake --build build)" >&2; exit 1; }

IN="$W/stacks-v2-$LINES.folded"
if [ ! -s "$IN" ]; then
	echo "generating $LINES folded lines into $IN" >&2
	awk -v n="$LINES" 'BEGIN {
		srand(20261122)
		split("alloc parse render flush lookup insert compare hash encode decode read write \
		       update visit emit resolve", verb, " ")
		split("Buffer Node Map<int, std::string> Vector<T> Parser Cache Index Tree<Key&> \
		       Stream Table", cls, " ")
		for (i = 0; i < n; i++) {
			depth = 8 + int(rand() * 33)
			line = "app"; h = 7
			for (d = 0; d < depth; d++) {
				h = (h * 31 + int(rand() ^ 2.5 * 6) + d) % 997
				f = cls[h % 10 + 1] "::" verb[int(h / 10) % 16 + 1] "_" (h % 7)
				if (d == depth - 1 && h % 5 == 0) f = f "_[k]"
				line = line ";" f
			}
			print line, 1 + int(rand() * 50)
		}
	}' >"$IN"
fi
SORTED="$W/stacks-v2-$LINES.sorted.folded"
[ -s "$SORTED" ] || LC_ALL=C sort -S 1G -T "$W" "$IN" >"$SORTED"
size=$(du -h "$IN" | cut -f1)

# run NAME CMD...: prints "wall_s cpu_s rss_mb" of CMD (stdout to $W/NAME.svg)
run() {
	local name=$1; shift
	/usr/bin/time -v -o "$W/$name.time" "$@" >"$W/$name.svg" 2>"$W/$name.err" || {
		echo "$name failed: $(tail -2 "$W/$name.err")" >&2; return 1; }
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/User time|System time/ { cpu += $2 }
		/Maximum resident set size/ { rss = $2 / 1024 }
		END { printf "%.2f %.2f %.0f\n", s, cpu, rss }' "$W/$name.time"
}

FG=${FLAMEGRAPH_PL:-}
if [ -z "$FG" ] && [ "${SKIP_PERL:-0}" != 1 ]; then
	if command -v flamegraph.pl >/dev/null; then FG=$(command -v flamegraph.pl)
	elif [ -x /tmp/FlameGraph/flamegraph.pl ]; then FG=/tmp/FlameGraph/flamegraph.pl
	elif git clone -q --depth 1 https://github.com/brendangregg/FlameGraph /tmp/FlameGraph 2>/dev/null; then
		FG=/tmp/FlameGraph/flamegraph.pl
	fi
fi

row() { printf '| %-34s | %9s | %8s | %13s | %12s |\n' "$@"; }
echo "input: $LINES lines, $size ($IN), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo
row tool "wall (s)" "CPU (s)" "peak RSS (MB)" "frames drawn"
echo "|------------------------------------|-----------|----------|---------------|--------------|"
read -r pt pc pm < <(run pprobe "$PPROBE" flamegraph "$IN")
row "pprobe flamegraph" "$pt" "$pc" "$pm" "$(grep -c '<title>' "$W/pprobe.svg")"
read -r st sc sm < <(run pprobe-sorted "$PPROBE" flamegraph "$SORTED")
row "pprobe flamegraph (sorted input)" "$st" "$sc" "$sm" "$(grep -c '<title>' "$W/pprobe-sorted.svg")"
if [ -n "$FG" ] && [ "${SKIP_PERL:-0}" != 1 ]; then
	if read -r gt gc gm < <(run perl perl "$FG" "$IN"); then
		row "flamegraph.pl (perl $(perl -e 'print $^V'))" "$gt" "$gc" "$gm" "$(grep -c '<title>' "$W/perl.svg" || true)"
		awk -v a="$pc" -v b="$gc" -v c="$pm" -v d="$gm" 'BEGIN {
			printf "\npprobe: %.1fx less CPU time, %.1fx less memory than flamegraph.pl\n", b / a, d / c }'
	fi
else
	echo
	echo "flamegraph.pl: unavailable (set FLAMEGRAPH_PL=/path/to/flamegraph.pl)"
fi
