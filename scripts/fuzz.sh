#!/usr/bin/env bash
# Run one libFuzzer target of tests/fuzz/ for a while:
#   scripts/fuzz.sh TARGET SECONDS [LIBFUZZER-ARGS...]
#   scripts/fuzz.sh --list
# Builds build-fuzz (clang, -DPPROBE_FUZZ=ON) if needed, fuzzes from the
# target's seeds (tests/fuzz/corpus/TARGET) and regression inputs
# (tests/fuzz/regress/TARGET), one process, writing what it finds into a scratch
# directory (never into the tree): new inputs in $FUZZ_OUT/TARGET/corpus,
# a crash in $FUZZ_OUT/TARGET/crash-*. FUZZ_OUT defaults to
# /tmp/pprobe-fuzz. Prints the executions, the coverage and the path of any
# crash input; exits non-zero when the target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
targets() { for f in tests/fuzz/fuzz_*.c; do f=${f##*/fuzz_}; echo "${f%.c}"; done; }
usage() {
	echo "usage: scripts/fuzz.sh TARGET SECONDS [LIBFUZZER-ARGS...] | --list" >&2
	exit 2
}
[ $# -ge 1 ] || usage
if [ "$1" = --list ]; then
	targets
	exit 0
fi
[ $# -ge 2 ] || usage
target=$1 secs=$2
shift 2
if ! targets | grep -qx -- "$target"; then
	echo "scripts/fuzz.sh: no fuzz target '$target' (scripts/fuzz.sh --list: $(targets | tr '\n' ' '))" >&2
	exit 2
fi
if ! [[ $secs =~ ^[1-9][0-9]*$ ]]; then
	echo "scripts/fuzz.sh: SECONDS must be a positive whole number, not '$secs'" >&2
	exit 2
fi
if [ ! -f build-fuzz/CMakeCache.txt ]; then
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DPPROBE_FUZZ=ON >/dev/null
fi
cmake --build build-fuzz -j"$(nproc)" --target "fuzz_$target" >/dev/null

out=${FUZZ_OUT:-/tmp/pprobe-fuzz}/$target
mkdir -p "$out/corpus"
dirs=(tests/fuzz/corpus/"$target")
[ -d tests/fuzz/regress/"$target" ] && dirs+=(tests/fuzz/regress/"$target")
log=$out/fuzz.log
status=0
start=$SECONDS
touch "$out/.start"	# crash files newer than this are this run's
# lsan.supp: leaks inside libtraceevent and libdw (seen only by the slow unwinder)
(cd "$out" && UBSAN_OPTIONS=print_stacktrace=1 ASAN_OPTIONS=fast_unwind_on_malloc=0 \
	LSAN_OPTIONS=suppressions="$OLDPWD/tests/fuzz/lsan.supp" "$OLDPWD/build-fuzz/fuzz/fuzz_$target" \
	-max_total_time="$secs" -timeout=20 -print_final_stats=1 \
	-artifact_prefix="$out/" "$@" corpus "${dirs[@]/#/$OLDPWD/}") >"$log" 2>&1 || status=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
echo "$target: $((SECONDS - start))s, ${execs:-?} execs, ${cov:-cov: ?}, scratch corpus $(find "$out/corpus" -type f | wc -l) inputs in $out/corpus; log $log"
crashes=$(find "$out" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) -newer "$out/.start" 2>/dev/null || true)
if [ "$status" -ne 0 ] || [ -n "$crashes" ]; then
	grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5 >&2 || true
	echo "$target: CRASHED (status $status): ${crashes:-see $log}" >&2
	exit 1
fi
