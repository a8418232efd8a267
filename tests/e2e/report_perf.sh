#!/usr/bin/env bash
# pprobe report against perf report --stdio on the same workloads, each
# tool recording its own run: wl_record hot (hot_three does 3 units of work
# for each of hot_one's, so 75% and 25% of the samples), and a fork and exec
# of a program whose two threads spin in spin_units. Sampling differs
# between runs, so the comparison is of the top symbols and their shares
# within 10 points, not of exact numbers.
. "$(dirname "$0")/lib.sh"
need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
W=$WORKLOADS

perf record -q -F 999 -g -o "$T/perf.data" -- "$W/wl_record" hot 1 >/dev/null 2>"$T/perf.err" ||
	skip "perf record cannot record here: $(head -1 "$T/perf.err")"
perf report --stdio --no-children --sort sym -g none -i "$T/perf.data" 2>/dev/null |
	awk '/^ *[0-9.]+%/ { print $1, $2, $3 }' | head -2 >"$T/perf.top"
"$PPROBE" record -F 999 -g -o "$T/p.folded" -- "$W/wl_record" hot 1 >/dev/null 2>&1
check "pprobe record exit 0" [ $? -eq 0 ]
"$PPROBE" report --no-children --sort sym "$T/p.folded" | grep -v '^#' | head -2 >"$T/pp.top"
echo "perf:   $(tr '\n' ' ' <"$T/perf.top")"
echo "pprobe: $(tr '\n' ' ' <"$T/pp.top")"

# perf names gcc's clones by their ELF symbol (spin_units.constprop.0),
# pprobe by the function (DWARF): compare the function.
sym() { sed -n "${2}p" "$1" | awk '{ print $2, $3 }' | sed -E 's/\.(constprop|isra|part)\.[0-9]+//g'; }
share() { sed -n "${2}p" "$1" | awk '{ sub(/%/, "", $1); print $1 }'; }
check "perf report's top symbol is hot_three" [ "$(sym "$T/perf.top" 1)" = "[.] hot_three" ]
check "pprobe report's top symbol is perf's ($(sym "$T/pp.top" 1))" [ "$(sym "$T/pp.top" 1)" = "$(sym "$T/perf.top" 1)" ]
check "the second too ($(sym "$T/pp.top" 2))" [ "$(sym "$T/pp.top" 2)" = "$(sym "$T/perf.top" 2)" ]
for i in 1 2; do
	a=$(share "$T/perf.top" $i) b=$(share "$T/pp.top" $i)
	check "share $i: perf $a%, pprobe $b%, within 10 points" \
		awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(a > 0 && b > 0 && d < 10 && d > -10) }'
done
# A program that forks and execs one that starts two threads: nearly every
# sample is in spin_units, for both tools (perf follows the fork and exec
# as pprobe does).
perf record -q -F 999 -g -o "$T/perf2.data" -- "$W/wl_record" fork-exec "$W/wl_record" threads 2 0.5 \
	>/dev/null 2>&1
perf report --stdio --no-children --sort sym -g none -i "$T/perf2.data" 2>/dev/null |
	awk '/^ *[0-9.]+%/ { print $1, $2, $3 }' | head -1 >"$T/perf.top"
"$PPROBE" record -F 999 -g -o "$T/p2.folded" -- "$W/wl_record" fork-exec "$W/wl_record" threads 2 0.5 \
	>/dev/null 2>&1
"$PPROBE" report --no-children --sort sym "$T/p2.folded" | grep -v '^#' | head -1 >"$T/pp.top"
echo "fork-exec-threads: perf $(cat "$T/perf.top"), pprobe $(cat "$T/pp.top")"
check "fork, exec, threads: perf's top symbol is spin_units" [ "$(sym "$T/perf.top" 1)" = "[.] spin_units" ]
check "fork, exec, threads: pprobe's too" [ "$(sym "$T/pp.top" 1)" = "[.] spin_units" ]
# perf.data itself, given where a profile goes: refused in one line that
# says what it is and what to do (issue 28), by report, flamegraph and diff.
for c in report flamegraph "diff $T/perf.data"; do
	# shellcheck disable=SC2086
	"$PPROBE" $c "$T/perf.data" >"$T/pd.out" 2>"$T/pd.err"
	rc=$?
	check "$c perf.data: exit 1 ($rc)" [ "$rc" -eq 1 ]
	check "$c perf.data: one line, saying what to do" sh -c "[ \$(wc -l <'$T/pd.err') -eq 1 ] && grep -q 'is a perf.data file.*perf script' '$T/pd.err'"
	check "$c perf.data: nothing on stdout" test ! -s "$T/pd.out"
	shown_on_failure "$T/pd.err"
done
done_testing
