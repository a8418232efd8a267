#!/usr/bin/env bash
# Unwinding on worker threads (issue 27, item 2): record --workers 1, 2, 4.
#
#   scripts/bench/workers.sh [BUILD_DIR]      (default: build; root: tracepoints)
#
# 1. backlog: a burst of stacks to unwind, then nothing: four processes of
#    unwind_wl exitburst (each N prctl calls DEPTH frames deep, then exit),
#    syscalls:sys_enter_prctl -g, --hold-exits (each process held at its
#    exit until its samples are unwound, the live stack still there). What
#    is timed: pprobe's wall time from start to its last output, most of it
#    unwinding what was queued; stacks per second is samples / that time.
# 2. rate: record -g -F 999 of a compile loop (gcc: process churn), Go
#    (tests/workloads/go_wl) and node: the unwinding's CPU per stack (the
#    workers' own CPU clocks with 2 or 4; the unwinding's wall time with 1),
#    the main thread's CPU in the run, pprobe's whole CPU.
# The same run gives the projection for big machines: stacks a second at a
# rate on every CPU, against what one worker unwinds a second and what the
# main thread, which keeps the order and the tables, takes a second.
set -u
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "no build dir ${1:-build}" >&2; exit 1; }
PPROBE=$BUILD/pprobe
WL=$BUILD/tests/workloads
SRC=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$PPROBE" ] || { echo "build pprobe first (scripts/build.sh)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "needs root (tracepoints, -F 999 of a command)" >&2; exit 77; }
DEPTH=${WORKERS_DEPTH:-400} BURST=${WORKERS_BURST:-3000}
TMP=$(mktemp -d /tmp/pprobe-workers.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
unset DEBUGINFOD_URLS

echo "pprobe --workers (issue 27): $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, kernel $(uname -r)," \
	"pprobe $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'); load average $(cut -d' ' -f1-3 /proc/loadavg)"

num() { sed -n "s/$2/\\1/p" "$1" | tail -1; }
summary() { # ERR -> "samples complete% us_per_stack workers_cpu main_cpu profiler_cpu", "-" for none
	local f=$1 v k
	for k in '^pprobe record: [0-9.]* s, \([0-9]*\) samples.*' \
		'.* unwinding: [0-9]* user stacks, \([0-9.]*\)% complete.*' \
		'.* unwinding: .*complete, \([0-9.]*\) us per stack.*' \
		'.*unwound on [0-9]* threads: \([0-9.]*\) s of their CPU.*' \
		".*the main thread's \\([0-9.]*\\) s.*" \
		'^pprobe record: profiler CPU \([0-9.]*\) s.*'; do
		v=$(num "$f" "$k")
		printf '%s ' "${v:--}"
	done
	echo
}

echo
echo "## 1. backlog: 4 x unwind_wl exitburst $DEPTH $BURST, -e syscalls:sys_enter_prctl -g --hold-exits (median of 3 by wall time)"
echo "| workers | samples | complete | pprobe wall s | stacks/s | unwinding us/stack | workers CPU s | main thread CPU s | profiler CPU s |"
echo "|---|---|---|---|---|---|---|---|---|"
for w in 1 2 4; do
	for rep in 1 2 3; do
		s=$(date +%s.%N)
		"$PPROBE" record -g --hold-exits --workers "$w" -e syscalls:sys_enter_prctl -o "$TMP/b.folded" -- \
			sh -c "for i in 1 2 3 4; do $WL/unwind_wl exitburst $DEPTH $BURST & done; wait" \
			>/dev/null 2>"$TMP/b$w.$rep.err"
		e=$(date +%s.%N)
		echo "$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }') $(summary "$TMP/b$w.$rep.err")"
	done | sort -n | sed -n 2p > "$TMP/med"	# the median of three by wall time
	read -r wall n comp us wc mc pc < "$TMP/med"
	echo "| $w | $n | $comp% | $wall | $(awk -v n="$n" -v t="$wall" 'BEGIN { printf "%.0f", n / t }') | $us |" \
		"${wc:--} | ${mc:--} | $pc |"
done

echo
echo "## 2. rate: record -g -F 999 (median of three by profiler CPU)"
cat > "$TMP/loop.sh" <<EOF
#!/bin/sh
for i in 1 2 3 4 5 6 7 8; do gcc -O2 -c -I$SRC/include -I$SRC/symbolize -o $TMP/o.o $SRC/symbolize/unwind.c; done
EOF
chmod +x "$TMP/loop.sh"
GO=
if command -v go >/dev/null; then
	cp -r "$SRC/tests/workloads/go_wl" "$TMP/go_wl"
	(cd "$TMP/go_wl" && GOCACHE=$TMP/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -o "$TMP/gwl" .) \
		>/dev/null 2>&1 && GO=$TMP/gwl
fi
cat > "$TMP/loop.js" <<'EOF'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0; for (let i = 0; i < 150; i++) s += fib(27); console.log(s);
EOF
echo "| workload | workers | samples | complete | unwinding us/stack | workers CPU s | main thread CPU s | main thread us/sample | profiler CPU s |"
echo "|---|---|---|---|---|---|---|---|---|"
for wl in gcc go node; do
	case $wl in
	gcc) cmd=("$TMP/loop.sh") ;;
	go) [ -n "$GO" ] || { echo "| go | - | no go toolchain |"; continue; }; cmd=("$GO") ;;
	node) command -v node >/dev/null || { echo "| node | - | no node |"; continue; }
		cmd=(node --perf-basic-prof "$TMP/loop.js") ;;
	esac
	for w in 1 2 4; do
		for rep in 1 2 3; do
			(cd "$TMP" && "$PPROBE" record -g -F 999 --workers "$w" -o "$TMP/r.folded" -- "${cmd[@]}" \
				>/dev/null 2>"$TMP/r.err")
			summary "$TMP/r.err"
		done | sort -k6 -n | sed -n 2p > "$TMP/med"
		read -r n comp us wc mc pc < "$TMP/med"
		mus=$(awk -v c="${mc:-}" -v n="$n" 'BEGIN { if (c != "" && c != "-" && n > 0) printf "%.1f", 1e6 * c / n; else printf "-" }')
		echo "| $wl | $w | $n | $comp% | $us | ${wc:--} | ${mc:--} | $mus | $pc |"
	done
done
rm -f /tmp/perf-*.map.pprobe-workers 2>/dev/null
echo
echo "Projection: a machine of C CPUs, all busy, at F Hz makes C x F stacks a second; one worker"
echo "unwinds 1e6 / (us/stack) of them, the main thread takes 1e6 / (main thread us/sample)."
