#!/usr/bin/env bash
# The test command: install what is missing, build (plain, sanitized, clang),
# run every test through ctest, then fuzz each parser briefly (build-fuzz:
# every seed and regression input of tests/fuzz/, then PPROBE_FUZZ_SECONDS,
# default 15, of fuzzing each). Exits non-zero on any failure, a crash found
# by the fuzzers included.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

echo "== build (gcc, -Werror)"
scripts/build.sh build -DPPROBE_WERROR=ON
echo "== build (clang, -Werror)"
CC=clang CXX=clang++ scripts/build.sh build-clang -DPPROBE_WERROR=ON
echo "== build (gcc, address+undefined sanitizers)"
scripts/build.sh build-asan -DPPROBE_SANITIZE=address,undefined
echo "== build (clang, libFuzzer targets of tests/fuzz)"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DPPROBE_FUZZ=ON -DPPROBE_WERROR=ON \
	-DPPROBE_FUZZ_SECONDS="${PPROBE_FUZZ_SECONDS:-15}" >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzzers

status=0
echo "== tests"
(cd build && ctest --output-on-failure --timeout 600) || status=1
echo "== tests under sanitizers"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --output-on-failure --timeout 600) || status=1
echo "== fuzz (scripts/fuzz.sh TARGET SECONDS for a long run)"
(cd build-fuzz && ctest -L fuzz --output-on-failure --timeout 600) || status=1
exit $status
