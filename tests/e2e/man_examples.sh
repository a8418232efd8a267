#!/usr/bin/env bash
# Every example of every man page runs (issue 28): the lines after
# "Examples:" in each command's help (the EXAMPLES of pprobe-CMD(1), made
# from the same text), run as written with bash, in one folder, in order,
# where ./app, ./server and ./bench are tests/workloads/man_app (the
# functions the examples name: handle_request, parse, handle(req, len)).
# Only these change: a PID in an example (1234, 4242, 3073758) becomes a
# fresh ./app's; '-d N' and 'sleep N' become half a second; a comment at
# the end goes. Each must exit 0. What this kernel cannot do is skipped,
# saying why: the function tracer (ftrace), hardware counters (cycles),
# go tool pprof where Go is missing.
. "$(dirname "$0")/lib.sh"
need_root
APP=$WORKLOADS/man_app
[ -x "$APP" ] || skip "no $APP"
E=$T/ex
mkdir "$E"
for n in app server bench; do cp "$APP" "$E/$n"; done
printf 'all:\n\t@cat /no/such/file 2>/dev/null || true\n' >"$E/Makefile"	# for '-- make'
BIN=$(mktemp -d "$T/bin.XXXXXX")
ln -s "$PPROBE" "$BIN/pprobe"
trap '"$PPROBE" -d "probe_server:*" >/dev/null 2>&1; kill $(jobs -p) 2>/dev/null; rm -rf "$T" "$T.cache"' EXIT

"$PPROBE" list >"$T/list" 2>/dev/null
grep -qE '^  (cpu-)?cycles .*not available' "$T/list" && no_hw="no hardware counters here"
"$PPROBE" ftrace -T vfs_read --count -d 0.1 >/dev/null 2>&1 || no_ftrace="the function tracer is refused here (tests/e2e/vm_ftrace.sh runs it in the VM)"
command -v go >/dev/null || no_go="no go tool here"

no_hw=${no_hw:-} no_ftrace=${no_ftrace:-} no_go=${no_go:-}
n=0
for c in $("$PPROBE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'); do
	"$PPROBE" "$c" --help | sed -n '/^Examples:$/,$p' | sed -n 's/^  \(pprobe .*\)$/\1/p' >"$T/examples"
	while IFS= read -r ex; do
		cmd=$(printf '%s' "$ex" | sed -E -e 's/ +# .*$//' -e 's/ +\([a-z]+\)$//' \
			-e 's/-d [0-9]+/-d 0.5/g' -e 's/sleep [0-9]+/sleep 0.5/g')
		why=
		case $cmd in
		*"pprobe ftrace"*) why=$no_ftrace ;;
		*cycles*) why=$no_hw ;;
		*"go tool"*) why=$no_go ;;
		esac
		if [ -n "$why" ]; then
			echo "SKIP example: $ex ($why)"
			continue
		fi
		if grep -qE '\b(1234|4242|3073758)\b' <<<"$cmd"; then
			(cd "$E" && exec ./app 1.5 >/dev/null) &
			cmd=$(printf '%s' "$cmd" | sed -E "s/\b(1234|4242|3073758)\b/$!/g")
		fi
		(cd "$E" && PATH="$BIN:$PATH" PPROBE_CACHE_DIR= timeout 60 bash -c "$cmd" </dev/null >"$T/out" 2>&1)
		rc=$?
		check "pprobe $c example: $ex (exit $rc)" test "$rc" -eq 0
		[ "$rc" -eq 0 ] || { echo "ran: $cmd"; tail -5 "$T/out"; }
		wait 2>/dev/null
		n=$((n + 1))
	done <"$T/examples"
done
check "some examples ran ($n)" test "$n" -ge 20
check "the example's flame graph is an SVG" grep -q '<svg' "$E/app.svg"
done_testing
