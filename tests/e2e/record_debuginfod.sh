#!/usr/bin/env bash
# debuginfod (DEBUGINFOD_URLS) is a network fetch that may wait 90 s per
# server. pprobe record asks it only after the command's run, never while
# reading the rings; under --symbolize-timeout; and a stop signal cancels a
# fetch under way. Two servers: one that answers (the fetched file names
# the code), one that accepts and never answers (the worst a user's server
# can do). The command (stripped, so only debuginfod could name its code)
# forks, execs itself and starts threads.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 needed for the stalling server"
command -v strip >/dev/null || skip "strip (binutils) needed"
strip -o "$T/pf" "$WORKLOADS/probe_fork"
# accepts, logs each connection's time, never answers
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
while True:
    c, _ = s.accept(); held.append(c)
    with open(sys.argv[1], "a") as f: f.write("%.3f\n" % time.time())
' "$T/conn" > "$T/port" &
srv=$!
trap 'kill $srv $(jobs -p) 2>/dev/null; rm -rf "$T" "$T.cache"' EXIT
wait_for test -s "$T/port" || { echo "FAIL: the stalling server did not start" >&2; exit 1; }

# 0. A server that answers (the unstripped program as its debuginfo): the
# fetch after the run names the command's functions.
id=$(readelf -nW "$T/pf" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
mkdir -p "$T/srv/buildid/$id"
cp "$WORKLOADS/probe_fork" "$T/srv/buildid/$id/debuginfo"
python3 -c '
import http.server, functools, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
h = functools.partial(Quiet, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True)
s.serve_forever()
' "$T/srv" > "$T/port0" &
wait_for test -s "$T/port0" || { echo "FAIL: the answering server did not start" >&2; exit 1; }
DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$T/port0")" DEBUGINFOD_CACHE_PATH="$T/cache0" \
	"$PPROBE" record -g -o "$T/ok.folded" -- "$T/pf" 2 2 30000000 2>"$T/ok.err"
rc=$?
check "answered: record exits as the command did (7), got $rc" [ $rc -eq 7 ]
# (calls() is inlined: its frame comes from the fetched file's DWARF)
check "answered: the command's functions are named (main;calls_[i];work)" grep -q ';main;calls_\[i\];work ' "$T/ok.folded"
check "answered: in its threads too (start_thread;thread_main;calls_[i];work)" grep -q 'start_thread;thread_main;calls_\[i\];work ' "$T/ok.folded"

export DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$T/port")" DEBUGINFOD_CACHE_PATH="$T/cache"
: > "$T/conn"

# 1. Bounded: the run, then at most --symbolize-timeout 2 of fetching.
start=$(date +%s%N)
"$PPROBE" record -g --symbolize-timeout 2 -o "$T/a.folded" -- \
	sh -c '"$0" 2 2 150000000; st=$?; date +%s.%N > "$1"; exit $st' "$T/pf" "$T/end" 2>"$T/a.err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
cat "$T/a.err"
check "bounded: record exits as the command did (7), got $rc" [ $rc -eq 7 ]
check "bounded: done in < 20 s with a server that never answers ($ms ms)" [ $ms -lt 20000 ]
check "bounded: debuginfod was asked" [ -s "$T/conn" ]
first=$(sort -n "$T/conn" | head -1)
check "bounded: not while the command ran (first ask ${first:-none}, command ended $(cat "$T/end"))" \
	awk -v a="${first:-0}" -v e="$(cat "$T/end")" 'BEGIN { exit !(a >= e) }'
check "bounded: the timeout is said" grep -q 'symbolizing took longer than --symbolize-timeout' "$T/a.err"
check "bounded: the stacks are written, the command's code by its object" grep -q '\[pf\]' "$T/a.folded"

# 2. Cancelled: one SIGTERM during the fetch (default timeout, 60 s) ends
# it within seconds, the stacks written; record's status is the command's.
: > "$T/conn"
# (a cache of its own: libdebuginfod remembers a cancelled query a while)
DEBUGINFOD_CACHE_PATH="$T/cache2" "$PPROBE" record -g -o "$T/b.folded" -- "$T/pf" 2 2 15000000 2>"$T/b.err" &
pid=$!
check "signal: pprobe asks debuginfod after the run" wait_for test -s "$T/conn"
sleep 0.3
start=$(date +%s%N)
kill -TERM $pid
reap $pid
st=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "signal: one SIGTERM ends the fetch and pprobe within 5 s ($ms ms)" [ $ms -lt 5000 ]
check "signal: the status is still the command's (7: the signal came after it), got $st" [ $st -eq 7 ]
check "signal: the stacks are written" grep -q '\[pf\]' "$T/b.folded"
check "signal: not ended at once" not grep -q 'again: stopping at once' "$T/b.err"

# 3. A server that sends without end (no Content-Length: libdebuginfod's
# own DEBUGINFOD_MAXSIZE check needs one): the cap is checked as the answer
# arrives, the fetch cut, said once; the stacks are written without it.
python3 -c '
import http.server, sys
class Endless(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        chunk = b"\0" * 65536
        try:
            for _ in range(128):    # 8 MiB, then the connection closes
                self.wfile.write(chunk)
        except OSError:
            pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endless)
print(s.server_address[1], flush=True)
s.serve_forever()
' > "$T/port3" &
wait_for test -s "$T/port3" || { echo "FAIL: the endless server did not start" >&2; exit 1; }
# pprobe's own cap (PPROBE_DEBUGINFOD_MAXSIZE): with DEBUGINFOD_MAXSIZE set,
# libdebuginfod 0.188 says "using max size" with dprintf to fd -1, whose
# buffer glibc 2.36 leaks, which the sanitized build's leak check reports.
DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$T/port3")" DEBUGINFOD_CACHE_PATH="$T/cache3" PPROBE_DEBUGINFOD_MAXSIZE=1048576 \
	timeout -s KILL 120 "$PPROBE" record -g -o "$T/big.folded" -- "$T/pf" 2 2 30000000 2>"$T/big.err"
rc=$?
cat "$T/big.err"
check "endless answer: record exits as the command did (7), got $rc" [ $rc -eq 7 ]
check "endless answer: the cap said once, with the build id" \
	[ "$(grep -c "ignored debuginfod $id: an answer over 1048576 bytes (the cap: PPROBE_DEBUGINFOD_MAXSIZE)" "$T/big.err")" -eq 1 ]
check "endless answer: the stacks are written, unnamed" grep -q '\[pf\]' "$T/big.folded"
check "endless answer: no cached file of it" test -z "$(find "$T/cache3" -type f -size +1M 2>/dev/null)"
done_testing
