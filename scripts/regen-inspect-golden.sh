#!/usr/bin/env bash
# Regenerate tests/golden/inspect/*.out from build/ (or $1). The goldens
# depend on the compiler that built the workloads (-O2 code and DWARF): the
# producer is recorded in tests/golden/inspect/PRODUCER and tests/e2e/inspect.sh
# compares goldens only when it matches. Review the diff before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
g=tests/golden/inspect
rm -f "$g"/*.out
LC_ALL=C bash "$g/run-cases.sh" "$build/pprobe" "$build/tests/workloads" "$PWD" "$g"
readelf -p .comment "$build/tests/workloads/inspect_wl_O2" | grep -o 'GCC:.*' | head -1 >"$g/PRODUCER"
echo "regenerated $(ls "$g"/*.out | wc -l) goldens for $(cat "$g/PRODUCER")"
git status --short "$g"
