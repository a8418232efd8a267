#!/usr/bin/env bash
# record -g on real programs of other toolchains than record_build.sh's gcc
# (issue 25), as Debian ships them:
# - clang (C++; clang-14 lives in libclang-cpp and libLLVM, ~150 MB of
#   shared objects named only by .dynsym) compiling some of pprobe's own
#   sources under make -j2: make forks, the clang driver execs the
#   compiler. Its stacks are complete as record_build.sh's, and the top
#   functions by self time are perf's.
# - ripgrep (rg: Rust, stripped, no .symtab; it starts a thread per CPU)
#   searching /usr/include with a regex, several times from a shell loop.
#   Its stacks are complete; its own code gets no names (none exist here:
#   the summary says so), and the share of samples in it is perf's.
# The exit status of each is record's.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
: "${SRCDIR:?SRCDIR not set (run through ctest)}"

# --- clang: 12 of the sources record_build.sh compiles
ran=0
if command -v clang >/dev/null && command -v make >/dev/null; then
	ran=$((ran + 1))
	"$SRCDIR/tests/tools/build-workload.sh" "$SRCDIR" "$T/b"
	objs=$(sed -n 's/^\([a-z_0-9]*\.o\):.*/\1/p' "$T/b/Makefile" | head -12 | tr '\n' ' ')
	# shellcheck disable=SC2086
	make -C "$T/b" -s -j2 CC=clang $objs >/dev/null 2>"$T/make.err" ||
		{ cat "$T/make.err"; echo "FAIL: the workload does not build with clang" >&2; exit 1; }
	rm -f "$T"/b/*.o
	# shellcheck disable=SC2086
	"$PPROBE" record -g -o "$T/clang.folded" -- make -C "$T/b" -s -j2 CC=clang $objs >/dev/null 2>"$T/err"
	rc=$?
	echo "== clang"
	cat "$T/err"
	check "clang: record exits as make did (0, got $rc)" test "$rc" -eq 0
	check "clang: make built the 12 objects" test "$(ls "$T"/b/*.o | wc -l)" -eq 12
	real_stacks "$T/err" "$T/clang.folded" 99 1000
	check "clang: libLLVM's stacks are counted" grep -q '^  libLLVM' "$T/err"
	check "clang: functions of libLLVM named (from .dynsym): llvm:: frames" grep -q ';llvm::' "$T/clang.folded"
	if command -v perf >/dev/null; then
		rm -f "$T"/b/*.o
		# shellcheck disable=SC2086
		if perf record -q -e cpu-clock -F 999 -o "$T/clang.data" -- make -C "$T/b" -s -j2 CC=clang $objs \
			>/dev/null 2>"$T/perf.err"; then
			self_vs_perf "$T/clang.folded" "$T/clang.data" 8
		else
			cat "$T/perf.err"; echo "perf record fails here: no comparison"
		fi
	else
		echo "perf not installed: no comparison for clang"
	fi
else
	echo "SKIP clang part: no clang or make (apt-get install clang make)"
fi

# --- ripgrep
if command -v rg >/dev/null && [ -d /usr/include ]; then
	ran=$((ran + 1))
	RG="for i in 1 2 3 4 5 6; do rg -j2 -c '\\b[a-z]+_[a-z]+\\s*\\([a-z]' /usr/include >/dev/null || exit 5; done; exit 3"
	"$PPROBE" record -g -o "$T/rg.folded" -- sh -c "$RG" 2>"$T/err"
	rc=$?
	echo "== rg"
	cat "$T/err"
	check "rg: record exits as the shell did (3, got $rc)" test "$rc" -eq 3
	real_stacks "$T/err" "$T/rg.folded" 99 300
	check "rg: its threads' stacks start at clone3/start_thread" grep -qE '^rg;(clone3|start_thread);' "$T/rg.folded"
	check "rg: the summary says what its code lacks" \
		grep -qE '^pprobe record: rg: [0-9]+ of [0-9]+ code addresses without a name: no \.symtab' "$T/err"
	# The share of samples in rg's own code: the leaf frame [rg] (a kernel
	# leaf is the kernel's), against perf's --sort dso on the same loop.
	pp=$(awk '{ t += $NF } /;\[rg\] [0-9]+$/ { r += $NF } END { printf "%.2f\n", t ? 100 * r / t : 0 }' "$T/rg.folded")
	# (perf record exits as the command did: 3)
	command -v perf >/dev/null && perf record -q -e cpu-clock -F 999 -o "$T/rg.data" -- sh -c "$RG" 2>"$T/perf.err"
	pf=$(perf report -i "$T/rg.data" --no-children --sort dso --stdio -q 2>/dev/null | awk '$2 == "rg" { print $1 + 0 }')
	if [ -n "$pf" ]; then
		check "rg: the share of samples in rg's code is perf's (perf ${pf:-0}%, pprobe $pp%)" \
			awk -v a="${pf:-0}" -v b="$pp" 'BEGIN { d = a - b; m = 2 + a / 4; exit !(a > 0 && d <= m && d >= -m) }'
	else
		echo "no perf comparison for rg"
	fi
else
	echo "SKIP rg part: no rg (apt-get install ripgrep) or no /usr/include"
fi
[ "$ran" -gt 0 ] || skip "neither clang nor rg here"
done_testing
