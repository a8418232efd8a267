#!/usr/bin/env bash
# The test command: install what is missing, build (plain, sanitized, clang),
# run every test through ctest. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

echo "== build (gcc, -Werror)"
scripts/build.sh build -DPPROBE_WERROR=ON
echo "== build (clang, -Werror)"
CC=clang CXX=clang++ scripts/build.sh build-clang -DPPROBE_WERROR=ON
echo "== build (gcc, address+undefined sanitizers)"
scripts/build.sh build-asan -DPPROBE_SANITIZE=address,undefined

status=0
echo "== tests"
(cd build && ctest --output-on-failure --timeout 600) || status=1
echo "== tests under sanitizers"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --output-on-failure --timeout 600) || status=1
exit $status
