#!/usr/bin/env bash
# record --push: continuous profiling into Pyroscope's HTTP ingest API
# (issue 14, part 6). No Pyroscope server can be installed here: a local
# receiver (push_receiver.mjs) checks each request against the documented
# API and keeps the profiles, which Debian's go tool pprof then decodes.
# The command forks and execs (bash, wl_record fork-exec) and starts
# threads; the push must not change its exit status, must retry a server
# that answers 503, and must say what it could not deliver.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS
cd "$T" || exit 1	# an output file written by mistake would land here
command -v node >/dev/null || skip "node not found (Debian package nodejs) for the local ingest receiver"
command -v go >/dev/null || skip "go tool pprof not installed (Debian package golang-go)"
export HOME=$T/home GOCACHE=$T/gocache GOFLAGS= GOTOOLCHAIN=local
mkdir -p "$HOME" "$T/in"
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run here"

# a receiver that answers 503 to the first 2 requests
node "$(dirname "$0")/push_receiver.mjs" "$T/in" 2 >"$T/port" 2>"$T/recv.err" & recv=$!
trap 'kill $recv 2>/dev/null; rm -rf "$T" "$T.cache"' EXIT
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
port=$(cat "$T/port")
check "receiver listening" [ -n "$port" ]

cp "$W/wl_record" "$T/wl_child"
# 4 rounds of 100 prctl 1.2 s apart, then an exec'd child's 50, then 50 of
# a binary deleted as soon as it exits, beside a process with threads: 500
# prctl samples over ~6 intervals of 1 s. Between rounds no wl_record runs
# and an interval goes by: its file is closed at a cut and opened again.
"$PPROBE" record -e syscalls:sys_enter_prctl -g --push "http://127.0.0.1:$port/" --interval 1 --app wl.test \
	--label env=ci --label host=t1 -- bash -c "
	'$W/wl_record' threads 2 0.5 &
	for i in 1 2 3 4; do '$W/wl_record' prctl 100; sleep 1.2; done
	'$W/wl_record' fork-exec '$T/wl_child' prctl 50
	cp '$W/wl_record' '$T/wl_gone'; '$T/wl_gone' prctl 50; rm '$T/wl_gone'; sleep 1.2
	wait; exit 7" 2>"$T/err"
st=$?
cat "$T/err"
check "the command's exit status (7) is pprobe's" [ $st -eq 7 ]
check "the 503s were said, and that the recording goes on" \
	grep -q "push to http://127.0.0.1:$port/ failed: the server answered HTTP 503 .*the recording goes on" "$T/err"
check "every profile delivered in the end" grep -qE "push: ([0-9]+) of \1 profiles delivered" "$T/err"
check "nothing said lost" not grep -q "NOT delivered" "$T/err"
check "no request the receiver refused (400)" not grep -q '"status":400' "$T/in/log.jsonl"
n=$(grep -c '"status":200' "$T/in/log.jsonl")
check "one profile per interval: >= 6 uploads ($n)" [ "$n" -ge 6 ]
check "2 answered 503, then retried" [ "$(grep -c '"status":503' "$T/in/log.jsonl")" -eq 2 ]
check "name wl.test{env=ci,host=t1} on every upload" \
	[ "$(grep '"status":200' "$T/in/log.jsonl" | grep -c '"app":"wl.test","labels":{"env":"ci","host":"t1"}')" -eq "$n" ]
# the intervals tile the run: each from is the previous until or the second before it
check "intervals in order, each from <= until, no gap" node -e '
	const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse)
		.filter((r) => r.status === 200);
	let ok = l.length > 0;
	for (let i = 0; i < l.length; i++) {
		if (l[i].from > l[i].until) ok = false;
		if (i && (l[i].from < l[i - 1].until - 1 || l[i].from > l[i - 1].until)) ok = false;
	}
	process.exit(ok ? 0 : 1);' "$T/in/log.jsonl"

