#!/usr/bin/env bash
# record -g of JIT runtimes (tests/workloads/jit_scripts/): the functions of
# the script are named through what the runtime writes for perf, a perf map
# (/tmp/perf-PID.map) or a jitdump (jit-PID.dump, in /tmp or the cwd, found
# through the runtime's mapping of it):
# - CPython 3.12+ -X perf (perf map), CPython 3.13+ -X perf_jit (jitdump),
#   each in a process, its thread, and its forked child (which writes its own);
# - node --perf-basic-prof (perf map), node --perf-prof (jitdump in the cwd);
# - Java 17 -XX:+DumpPerfMapAtExit (perf map at exit), compiled here by javac;
# - a pid namespace without a mount namespace of its own (unshare --pid
#   --fork, no --mount-proc) under -p: the runtime writes
#   /tmp/perf-NSPID.map, its own pid, in our /tmp.
# Asserted: the script's functions are frames, on every worker (process,
# thread) where the runtime names them, at least a share of the samples
# is in them, and >= 97% of the stacks are complete (reach an entry point
# through the JIT frames, which have no CFI: the unwinder steps them,
# symbolize/unwind_step.c). Java's compiled code keeps no frame pointer
# unless -XX:+PreserveFramePointer: without it completeness is printed
# only (perf fares no better), with it asserted. A runtime that is not
# here is left out, saying why; the test skips when none is.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
: "${SRCDIR:?SRCDIR not set (run through ctest)}"
S=$SRCDIR/tests/workloads/jit_scripts
SECS=1.5
ran=0
touch "$T/stamp"
# the maps and dumps the runtimes of this test wrote (their process gone)
cleanup() {
	find /tmp "$T" -maxdepth 2 -newer "$T/stamp" \( -name 'perf-*.map' -o -name 'jit-*.dump' \) 2>/dev/null |
		while read -r f; do
			p=${f##*[-]}
			p=${p%.*}
			alive "$p" || rm -f "$f"
		done
	rm -rf "$T" "$T.cache"
}
trap cleanup EXIT

# share FILE REGEX: "matched total" samples of FILE's lines matching REGEX
share() { awk -v re="$2" '{ n += $NF } $0 ~ re { m += $NF } END { print m + 0, n + 0 }' "$1"; }
# complete NAME FILE MIN: at least MIN% of the samples' user stacks start at
# an entry point (MIN 0: printed only); the others, a few, shown
complete() {
	folded_user "$2" > "$T/u.folded"
	local total entry
	total=$(folded_sum "$T/u.folded")
	entry=$(folded_sum "$T/u.folded" "^[^;]*;$ENTRY_ROOT( |;)")
	grep -vE "^[^;]*;$ENTRY_ROOT( |;)" "$T/u.folded" | head -3 | cut -c1-240 | sed "s/^/  $1: not complete: /"
	if [ "$3" -gt 0 ]; then
		check "$1: >= $3% of the stacks complete, through the JIT frames ($entry of $total)" \
			test $((entry * 100)) -ge $((total * $3))
	else
		echo "info: $1: $entry of $total samples complete (start at an entry point)"
	fi
}
# named NAME FILE MIN FRAME...: each FRAME (a regex of a frame's name) is a
# JIT frame of FILE, and at least MIN% of the samples are in one of them;
# COMPLETE (default 97) is complete's MIN
named() {
	local name=$1 f=$2 min=$3 re="" m n
	shift 3
	for fr in "$@"; do
		check "$name: $fr is a JIT frame" grep -qE "(^|;)($fr)[^;]*_\[j\]( |;)" "$f"
		re="$re${re:+|}(^|;)($fr)[^;]*_\[j\]( |;)"
	done
	read -r m n < <(share "$f" "$re")
	check "$name: >= $min% of the samples in the script's functions ($m of $n)" \
		awk -v m="$m" -v n="$n" -v p="$min" 'BEGIN { exit !(n > 0 && 100 * m >= p * n) }'
	complete "$name" "$f" "${COMPLETE:-97}"
}
# workers NAME FILE FRAME: distinct processes and threads (--root-tid roots,
# comm-PID/TID) with a FRAME JIT frame
workers() {
	grep -E "(^|;)($3)[^;]*_\[j\]( |;)" "$2" | sed -E 's/^[^;]*-([0-9]+)\/([0-9]+);.*/\1 \2/' | sort -u > "$T/w"
	echo "$(cut -d' ' -f1 "$T/w" | sort -u | wc -l) $(wc -l < "$T/w")"
}
# rec NAME ARGS...: pprobe record -g --root-tid -o $T/NAME.folded -- ARGS,
# in directory $CWD if set
rec() {
	local name=$1 rc
	shift
	(cd "${CWD:-.}" && exec "$PPROBE" record -g --root-tid -o "$T/$name.folded" -- "$@") >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	check "$name: record exits as the runtime did (0, got $rc)" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || cat "$T/$name.err" >&2
	ran=$((ran + 1))
}

PYENV=${PYENV_ROOT:-$HOME/.pyenv}/versions
# python VERSION: the newest python of that version (pyenv's, else PATH's)
python() { ls -d "$PYENV/$1".*/bin/"python$1" 2>/dev/null | sort -V | tail -1 | grep . || command -v "python$1"; }
PY_FRAMES='py::jit_fib:|py::jit_descend:'

# ---- CPython -X perf: a perf map per process ----
if P12=$(python 3.12) && "$P12" -X perf -c 'import sys; sys.exit(not sys.is_stack_trampoline_active())' 2>/dev/null; then
	rec py_perf "$P12" -X perf "$S/jit_work.py" "$SECS"
	named py_perf "$T/py_perf.folded" 50 'py::jit_fib:' 'py::jit_descend:' 'py::jit_spin:'
	read -r procs threads < <(workers py_perf "$T/py_perf.folded" "$PY_FRAMES")
	check "py_perf: named in the parent and its forked child ($procs processes)" test "$procs" -ge 2
	check "py_perf: named in 3 workers: main thread, thread, child ($threads)" test "$threads" -ge 3
else
	echo "SKIP part: no CPython 3.12+ with -X perf (pyenv's under $PYENV, or python3.12 on PATH)"
fi

# ---- CPython 3.13 -X perf_jit: a jitdump ----
if P13=$(python 3.13) && "$P13" -X perf_jit -c 'import sys; sys.exit(not sys.is_stack_trampoline_active())' 2>/dev/null; then
	rec py_jitdump "$P13" -X perf_jit "$S/jit_work.py" "$SECS"
	named py_jitdump "$T/py_jitdump.folded" 50 'py::jit_fib:' 'py::jit_descend:' 'py::jit_spin:'
	read -r parent child < <(sed -n 's/^parent \([0-9]*\) child \([0-9]*\)$/\1 \2/p' "$T/py_jitdump.out")
	check "py_jitdump: a jitdump and no perf map (/tmp/jit-$parent.dump)" \
		eval "test -s /tmp/jit-$parent.dump && ! test -e /tmp/perf-$parent.map"
	read -r procs threads < <(workers py_jitdump "$T/py_jitdump.folded" "$PY_FRAMES")
	check "py_jitdump: named in the parent and its forked child ($procs processes)" test "$procs" -ge 2
	check "py_jitdump: named in 3 workers: main thread, thread, child ($threads)" test "$threads" -ge 3
else
	echo "SKIP part: no CPython 3.13+ with -X perf_jit (pyenv's under $PYENV, or python3.13 on PATH)"
fi

# ---- node: --perf-basic-prof (perf map), --perf-prof (jitdump in the cwd) ----
JS_FRAMES='(JS:[*~^]?)?jitFib |(JS:[*~^]?)?jitDescend '
if command -v node >/dev/null && node --perf-basic-prof -e 0 2>/dev/null; then
	rec node_perfmap node --perf-basic-prof "$S/jit_work.js" "$SECS"
	named node_perfmap "$T/node_perfmap.folded" 50 '(JS:[*~^]?)?jitFib ' '(JS:[*~^]?)?jitDescend '
	mkdir -p "$T/cwd"
	CWD=$T/cwd rec node_jitdump node --perf-prof --interpreted-frames-native-stack "$S/jit_work.js" "$SECS"
	# (a perf map of that pid older than the run is another process's, whose pid was reused)
	check "node_jitdump: its jitdump is in the cwd, no perf map in /tmp" eval \
		'ls "$T"/cwd/jit-*.dump >/dev/null 2>&1 &&
		 test -z "$(find /tmp -maxdepth 1 -name "perf-$(basename "$T"/cwd/jit-*.dump .dump | cut -d- -f2).map" -newer "$T/cwd")"'
	named node_jitdump "$T/node_jitdump.folded" 50 '(JS:[*~^]?)?jitFib ' '(JS:[*~^]?)?jitDescend '
else
	echo "SKIP part: no node with --perf-basic-prof on PATH"
fi

# ---- Java: the perf map it writes at exit ----
if command -v java >/dev/null && command -v javac >/dev/null &&
	javac -d "$T/java" "$S/JitWork.java" 2>"$T/javac.err"; then
	rec java java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp "$T/java" JitWork "$SECS"
	COMPLETE=0 named java "$T/java.folded" 30 '[^;]*JitWork[.]jitFib[(]'
	read -r procs threads < <(workers java "$T/java.folded" '[^;]*JitWork[.]jitFib[(]')
	check "java: named in the main thread and the other ($threads threads)" test "$threads" -ge 2
	rec java_fp java -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
		-cp "$T/java" JitWork "$SECS"
	named java_fp "$T/java_fp.folded" 30 '[^;]*JitWork[.]jitFib[(]'
else
	echo "SKIP part: no java and javac (JDK 17) on PATH ($(head -1 "$T/javac.err" 2>/dev/null))"
fi

# ---- a pid namespace alone (no mount namespace, no /proc of its own) under -p ----
if [ -n "${P12:-}" ] && unshare --pid --fork true 2>/dev/null; then
	rm -f /tmp/perf-1.map	# the namespace's pid 1: an earlier run's
	unshare --pid --fork "$P12" -X perf "$S/jit_work.py" 3 >"$T/ns.out" 2>/dev/null &
	ns_unshare=$!
	wait_for grep -q parent "$T/ns.out"
	# the runtime: unshare's child, pid 1 in its namespace
	pid=$(pgrep -P "$ns_unshare" | head -1)
	nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$pid/status" 2>/dev/null)
	check "ns: the runtime sees itself as pid 1 (NSpid ${nspid:-?}, host pid ${pid:-?})" test "${nspid:-}" = 1
	"$PPROBE" record -g --root-tid -p "$pid" -o "$T/ns.folded" >/dev/null 2>"$T/ns.err"
	rc=$?
	check "ns: record -p ends with the process (0, got $rc)" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || cat "$T/ns.err" >&2
	reap "$ns_unshare"
	ran=$((ran + 1))
	check "ns: its perf map is our /tmp/perf-1.map" test -s /tmp/perf-1.map
	named ns "$T/ns.folded" 50 'py::jit_fib:' 'py::jit_descend:'
	check "ns: no [//anon] JIT frame left" not grep -q '//anon' "$T/ns.folded"
	# the maps of the namespace's pids (1 and the child's, as the script saw them)
	read -r parent child < <(sed -n 's/^parent \([0-9]*\) child \([0-9]*\)$/\1 \2/p' "$T/ns.out")
	rm -f /tmp/perf-1.map ${child:+/tmp/perf-$child.map}
else
	echo "SKIP part: pid namespace case needs CPython 3.12+ and unshare --pid --fork"
fi

[ "$ran" -gt 0 ] || skip "no JIT runtime here: CPython 3.12+ (pyenv), node, java 17"
done_testing
