#!/usr/bin/env bash
# SIGINT/SIGTERM mid-run stop cleanly: output written, no child left behind,
# pprobe returns the command's status.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS

for sig in INT TERM; do
	cp "$W/wl_record" "$T/wl_sig$sig"
	"$PPROBE" record -g -o "$T/s.folded" -- "$T/wl_sig$sig" hot 60 2>"$T/err" &
	pp=$!
	sleep 1
	kill -$sig $pp
	for i in $(seq 50); do kill -0 $pp 2>/dev/null || break; sleep 0.1; done
	wait $pp
	st=$?
	check "SIG$sig: pprobe stopped" not kill -0 $pp 2>/dev/null
	check "SIG$sig: status is the command's (killed by SIGTERM: 143), got $st" [ $st -eq 143 ]
	check "SIG$sig: output written with samples" [ "$(folded_sum "$T/s.folded")" -ge 20 ]
	check "SIG$sig: no child left" not pgrep -f "$T/wl_sig$sig"
	check "SIG$sig: no temporary files left" [ -z "$(ls "$T" | grep '\.tmp\.')" ]
	grep -q 'stopped by signal' "$T/err"; check "SIG$sig: summary says so" [ $? -eq 0 ]
	rm -f "$T/s.folded"
done

# The command's own exit status is pprobe's.
"$PPROBE" record -q -o "$T/x.folded" -- sh -c 'exit 7'
check "exit status of the command (7)" [ $? -eq 7 ]
done_testing
