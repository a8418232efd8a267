#!/bin/bash
# Unwinding side by side with perf, same workloads, same run:
#   perf record --call-graph dwarf (8 KB copy) and dwarf,65528, then perf script,
#   against pprobe record -g end to end (the same target and rate, folded
#   output), and pprobe's unwinder driven by build/tests/test_unwind (the
#   same sampling: cpu-clock, user regs + stack, 500 Hz, unwinding online).
# Reports per depth: complete-stack ratio (stack reaches _start), profiler CPU
# seconds (record + script for perf; the driver process for pprobe), bytes
# written, lost samples, and pprobe's unwind cost per sample.
# Then a real program: a compiler build (see the end).
#   scripts/bench/unwind.sh [BUILD_DIR]    (default: build)
#   UNWIND_ONLY=build scripts/bench/unwind.sh    the real build only
set -u
BUILD=${1:-build}
WL=$BUILD/tests/workloads
DRIVER=$BUILD/tests/test_unwind
SECS=3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v perf >/dev/null || { echo "perf not installed (apt-get install linux-perf)"; exit 77; }

cpu_of() { # CPU seconds (user+sys) of a finished command, from /usr/bin/time -f '%U %S'
	tail -1 "$1" | awk '{print $1 + $2}'
}

[ "${UNWIND_ONLY:-}" = build ] ||
	printf '%-8s %-16s %9s %8s %12s %6s %s\n' depth profiler complete cpu_s bytes lost note
