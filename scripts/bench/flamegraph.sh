#!/usr/bin/env bash
# Flame graph rendering speed and memory: pprobe flamegraph and diff against
# the floor (wc -l), LC_ALL=C sort of the same file, and Brendan Gregg's
# flamegraph.pl, on the same generated folded files, in one run.
#
#   scripts/bench/flamegraph.sh [LINES]        (default 1000000)
#
# Two deterministic inputs (awk with fixed seeds), LINES lines each, mostly
# distinct stacks like `perf script | stackcollapse-perf.pl` output:
#   names: 5..40 frames from 3,000 short names (fn_123), about 174 MB for a
#          million lines: the shape issue 15 measured;
#   cxx:   8..40 frames of C++-style names (Map<int, std::string>::update_3),
#          about 426 MB, each frame one of 6 callees of its parent with skewed
#          odds (hot paths shared, the tail distinct).
# A second profile of each (B: 90% of the lines, counts changed, new stacks)
# is the "after" side for diff. SHAPES="names" (or "cxx") runs one, SHAPES=""
# none (with RECORD=SECS: only the record rows).
#
# RECORD=SECS adds `pprobe record -a -g --format svg` at the end of a SECS
# second system-wide run while the script churns (gcc -O2 -g compiles a
# workload into a fresh binary that starts threads, forks and execs, over and
# over): one run writing folded only, one writing folded and SVG, then the
# run's folded file through pprobe flamegraph and sort.
#
# Measures wall time, CPU time (user + system) and peak RSS with
# /usr/bin/time -v. flamegraph.pl is looked up as $FLAMEGRAPH_PL, in PATH, or
# cloned into /tmp/FlameGraph for this benchmark only (never committed);
# SKIP_PERL=1 leaves it out (it takes minutes and gigabytes).
set -euo pipefail
cd "$(dirname "$0")/../.."
LINES=${1:-1000000}
PPROBE=${PPROBE:-build/pprobe}
W=${BENCH_DIR:-/tmp/pprobe-bench-flamegraph}
mkdir -p "$W"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$PPROBE" ] || { echo "$PPROBE missing: build first (cmake -S . -B build && cmake --build build)" >&2; exit 1; }

gen_cxx() {
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
	}'
}

gen_names() {
	awk -v n="$LINES" 'BEGIN {
		srand(20261124)
		for (i = 0; i < n; i++) {
			depth = 5 + int(rand() * 36)
			line = ""; h = 7
			for (d = 0; d < depth; d++) {
				h = (h * 31 + int(rand() ^ 3 * 40) + d) % 3000
				line = line (d ? ";" : "") "fn_" h
			}
			print line, 1 + int(rand() * 50)
		}
	}'
}

# The "after" profile: drops every tenth line, changes counts, adds stacks.
gen_after() {
	awk '{ c = $NF; sub(/[0-9]+$/, c + NR % 7) }
	     NR % 10 != 3 { print }
	     NR % 50 == 0 { split($0, f, ";"); print f[1] ";new_" NR " 5" }' "$1"
}

