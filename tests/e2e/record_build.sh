#!/usr/bin/env bash
# record -g on a real program: make -j2 compiling some of pprobe's own
# sources with the system gcc at -O2 (the gcc driver forks and execs cc1 and
# as, each living a fraction of a second; cc1 is stripped C++ without frame
# pointers, stacks of 6 to 14 KB with frames of KBs). Issue 12: at default
# options >= 99.5% of the user stacks reach the entry of their process or
# thread (the rest end in a frame saying why), per object too, and the
# functions that take the time are those perf report finds in the same
# workload (perf's top 8 functions by self time, each within half a point
# plus a quarter of its share).
. "$(dirname "$0")/lib.sh"
need_root
: "${SRCDIR:?SRCDIR not set (run through ctest)}"
command -v gcc >/dev/null && command -v make >/dev/null || skip "gcc and make needed (apt-get install gcc make)"

# tests/tools/build-workload.sh: ~55 of our sources, one cc1 and one as each
"$SRCDIR/tests/tools/build-workload.sh" "$SRCDIR" "$T/b"
# Our sources build with the packages scripts/test.sh installs: a failure
# here is a broken workload, never a reason to skip.
make -C "$T/b" -s -j2 >/dev/null 2>"$T/make.err" || { cat "$T/make.err"; echo "FAIL: the workload does not build" >&2; exit 1; }
rm -f "$T"/b/*.o

"$PPROBE" record -g -o "$T/pp.folded" -- make -C "$T/b" -s -j2 >/dev/null 2>"$T/err"
rc=$?
cat "$T/err"
check "record exits as make did (0)" test "$rc" -eq 0
check "make built every object" test "$(ls "$T"/b/*.o | wc -l)" -eq "$(grep -c '^[a-z_0-9]*\.o:' "$T/b/Makefile")"

# completeness: the summary's, and the folded output's; per object too
real_stacks "$T/err" "$T/pp.folded" 99.5 1000
check "cc1 is among the objects" grep -q '^  cc1  ' "$T/err"

# the same build under perf record (no call graphs: self time only)
command -v perf >/dev/null || { echo "perf not installed: no comparison"; done_testing; }
rm -f "$T"/b/*.o
perf record -q -e cpu-clock -F 999 -o "$T/perf.data" -- make -C "$T/b" -s -j2 >/dev/null 2>"$T/perf.err" ||
	{ cat "$T/perf.err"; echo "perf record fails here: no comparison"; done_testing; }
self_vs_perf "$T/pp.folded" "$T/perf.data" 8
done_testing
