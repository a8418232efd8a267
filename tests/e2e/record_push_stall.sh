#!/usr/bin/env bash
# record --push to a server that accepts and never answers: the end waits
# the documented 5 s for what is queued, not the 30 s request timeout (it
# waited ~26 s, and a first SIGINT then took 27.3 s); what was not
# delivered is said. The server is a local socket that accepts and reads,
# never writes (python3); the command forks and starts threads.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS/wl_record
command -v python3 >/dev/null || skip "python3 not found (Debian package python3)"
python3 -c '
import socket, sys, threading
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
def drain(c):
    while c.recv(65536):
        pass
while True:
    c, _ = s.accept()
    held.append(c)
    threading.Thread(target=drain, args=(c,), daemon=True).start()
' >"$T/port" 2>/dev/null &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
port=$(cat "$T/port")
check "silent server listening" [ -n "$port" ]

# the run ends by itself: 2.5 s of a command, then at most 5 s (and the
# second libcurl takes to look) for the queue
start=$(date +%s%N)
timeout -s KILL 60 "$PPROBE" record -g --push "http://127.0.0.1:$port/" --interval 1 -- "$W" threads 2 2.5 \
	>/dev/null 2>"$T/err"
st=$?
took=$((($(date +%s%N) - start) / 1000000))
cat "$T/err"
check "the command's status, pprobe not killed ($st)" [ $st -eq 0 ]
check "the end waited the documented 5 s, not the request timeout (run of 2.5 s: ${took} ms < 15 s; it was 28 s)" \
	[ $took -lt 15000 ]
check "what was not delivered is said" grep -q "push: NOT delivered: .* still queued at the end" "$T/err"
check "why: no answer within the 5 s the end waits for" grep -q "failed: no answer within the 5 s the end waits for" "$T/err"

# a SIGINT in the middle of a long command: the run ends, the end waits
# its 5 s at most
"$PPROBE" record -g --push "http://127.0.0.1:$port/" --interval 1 -- "$W" hot 30 >/dev/null 2>"$T/int.err" &
pid=$!
sleep 2.5
start=$(date +%s%N)
kill -INT $pid
wait $pid
st=$?
took=$((($(date +%s%N) - start) / 1000000))
pkill -f "wl_record hot 30" 2>/dev/null
cat "$T/int.err"
check "SIGINT: pprobe ended within 5 s and the second libcurl takes (${took} ms < 10 s; it was 27.3 s)" [ $took -lt 10000 ]
check "SIGINT: what was not delivered is said" grep -q "push: NOT delivered" "$T/int.err"
done_testing