# run NAME CMD...: prints "wall_s cpu_s rss_mb" of CMD (stdout to $W/NAME.out);
# with STDIN=FILE the command reads FILE through a pipe.
run() {
	local name=$1; shift
	local ok=0
	if [ -n "${STDIN:-}" ]; then
		cat "$STDIN" | /usr/bin/time -v -o "$W/$name.time" "$@" >"$W/$name.out" 2>"$W/$name.err" || ok=$?
	else
		/usr/bin/time -v -o "$W/$name.time" "$@" >"$W/$name.out" 2>"$W/$name.err" || ok=$?
	fi
	if [ "$ok" != 0 ]; then
		echo "$name failed: $(tail -2 "$W/$name.err")" >&2
		return 1
	fi
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

row() { printf '| %-36s | %9s | %8s | %13s | %12s |\n' "$@"; }
frames() { grep -c '<title>' "$W/$1.out" || true; }

# bench SHAPE: every row for one input shape
bench() {
	local shape=$1 IN="$W/$1-$LINES.folded" B="$W/$1-$LINES.after.folded"
	local SORTED="$W/$1-$LINES.sorted.folded"
	if [ ! -s "$IN" ]; then
		echo "generating $LINES folded lines ($shape) into $IN" >&2
		"gen_$shape" >"$IN.tmp" && mv "$IN.tmp" "$IN"
	fi
	[ -s "$B" ] || { gen_after "$IN" >"$B.tmp" && mv "$B.tmp" "$B"; }
	[ -s "$SORTED" ] || LC_ALL=C sort -S 1G -T "$W" "$IN" >"$SORTED"
	echo "### $shape: $LINES lines, $(du -h "$IN" | cut -f1) ($IN); B: $(du -h "$B" | cut -f1)"
	echo "$(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
	echo
	row tool "wall (s)" "CPU (s)" "peak RSS (MB)" "frames drawn"
	echo "|--------------------------------------|-----------|----------|---------------|--------------|"
	local t c m sc pc
	read -r t c m < <(run wc wc -l "$IN")
	row "wc -l (the floor)" "$t" "$c" "$m" "-"
	read -r t sc m < <(run sort env LC_ALL=C sort "$IN")
	row "LC_ALL=C sort" "$t" "$sc" "$m" "-"
	read -r t pc m < <(run pprobe "$PPROBE" flamegraph "$IN")
	row "pprobe flamegraph FILE" "$t" "$pc" "$m" "$(frames pprobe)"
	read -r t c m < <(STDIN="$IN" run pprobe-pipe "$PPROBE" flamegraph)
	row "pprobe flamegraph < pipe" "$t" "$c" "$m" "$(frames pprobe-pipe)"
	cmp -s "$W/pprobe.out" "$W/pprobe-pipe.out" || echo "WARNING: the pipe's SVG differs" >&2
	read -r t c m < <(run pprobe-sorted "$PPROBE" flamegraph "$SORTED")
	row "pprobe flamegraph (sorted input)" "$t" "$c" "$m" "$(frames pprobe-sorted)"
	local s2 d2
	read -r t s2 m < <(run sort2 env LC_ALL=C sort "$IN" "$B")
	row "LC_ALL=C sort FILE B" "$t" "$s2" "$m" "-"
	read -r t d2 m < <(run diff-svg "$PPROBE" diff --svg "$IN" "$B")
	row "pprobe diff --svg FILE B" "$t" "$d2" "$m" "$(frames diff-svg)"
	read -r t c m < <(run diff "$PPROBE" diff "$IN" "$B")
	row "pprobe diff FILE B (difffolded)" "$t" "$c" "$m" "-"
	local gc=""
	if [ -n "$FG" ] && [ "${SKIP_PERL:-0}" != 1 ]; then
		if read -r t gc m < <(run perl perl "$FG" "$IN"); then
			row "flamegraph.pl (perl $(perl -e 'print $^V'))" "$t" "$gc" "$m" "$(frames perl)"
		fi
	fi
	echo
	awk -v p="$pc" -v s="$sc" -v d="$d2" -v s2="$s2" -v g="$gc" 'BEGIN {
		printf "CPU: pprobe flamegraph %.2fx sort; pprobe diff --svg %.2fx sort of both files", p / s, d / s2
		if (g != "") printf "; flamegraph.pl %.0fx pprobe", g / p
		printf "\n\n" }'
}

# record_bench SECS: record --format svg at the end of a long -a run
record_bench() {
	local secs=$1 churn t c m
	(
		while :; do
			gcc -O2 -g -o "$W/wl.$BASHPID" tests/workloads/record_wl.c -lpthread
			"$W/wl.$BASHPID" threads 2 0.05 && "$W/wl.$BASHPID" fork-exec /bin/true >/dev/null
			rm -f "$W/wl.$BASHPID"
		done
	) & churn=$!
	echo "### record -a -g -F 999 for $secs s while gcc builds and runs a workload over and over"
	echo
	row tool "wall (s)" "CPU (s)" "peak RSS (MB)" "frames drawn"
	echo "|--------------------------------------|-----------|----------|---------------|--------------|"
	read -r t c m < <(run rec-folded "$PPROBE" record -a -g -F 999 -o "$W/rec1.folded" -- sleep "$secs")
	row "pprobe record -o x.folded" "$t" "$c" "$m" "-"
	read -r t c m < <(run rec-svg "$PPROBE" record -a -g -F 999 -o "$W/rec.folded" -o "$W/rec.svg" -- sleep "$secs")
	row "pprobe record -o x.folded -o x.svg" "$t" "$c" "$m" "$(grep -c '<title>' "$W/rec.svg" || true)"
	kill "$churn" 2>/dev/null; wait "$churn" 2>/dev/null || true
	echo
	echo "that run's folded file: $(wc -l <"$W/rec.folded") stacks, $(du -h "$W/rec.folded" | cut -f1)"
	echo
	row tool "wall (s)" "CPU (s)" "peak RSS (MB)" "frames drawn"
	echo "|--------------------------------------|-----------|----------|---------------|--------------|"
	read -r t c m < <(run rec-sort env LC_ALL=C sort "$W/rec.folded")
	row "LC_ALL=C sort" "$t" "$c" "$m" "-"
	read -r t c m < <(run rec-fg "$PPROBE" flamegraph "$W/rec.folded")
	row "pprobe flamegraph" "$t" "$c" "$m" "$(frames rec-fg)"
	echo
}

for shape in ${SHAPES-names cxx}; do
	case $shape in
	names|cxx) bench "$shape" ;;
	*) echo "unknown shape '$shape' (names, cxx)" >&2; exit 2 ;;
	esac
done
[ -z "${RECORD:-}" ] || record_bench "$RECORD"
[ -n "$FG" ] && [ "${SKIP_PERL:-0}" != 1 ] || echo "flamegraph.pl: left out (SKIP_PERL=1, or set FLAMEGRAPH_PL=/path/to/flamegraph.pl)"
