#!/usr/bin/env bash
# The SVG in a real browser: Debian's chromium, headless, driven by
# playwright-core (tests/browser, installed with `npm ci` when missing).
# Checks rendering, hover details, search with the matched %, click to zoom,
# reset zoom, reset search. Skips (77) with the reason when chromium, node or
# the npm packages are unavailable; it never passes without a browser.
. "$(dirname "$0")/lib.sh"
B="$SRCDIR/tests/browser"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "$CHROMIUM not found (apt-get install chromium)"
command -v node >/dev/null || skip "node not found (apt-get install nodejs npm)"
if [ ! -d "$B/node_modules/playwright-core" ]; then
	command -v npm >/dev/null || skip "npm not found to install playwright-core"
	(cd "$B" && npm ci --no-audit --no-fund >"$T/npm.log" 2>&1) ||
		skip "npm ci in tests/browser failed (registry unreachable?): $(tail -1 "$T/npm.log")"
fi

# 1180 samples on the 1200 px canvas: one sample per pixel, so the test can
# expect exact positions and percentages.
printf '%s\n' 'app;main;alpha;ba_leaf 300' 'app;main;alpha 100' 'app;main;beta;ba_other 200' \
	'app;main;beta 180' 'app;main;gamma 300' 'app;main;gamma;tpl<a&b> 100' >"$T/b.folded"
"$PPROBE" flamegraph "$T/b.folded" >"$T/b.svg" || { echo "FAIL: pprobe flamegraph" >&2; exit 1; }
"$PPROBE" flamegraph --inverted "$T/b.folded" >"$T/i.svg" || { echo "FAIL: pprobe flamegraph --inverted" >&2; exit 1; }
CHROMIUM="$CHROMIUM" node "$B/flamegraph.test.mjs" "$T/b.svg" "$T/i.svg"
