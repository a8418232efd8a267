#!/usr/bin/env bash
# Regenerates tests/unit/golden/flamegraph_*.svg from the current library
# (after an intended change to the SVG), then shows what changed. Review the
# diff before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
cmake -S . -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" --target test_flamegraph_golden >/dev/null
(cd tests/unit && LC_ALL=C PPROBE_REGEN_GOLDEN=1 "../../$build/tests/test_flamegraph_golden")
for f in tests/unit/golden/flamegraph_*.svg; do
	xmllint --noout "$f"
done
git --no-pager diff --stat -- tests/unit/golden/
