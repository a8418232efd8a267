#!/usr/bin/env bash
# The demo: install what is missing, build, profile the bundled demo workload
# (tests/workloads/demo_app.c: a toy server that parses, compresses,
# checksums and logs) with stacks, write demo.folded and demo.svg, and print
# the heaviest stacks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "demo: kernel stacks need root or perf_event_paranoid <= 1 (now $(cat /proc/sys/kernel/perf_event_paranoid))" >&2
	exit 1
fi
./build/pprobe record -g -o demo.folded -- ./build/tests/workloads/demo_app 3
./build/pprobe flamegraph --title "pprobe demo: demo_app" demo.folded > demo.svg.tmp
mv demo.svg.tmp demo.svg
echo "demo: flame graph written to demo.svg"
echo
echo "Heaviest stacks (samples, stack):"
awk '{ n = $NF; $NF = ""; printf "%8d  %s\n", n, $0 }' demo.folded | sort -rn | head -8 | cut -c1-220