# go tool pprof merges the uploads: every prctl sample is in one of them
files=$(ls "$T/in"/*.pb.gz)
# shellcheck disable=SC2086
go tool pprof -symbolize=none -sample_index=samples -top $files >"$T/top" 2>"$T/pp.err"
check "go tool pprof reads every upload ($(tail -1 "$T/pp.err"))" [ -s "$T/top" ]
total=$(sed -nE 's/.* of ([0-9]+) total.*/\1/p' "$T/top" | head -1)
check "500 prctl samples across the uploads ($total)" [ "$total" = 500 ]
# shellcheck disable=SC2086
go tool pprof -symbolize=none -tags $files >"$T/tags" 2>/dev/null
check "labels comm (wl_record, wl_child, wl_gone), pid and tid on the samples" \
	sh -c "grep -q wl_child '$T/tags' && grep -q wl_gone '$T/tags' && grep -q wl_record '$T/tags' && grep -qE '^ *pid' '$T/tags' && grep -qE '^ *tid' '$T/tags'"
# shellcheck disable=SC2086
go tool pprof -symbolize=none -sample_index=samples -top -focus='^do_prctls$' $files >"$T/focus" 2>/dev/null
focus=$(sed -nE 's/^Showing nodes accounting for ([0-9]+),.*/\1/p' "$T/focus" | head -1)
check "stacks: all 500 through do_prctls, the deleted binary's too ($focus)" [ "$focus" = 500 ]

# Nobody listening: the command runs as it would, its status is kept, and
# what could not be delivered is said with its count.
kill $recv 2>/dev/null
wait $recv 2>/dev/null
t0=$(date +%s)
"$PPROBE" record -e syscalls:sys_enter_prctl --push "http://127.0.0.1:$port" --interval 0.5 -- \
	bash -c "'$W/wl_record' prctl 30; sleep 1.2; '$W/wl_record' prctl 30; exit 3" 2>"$T/down.err"
st=$?
t1=$(date +%s)
cat "$T/down.err"
check "server down: the command's exit status (3)" [ $st -eq 3 ]
check "server down: the failure said" grep -q "push to http://127.0.0.1:$port failed: " "$T/down.err"
check "server down: 0 delivered, the rest counted as not delivered" \
	grep -qE "push: 0 of [0-9]+ profiles delivered" "$T/down.err"
check "server down: NOT delivered line" grep -qE "NOT delivered: [0-9]+ dropped .* [0-9]+ still queued at the end" "$T/down.err"
check "server down: pprobe gives up within ~10 s of the end ($((t1 - t0)) s)" [ $((t1 - t0)) -le 16 ]

# With unwinding workers the intervals are still cut (their tick had
# replaced --push's: one profile for the whole run).
"$PPROBE" record -g --workers 2 -F 99 --push "http://127.0.0.1:$port" --interval 0.5 -- sleep 2.2 2>"$T/w.err"
n=$(sed -n 's/.*push: 0 of \([0-9]*\) profiles delivered.*/\1/p' "$T/w.err")
check "--workers 2: a profile per interval (>= 4: ${n:-none})" [ "${n:-0}" -ge 4 ]

# bad input: one line, exit 2, nothing started
for args in "--push ftp://x" "--push http://x --label bad" "--push http://x --label 1a=b" "--interval 2" \
	"--app x" "--push http://x -o $T/x.folded" "--push http://x --app a/b"; do
	# shellcheck disable=SC2086
	"$PPROBE" record -e cpu-clock $args -- true >"$T/bad.out" 2>"$T/bad.err"
	st=$?
	check "record $args: exit 2, one line ($(head -1 "$T/bad.err"))" \
		sh -c "[ $st -eq 2 ] && [ \$(wc -l <'$T/bad.err') -eq 1 ] && [ ! -s '$T/bad.out' ]"
done
check "--push -e a -e b: one event only" sh -c "'$PPROBE' record -e cpu-clock -e task-clock --push http://x -- true 2>&1 | grep -q 'one -e'"
check "no output file from --push" [ ! -e pprobe.folded ]
done_testing
