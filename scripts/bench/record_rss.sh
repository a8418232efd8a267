#!/usr/bin/env bash
# record -a -g over a long run on a machine whose processes come and go:
# does memory stay flat? pprobe records the whole machine (DWARF stacks,
# 999 Hz per CPU) while one CPU compiles C in a loop (gcc -O2 -c of one of
# our sources: a new cc1 and as every ~0.5 s) and a shell loop runs short
# pipelines (ls, cat, wc); pprobe's RSS, anonymous and file-backed, is read
# from /proc every STEP seconds. The numbers in docs/benchmarks.md ("Ten
# minutes system-wide with process churn") come from this script.
#
#   scripts/bench/record_rss.sh [BUILD_DIR]        (root)
#   SECS=3600 STEP=60 scripts/bench/record_rss.sh  (an hour, a row a minute)
#   ARGS='--max-tables 16G' scripts/bench/record_rss.sh   (more record options)
#
# Prints one Markdown row per STEP (elapsed, RSS, anonymous, file-backed,
# MB), then pprobe's summary lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
PP=$build/pprobe
SECS=${SECS:-600}
STEP=${STEP:-10}
T=$(mktemp -d /tmp/pprobe-record-rss.XXXXXX)
gccloop= shloop= pp=
trap 'kill $gccloop $shloop $pp 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
[ -x "$PP" ] || { echo "no $PP: build first (scripts/build.sh)" >&2; exit 1; }
command -v gcc >/dev/null || { echo "gcc needed" >&2; exit 1; }
src=$root/src/engine/event_spec.c
inc=(-I"$root/include" -I"$root/src/engine" -I"$root/src/util" -I"$build")
(while :; do gcc -O2 -c "$src" "${inc[@]}" -o "$T/o.o" 2>/dev/null || sleep 1; done) & gccloop=$!
(while :; do sh -c 'ls /usr/lib >/dev/null; cat /etc/passwd | wc -l >/dev/null'; done) & shloop=$!
# shellcheck disable=SC2086 # ARGS: options, split as words
"$PP" record -a -g -F 999 -d "$SECS" ${ARGS:-} -o "$T/out.folded" 2>"$T/err" & pp=$!
sleep 1
mb() { awk -v k="$1" '$1 == k ":" { printf "%.0f", $2 / 1024 }' "/proc/$pp/status" 2>/dev/null; }
echo "| elapsed | RSS | anonymous | file-backed |"
echo "|---|---|---|---|"
t=0
while kill -0 "$pp" 2>/dev/null; do
	rss=$(mb VmRSS) anon=$(mb RssAnon) file=$(mb RssFile)
	[ -n "$rss" ] && echo "| ${t} s | ${rss} MB | ${anon} MB | ${file} MB |"
	sleep "$STEP"
	t=$((t + STEP))
done
wait "$pp" || true
pp=
grep -E 'samples|unwinding|profiler CPU|lost|left out|spill' "$T/err" || cat "$T/err"
