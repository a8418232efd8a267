#!/usr/bin/env bash
# speedscope files in speedscope itself: the npm package's build served
# locally and opened in Debian's chromium, headless, driven by playwright-core
# (tests/browser, installed with `npm ci` when missing). A synthetic file
# (test_speedscope --write: exact threads, weights, order) and a recording of
# a program that forks, execs and starts threads: the profile list shows the
# threads, the busiest first, the top function in the sandwich view, the
# Left Heavy and Time Order views draw the stacks. Skips (77) with the reason
# when chromium, node or the npm packages are unavailable; it never passes
# without a browser.
. "$(dirname "$0")/lib.sh"
need_root
B="$SRCDIR/tests/browser"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "$CHROMIUM not found (apt-get install chromium)"
command -v node >/dev/null || skip "node not found (apt-get install nodejs npm)"
if [ ! -d "$B/node_modules/playwright-core" ] || [ ! -f "$B/node_modules/speedscope/dist/release/index.html" ]; then
	command -v npm >/dev/null || skip "npm not found to install playwright-core and speedscope"
	(cd "$B" && npm ci --no-audit --no-fund >"$T/npm.log" 2>&1) ||
		skip "npm ci in tests/browser failed (registry unreachable?): $(tail -1 "$T/npm.log")"
fi
SYNTH=$(dirname "$PPROBE")/tests/test_speedscope
[ -x "$SYNTH" ] || { echo "FAIL: $SYNTH not built" >&2; exit 1; }
"$SYNTH" --write "$T/synth.speedscope.json" || { echo "FAIL: test_speedscope --write" >&2; exit 1; }
"$PPROBE" record -q -g -o "$T/rec.speedscope.json" -- \
	"$WORKLOADS/wl_record" fork-exec "$WORKLOADS/wl_record" threads 3 0.4 >/dev/null ||
	{ echo "FAIL: pprobe record" >&2; exit 1; }
CHROMIUM="$CHROMIUM" node "$B/speedscope.test.mjs" "$T/synth.speedscope.json" "$T/rec.speedscope.json"