for depth in 10 60 200 1000; do
	[ "${UNWIND_ONLY:-}" = build ] && break
	for mode in dwarf dwarf,65528; do
		"$WL/unwind_wl" sort "$depth" $((SECS + 2)) &
		pid=$!
		sleep 0.3
		/usr/bin/time -f '%U %S' -o "$TMP/t1" timeout -s INT "$SECS" perf record -q -o "$TMP/perf.data" \
			-e cpu-clock -F 500 --call-graph "$mode" -p "$pid" >/dev/null 2>&1 || true
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
		bytes=$(stat -c %s "$TMP/perf.data")
		lost=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null | awk '$1 ~ /^LOST/ {s += $3} END {print s + 0}')
		/usr/bin/time -f '%U %S' -o "$TMP/t2" perf script -i "$TMP/perf.data" -F ip,sym > "$TMP/script.txt" 2>/dev/null
		# a sample is a block of frame lines; complete when its last frame is _start
		read -r total complete < <(awk '
			NF == 0 { if (n) { total++; if (last == "_start") ok++ } n = 0; next }
			{ n++; last = $2 }
			END { if (n) { total++; if (last == "_start") ok++ } print total + 0, ok + 0 }' "$TMP/script.txt")
		cpu=$(echo "$(cpu_of "$TMP/t1") $(cpu_of "$TMP/t2")" | awk '{print $1 + $2}')
		ratio=$(awk -v c="$complete" -v t="$total" 'BEGIN { printf "%.1f%%", t ? 100 * c / t : 0 }')
		printf '%-8s %-16s %9s %8.2f %12s %6s %s\n' "$depth" "perf $mode" "$ratio" "$cpu" "$bytes" "$lost" "$total samples"
	done
	for backend in libdw libunwind; do
		"$WL/unwind_wl" sort "$depth" $((SECS + 2)) &
		pid=$!
		sleep 0.3
		/usr/bin/time -f '%U %S' -o "$TMP/t1" "$BUILD/pprobe" record -g --unwinder "$backend" -F 500 \
			-p "$pid" -d "$SECS" -o "$TMP/pp.folded" >/dev/null 2>"$TMP/pp.err" || true
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
		ratio=$(sed -n "s/.*$backend unwinding: [0-9]* user stacks, \([0-9.]*%\) complete.*/\1/p" "$TMP/pp.err")
		us=$(sed -n "s/.*complete, \([0-9.]*\) us per stack.*/\1/p" "$TMP/pp.err")
		n=$(sed -n "s/.*$backend unwinding: \([0-9]*\) user stacks.*/\1/p" "$TMP/pp.err")
		lost=$(sed -n 's/.*samples, \([0-9]*\) lost records, \([0-9]*\) lost samples.*/\1 \2/p' "$TMP/pp.err" | awk '{print $1 + $2}')
		printf '%-8s %-16s %9s %8.2f %12s %6s %s\n' "$depth" "pprobe record" "$ratio" "$(cpu_of "$TMP/t1")" \
			"$(stat -c %s "$TMP/pp.folded")" "${lost:-?}" "$n samples, $backend, ${us} us/stack mean"
		all=$(UNWIND_BACKEND=$backend UNWIND_SECONDS=$SECS UNWIND_PERIOD_NS=2000000 "$DRIVER" sort "$depth" 4096 1)
		out=$(grep " $backend " <<<"$all")
		ratio=$(sed -n 's/.*complete= *\([0-9.]*%\).*/\1/p' <<<"$out")
		cpu=$(sed -n 's/^driver_cpu_s=\([0-9.]*\).*/\1/p' <<<"$all")
		med=$(sed -n 's/.*median=\([0-9.]*\).*/\1/p' <<<"$out")
		n=$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' <<<"$out")
		printf '%-8s %-16s %9s %8.2f %12s %6s %s\n' "$depth" "pprobe $backend" "$ratio" "$cpu" 0 0 \
			"$n samples, ${med} us/sample median (raw stacks never written)"
	done
done

# A real program (issue 12): make -j2 compiling ~55 of pprobe's sources with
# the system gcc (tests/tools/build-workload.sh: cc1 and as forked and
# exec'd per file, stripped, no frame pointers), at each profiler's default
# DWARF options and 999 Hz. Complete: the stack's outermost frame is a
# process or thread entry (for perf also __libc_start_call_main, where its
# walks through glibc 2.36 end). Profiler CPU: pprobe's own threads (its summary);
# perf record's own process (perf stat --no-inherit) plus perf script.
echo
echo "real build: make -j2 of $(ls "$(dirname "$0")"/../../symbolize/*.c "$(dirname "$0")"/../../src/*/*.c | wc -l) C files"
"$(dirname "$0")/../../tests/tools/build-workload.sh" "$(dirname "$0")/../.." "$TMP/b"
printf '%-30s %9s %8s %10s %6s %s\n' profiler complete cpu_s us/stack lost note
rm -f "$TMP"/b/*.o
perf stat -x, --no-inherit -e task-clock -o "$TMP/pst" -- perf record -q -o "$TMP/perf.data" -e cpu-clock -F 999 \
	--call-graph dwarf -- make -C "$TMP/b" -s -j2 >/dev/null 2>&1
lost=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null | awk '$1 ~ /^LOST/ {s += $3} END {print s + 0}')
/usr/bin/time -f '%U %S' -o "$TMP/t2" perf script -i "$TMP/perf.data" -F ip,sym > "$TMP/script.txt" 2>/dev/null
read -r total complete < <(awk '
	function end() { if (n) { total++; if (last ~ /^(_start|_dl_start_user|clone3|start_thread|__libc_start_call_main)$/) ok++ } n = 0 }
	NF == 0 { end(); next }
	{ n++; last = $2 }
	END { end(); print total + 0, ok + 0 }' "$TMP/script.txt")
cpu=$(awk -F, '/task-clock/ { print $1 / 1000 }' "$TMP/pst")
cpu=$(echo "$cpu $(cpu_of "$TMP/t2")" | awk '{ print $1 + $2 }')
printf '%-30s %9s %8.2f %10s %6s %s\n' "perf record dwarf + script" \
	"$(awk -v c="$complete" -v t="$total" 'BEGIN { printf "%.1f%%", t ? 100 * c / t : 0 }')" "$cpu" - "$lost" "$total samples"
for backend in libdw libunwind; do
	rm -f "$TMP"/b/*.o
	"$BUILD/pprobe" record -g --unwinder "$backend" -F 999 -o "$TMP/pp.folded" -- make -C "$TMP/b" -s -j2 \
		>/dev/null 2>"$TMP/pp.err"
	read -r n ratio us < <(sed -n "s/.*unwinding: \([0-9]*\) user stacks, \([0-9.]*%\) complete, \([0-9.]*\) us per stack.*/\1 \2 \3/p" "$TMP/pp.err")
	cpu=$(sed -n 's/.*profiler CPU \([0-9.]*\) s.*/\1/p' "$TMP/pp.err")
	lost=$(sed -n 's/.*samples, \([0-9]*\) lost records, \([0-9]*\) lost samples.*/\1 \2/p' "$TMP/pp.err" | awk '{print $1 + $2}')
	printf '%-30s %9s %8.2f %10s %6s %s\n' "pprobe record -g ($backend)" "$ratio" "$cpu" "$us" "${lost:-?}" "$n samples"
done
