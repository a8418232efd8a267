#!/usr/bin/env bash
# Stacks of real runtimes, pprobe against perf, same workload, same run:
# the share of stacks that are complete (the outermost frame is where the
# runtime starts a thread or a goroutine, not a marker or a guess) and the
# profiler's own CPU seconds (user + system; perf: record + script), not
# the workload's.
#
#   scripts/bench/runtimes.sh [BUILD_DIR]     (default: build)
#
# Workloads: a C program whose CFI is only a compressed .debug_frame
# (gcc -gz), tests/workloads/go_wl built three ways (Go's defaults,
# uncompressed DWARF, stripped -s -w), CPython 3.12 -X perf and 3.13
# -X perf_jit (pyenv), node --perf-basic-prof, Java 17 with and without
# -XX:+PreserveFramePointer, and two programs as Debian ships them: clang
# (C++, in .dynsym-only shared objects) compiling 12 of pprobe's sources
# under make -j2, and ripgrep (stripped Rust, a thread per CPU) searching
# /usr/include. Absent runtimes are skipped, saying so.
# perf runs --call-graph dwarf (its default 8 KB copy) and fp.
set -u
BUILD=${1:-build}
PPROBE=$BUILD/pprobe
SRC=$(cd "$(dirname "$0")/../.." && pwd)
FOLD=$SRC/scripts/bench/fold-perf-script.awk
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v perf >/dev/null || { echo "perf not installed (apt-get install linux-perf)"; exit 77; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 77; }

# an outermost frame where a thread or goroutine starts
ROOT='^[^;]*;(_start|_dl_start_user|clone3?|start_thread|__clone[0-9]*|runtime\.(goexit|mstart|rt0_go|systemstack|mcall|morestack|asmcgocall)(\.abi0)?)(;| )'
complete() { # FOLDED -> "pct"
	awk -v re="$ROOT" '{ n += $NF; if ($0 ~ re) c += $NF } END { printf "%.1f", n ? 100 * c / n : 0 }' "$1"
}
cpu() { tail -1 "$1" | awk '{ printf "%.2f", $1 + $2 }'; }

# pprobe says its own CPU (its threads, not the command's); perf record's
# is its total under /usr/bin/time less the workload's alone (run once
# before: noisy by a few hundredths), plus perf script's.
row() { # NAME CMD...
	local name=$1
	shift
	/usr/bin/time -f '%U %S' -o "$TMP/t.wl" "$@" >/dev/null 2>&1
	local wl
	wl=$(cpu "$TMP/t.wl")
	"$PPROBE" record -g -o "$TMP/pp.folded" -- "$@" >/dev/null 2>"$TMP/pp.err"
	printf '%-26s %-12s %8s%% %7ss\n' "$name" "pprobe -g" "$(complete "$TMP/pp.folded")" \
		"$(sed -n 's/.*profiler CPU \([0-9.]*\) s.*/\1/p' "$TMP/pp.err")"
	for cg in dwarf fp; do
		/usr/bin/time -f '%U %S' -o "$TMP/t.rec" perf record -q -e cpu-clock -F 999 --call-graph "$cg" \
			-o "$TMP/perf.data" -- "$@" >/dev/null 2>&1
		/usr/bin/time -f '%U %S' -o "$TMP/t.scr" perf script -i "$TMP/perf.data" 2>/dev/null |
			awk -f "$FOLD" > "$TMP/perf.folded"
		local c
		c=$(awk -v a="$(cpu "$TMP/t.rec")" -v w="$wl" -v b="$(cpu "$TMP/t.scr")" \
			'BEGIN { printf "%.2f", (a - w > 0 ? a - w : 0) + b }')
		printf '%-26s %-12s %8s%% %7ss\n' "$name" "perf $cg" "$(complete "$TMP/perf.folded")" "$c"
	done
}

printf '%-26s %-12s %9s %8s\n' workload profiler complete cpu
if command -v gcc >/dev/null; then
	gcc -O2 -g -gz -fno-asynchronous-unwind-tables -pthread -o "$TMP/c_gz" "$SRC/tests/workloads/compressed_wl.c" &&
		row "C, gcc -gz" "$TMP/c_gz"
fi
if command -v clang >/dev/null && command -v make >/dev/null; then
	"$SRC/tests/tools/build-workload.sh" "$SRC" "$TMP/b"
	objs=$(sed -n 's/^\([a-z_0-9]*\.o\):.*/\1/p' "$TMP/b/Makefile" | head -12 | tr '\n' ' ')
	# shellcheck disable=SC2086
	row "clang (Debian), make -j2" sh -c "rm -f $TMP/b/*.o; make -C $TMP/b -s -j2 CC=clang $objs"
else
	echo "no clang or make: clang row skipped"
fi
if command -v rg >/dev/null; then
	row "ripgrep (Debian, Rust)" sh -c "for i in 1 2 3 4 5 6; do rg -j2 -c '\\b[a-z]+_[a-z]+\\s*\\([a-z]' /usr/include; done"
else
	echo "no rg: ripgrep row skipped"
fi
if command -v go >/dev/null; then
	cp -r "$SRC/tests/workloads/go_wl" "$TMP/go" && (cd "$TMP/go" && export GOCACHE=$TMP/gocache GOFLAGS=-mod=mod &&
		go build -o "$TMP/gwl" . && go build -ldflags=-compressdwarf=false -o "$TMP/gwl_nz" . &&
		go build -ldflags='-s -w' -o "$TMP/gwl_s" .) &&
		{ row "Go" "$TMP/gwl"; row "Go, plain DWARF" "$TMP/gwl_nz"; row "Go, stripped" "$TMP/gwl_s"; }
else
	echo "no go: Go rows skipped"
fi
cat > "$TMP/py.py" <<'PY'
import os, threading
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def work(k):
    for _ in range(k):
        fib(20)
t = threading.Thread(target=work, args=(150,))
t.start()
pid = os.fork()
if pid == 0:
    work(150)
    os._exit(0)
work(150)
t.join()
os.waitpid(pid, 0)
PY
for v in 3.12 3.13; do
	py=$(ls -d "$HOME"/.pyenv/versions/$v.*/bin/python3 2>/dev/null | tail -1)
	[ -n "$py" ] || { echo "no pyenv python $v: skipped"; continue; }
	opt=perf
	[ "$v" = 3.13 ] && opt=perf_jit
	row "CPython $v -X $opt" "$py" -X "$opt" "$TMP/py.py"
done
if command -v node >/dev/null; then
	cat > "$TMP/j.js" <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0;
for (let i = 0; i < 150; i++) s += fib(24);
console.log(s);
JS
	row "node --perf-basic-prof" node --perf-basic-prof "$TMP/j.js"
else
	echo "no node: skipped"
fi
if command -v javac >/dev/null; then
	cat > "$TMP/Fib.java" <<'JAVA'
public class Fib {
	static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	public static void main(String[] a) { long s = 0; for (int i = 0; i < 400; i++) s += fib(25); System.out.println(s); }
}
JAVA
	javac -d "$TMP" "$TMP/Fib.java" &&
		{ row "Java 17" java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp "$TMP" Fib;
		  row "Java 17 +PreserveFP" java -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions \
			-XX:+DumpPerfMapAtExit -cp "$TMP" Fib; }
else
	echo "no javac: Java skipped"
fi
