#!/usr/bin/env bash
# record --push over a long run: does memory stay flat? pprobe records the
# whole machine (-a -g, DWARF stacks, 999 Hz per CPU) and pushes every
# --interval seconds to a local ingest receiver (tests/e2e/push_receiver.mjs,
# which checks each request as Pyroscope's API documents it); pprobe's RSS
# is read from /proc at the start and then every minute.
#
#   scripts/bench/push_rss.sh [BUILD_DIR]       (root; node)
#   SECS=600 INTERVAL=10 scripts/bench/push_rss.sh
#   STEADY=1 SECS=60 INTERVAL=2 scripts/bench/push_rss.sh   (one CPU-bound
#       process instead of -a: wl_record hot SECS, its own steady stacks)
#   CHURN=1 SECS=600 scripts/bench/push_rss.sh   (-a, and the script itself
#       churns: gcc -O2 -g compiles a workload into a fresh binary, which
#       then starts threads, forks and execs, over and over)
#
# Whatever runs on the machine meanwhile is the workload: a build or a test
# suite (many short processes, new code every second) is the hard case,
# since each new process brings new mappings, files and frames; CHURN=1 makes
# that case reproducible. Prints one Markdown row per minute: elapsed, RSS,
# uploads delivered, and with CHURN=1 the compile-and-run rounds so far.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
PP=$build/pprobe
SECS=${SECS:-600}
INTERVAL=${INTERVAL:-10}
T=$(mktemp -d /tmp/pprobe-push-bench.XXXXXX)
churn=
trap 'kill $recv $pp $churn 2>/dev/null; wait 2>/dev/null; rm -rf "$T" 2>/dev/null || { sleep 2; rm -rf "$T"; }' EXIT
mkdir -p "$T/in"
node "$root/tests/e2e/push_receiver.mjs" "$T/in" 0 >"$T/port" & recv=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
if [ -n "${STEADY:-}" ]; then
	target=(-- "$build/tests/workloads/wl_record" hot "$SECS")
else
	target=(-a -d "$SECS")
fi
"$PP" record -g -F 999 --push "http://127.0.0.1:$(cat "$T/port")" --interval "$INTERVAL" --app bench \
	"${target[@]}" 2>"$T/err" >/dev/null & pp=$!
if [ -n "${CHURN:-}" ]; then
	(
		i=0
		while [ -d "/proc/$pp" ]; do
			i=$((i + 1))
			gcc -O2 -g -o "$T/wl$i" "$root/tests/workloads/record_wl.c" -lpthread
			"$T/wl$i" threads 2 0.05 && "$T/wl$i" fork-exec /bin/true >/dev/null
			rm -f "$T/wl$i"
			echo $i >"$T/rounds"
		done
	) & churn=$!
fi
t0=$SECONDS
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pp/status" 2>/dev/null || echo 0; }
uploads() { grep -c '"status":200' "$T/in/log.jsonl" 2>/dev/null || echo 0; }
rounds() { [ -n "$churn" ] && echo " $(cat "$T/rounds" 2>/dev/null || echo 0) |"; }
echo "| elapsed | pprobe RSS | uploads |${churn:+ churn rounds |}"
echo "|---|---|---|${churn:+---|}"
sleep 5
while [ -d "/proc/$pp" ]; do
	printf '| %4ds | %6d KiB | %s |%s\n' $((SECONDS - t0)) "$(rss)" "$(uploads)" "$(rounds)"
	# the last row 2 s before -d ends it: pprobe still runs
	for _ in $(seq 60); do [ -d "/proc/$pp" ] && [ $((SECONDS - t0)) -lt $((SECS - 2)) ] && sleep 1; done
	[ $((SECONDS - t0)) -ge $((SECS - 2)) ] && { printf '| %4ds | %6d KiB | %s |%s\n' $((SECONDS - t0)) "$(rss)" "$(uploads)" "$(rounds)"; break; }
done
wait $pp || true
grep -E "push:|samples" "$T/err" | sed 's/^/    /'
