#!/usr/bin/env bash
# The demo: install what pprobe needs that is missing (scripts/packages-pprobe.txt,
# not the tests' packages), build pprobe and the demo workload only
# (tests/workloads/demo_app.c: a toy server that parses, compresses,
# checksums and logs), profile it with stacks, write demo.folded and
# demo.svg, and print the heaviest stacks. As an ordinary user at
# kernel.perf_event_paranoid 2 the profile is of user space only (said).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh scripts/packages-pprobe.txt
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target pprobe man demo_app
./build/pprobe record -g -o demo.folded -- ./build/tests/workloads/demo_app 3
./build/pprobe flamegraph --title "pprobe demo: demo_app" demo.folded > demo.svg.tmp
mv demo.svg.tmp demo.svg
echo "demo: flame graph written to demo.svg"
echo
echo "Heaviest stacks (samples, stack):"
awk '{ n = $NF; $NF = ""; printf "%8d  %s\n", n, $0 }' demo.folded | sort -rn | head -8 | cut -c1-220
