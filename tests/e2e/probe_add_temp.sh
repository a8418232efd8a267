#!/usr/bin/env bash
# Temporary tracefs probes for one run: -e 'SPEC ARG...' in trace, stat and
# record makes a probe in group pprobe_<pid>, gone after a normal exit, after
# SIGINT/SIGTERM, after an error; after kill -9 the next start sweeps it.
. "$(dirname "$0")/lib.sh"
need_root
need_uprobe_events
N=5
PATHS=(/index.html /api/v1/users /favicon.ico)
# temporary probes on our workloads (other tests may have their own meanwhile)
temps() { grep -E '^[pr][0-9]*:pprobe_[0-9]+/.*probeadd_server' $TR/uprobe_events; }
group_of() { grep -oE "^[pr][0-9]*:pprobe_$1/[^ ]+" $TR/uprobe_events; }
# our temporary groups only: other tests may run pprobe meanwhile
mine() { for p in "$@"; do group_of "$p"; done; }

for opt in O0 O2; do
	bin=$WORKLOADS/probeadd_server_$opt
	# trace with -x: probe:FUNC is a uprobe in the binary
	"$PPROBE" trace -x "$bin" -e 'probe:handle path=req->path:string len' -e "uprobe:$bin:handle%return r=\$retval" \
		-- "$bin" $N >"$T/trace" 2>"$T/err"
	check "$opt: trace exits 0" [ $? -eq 0 ]
	for ((i = 0; i < N; i++)); do
		p=${PATHS[i % 3]}
		printf 'probe:handle: path="%s" len=%d\n' "$p" ${#p}
		printf 'uprobe:%s:handle%%return: r=%d\n' "$bin" $((${#p} * 2 + i % 4))
	done >"$T/want"
	grep -oE '(probe:handle|uprobe:[^ ]*%return): .*' "$T/trace" |
		sed -E 's/\(0x[0-9a-f]+( <- 0x[0-9a-f]+)?\) //' >"$T/got"
	check "$opt: values of every call, named as spelled" diff -u "$T/want" "$T/got"
done
bin=$WORKLOADS/probeadd_server_O2
check "normal exit: no temporary probe left" [ -z "$(temps)" ]

# stat counts a probe with args like one without; record too
"$PPROBE" stat -e "uprobe:$bin:handle len" -- "$bin" $N >"$T/out" 2>"$T/err"
check "stat: $N hits" grep -qE "^ +$N +uprobe:$bin:handle( |$)" "$T/err"
"$PPROBE" record -e "uprobe:$bin:handle len" -o "$T/f" -- "$bin" $N >/dev/null 2>&1
check "record: $N samples in handle" [ "$(folded_sum "$T/f" ';handle ')" -eq $N ]
check "stat and record: nothing left" [ -z "$(temps)" ]

# SIGINT and SIGTERM: the engine stops and pprobe removes the probe
for sig in INT TERM; do
	"$PPROBE" trace -x "$bin" -e 'probe:handle len' -a >"$T/trace" 2>"$T/err" & pid=$!
	for ((k = 0; k < 100; k++)); do [ -n "$(group_of $pid)" ] && break; sleep 0.1; done
	check "SIG$sig: the probe exists while tracing (pprobe_$pid)" [ "$(group_of $pid)" = "p:pprobe_$pid/handle" ]
	# the events are open (perf_event fds), then a moment to enable them
	for ((k = 0; k < 100; k++)); do ls -l /proc/$pid/fd 2>/dev/null | grep -q perf_event && break; sleep 0.1; done
	sleep 0.5
	"$bin" 3 >/dev/null
	sleep 0.3
	kill -$sig $pid
	wait $pid
	check "SIG$sig: traced the 3 calls" [ "$(grep -c 'probe:handle: .* len=' "$T/trace")" -eq 3 ]
	check "SIG$sig: pprobe_$pid gone" [ -z "$(group_of $pid)" ]
done

# errors after the probe was made: removed on the error path too
"$PPROBE" trace -x "$bin" -e 'probe:handle len' -e 'nosuch:event' -- "$bin" 1 >/dev/null 2>"$T/err"
check "error after the probe: exit 2" [ $? -eq 2 ]
check "error after the probe: the error said" grep -q "unknown tracepoint 'nosuch:event'" "$T/err"
check "error after the probe: nothing left" [ -z "$(temps)" ]
"$PPROBE" trace -x "$bin" -e 'probe:handle len nosuch' -- "$bin" 1 >/dev/null 2>"$T/err"
rc=$?
check "bad argument: exit 2 (got $rc)" [ $rc -eq 2 ]
check "bad argument: message names the event and the argument" grep -qxF \
	"pprobe trace: 'probe:handle': argument 'nosuch' at handle+0: no variable 'nosuch' here (variables in scope: req, len; globals of the program are found by name too)" "$T/err"
check "bad argument: nothing left" [ -z "$(temps)" ]
"$PPROBE" trace -x "$bin" -e 'probe:handle len' -- /nonexistent/cmd >/dev/null 2>"$T/err"
rc=$?
check "command not found: exit 127 (got $rc)" [ $rc -eq 127 ]
check "command not found: nothing left" [ -z "$(temps)" ]

# kill -9: the probe stays; the next start sweeps it
"$PPROBE" trace -x "$bin" -e 'probe:handle len' -a >/dev/null 2>&1 & pid=$!
for ((k = 0; k < 100; k++)); do [ -n "$(group_of $pid)" ] && break; sleep 0.1; done
sleep 0.3
kill -9 $pid
# checked before reaping it: a zombie still counts as a live pprobe for the
# sweep of any other pprobe that may start meanwhile (other tests)
check "kill -9: pprobe_$pid is left behind" [ "$(group_of $pid)" = "p:pprobe_$pid/handle" ]
wait $pid 2>/dev/null
"$PPROBE" trace -x "$bin" -e 'probe:handle len' -- "$bin" 2 >"$T/trace" 2>"$T/err"
check "the next run works" [ "$(grep -c 'probe:handle: .* len=' "$T/trace")" -eq 2 ]
check "the next run swept pprobe_$pid" [ -z "$(group_of $pid)" ]
# a run without any probe sweeps too
"$PPROBE" trace -x "$bin" -e 'probe:handle len' -a >/dev/null 2>&1 & pid=$!
for ((k = 0; k < 100; k++)); do [ -n "$(group_of $pid)" ] && break; sleep 0.1; done
sleep 0.3
kill -9 $pid
check "kill -9 again: pprobe_$pid is left behind" [ "$(group_of $pid)" = "p:pprobe_$pid/handle" ]
wait $pid 2>/dev/null
"$PPROBE" stat -e sched:sched_process_exec -- true >/dev/null 2>&1
check "pprobe stat with a tracepoint swept pprobe_$pid" [ -z "$(group_of $pid)" ]
check "nothing left at the end" [ -z "$(temps)" ]
done_testing
