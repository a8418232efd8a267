#!/usr/bin/env bash
# Files the profiled program controls (issue 16): its JIT map as a FIFO, as
# another user's file, as a 3 GB file with no newline, inside a PID
# namespace; a debug section that claims a terabyte. pprobe never hangs on them, never obeys them, says once what it
# ignored, and keeps its output; SIGTERM ends it within seconds.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS/jit_wl
[ -x "$W" ] || skip "no jit_wl workload"
"$W" none 0 || skip "jit_wl cannot run here (x86-64 machine code only)"

cleanup_maps() { for f in "$T"/path.*; do [ -f "$f" ] && rm -f "$(cat "$f")"; done; }
trap 'cleanup_maps; rm -rf "$T" "$T.cache"' EXIT

# run_hwm OUT ERR ARGS...: pprobe ARGS in the background, its peak RSS
# (VmHWM, KiB, read until it ends) in $hwm and its status in $st.
run_hwm() {
	local out=$1 err=$2 p h
	shift 2
	"$PPROBE" "$@" >"$out" 2>"$err" &
	p=$!
	hwm=0
	while kill -0 $p 2>/dev/null; do
		h=$(awk '/^VmHWM:/ { print $2 }' /proc/$p/status 2>/dev/null)
		[ -n "$h" ] && hwm=$h
		sleep 0.05
	done
	wait $p
	st=$?
}

# An ordinary JIT map names the JIT frames: the baseline the others differ from.
run_hwm /dev/null "$T/map.err" record -g -o "$T/map.folded" -- "$W" map 1 "$T/path.map"
base_hwm=$hwm
check "ordinary map: JIT frames named (jitted_spin_[j])" [ "$(folded_sum "$T/map.folded" 'jitted_spin_\[j\]')" -ge 100 ]
check "ordinary map: nothing ignored" not grep -q 'ignored' "$T/map.err"

# The map is a FIFO that nobody writes: opening it for reading would block
# for ever. pprobe ends by itself with its output and says it ignored it.
start=$(date +%s)
timeout -s KILL 60 "$PPROBE" record -g -o "$T/fifo.folded" -- "$W" fifo 1 "$T/path.fifo" 2>"$T/fifo.err"
st=$?
fifo=$(cat "$T/path.fifo")
check "FIFO map: pprobe ended by itself (status $st, not killed: 137)" [ $st -eq 0 ]
check "FIFO map: in seconds ($(($(date +%s) - start)) s)" [ $(($(date +%s) - start)) -lt 30 ]
check "FIFO map: output written" [ "$(folded_sum "$T/fifo.folded")" -ge 100 ]
check "FIFO map: said once" [ "$(grep -c "ignored $fifo: a FIFO" "$T/fifo.err")" -eq 1 ]
check "FIFO map: JIT frames not named" [ "$(folded_sum "$T/fifo.folded" 'jitted_spin')" -eq 0 ]

# trace -g symbolizes as it prints: the same FIFO, the same words.
timeout -s KILL 60 "$PPROBE" trace -g -e 'cpu-clock/period=1000000/' -o "$T/fifo.trace" -- "$W" fifo 1 "$T/path.tfifo" \
	2>"$T/tfifo.err"
st=$?
check "trace, FIFO map: ended by itself (status $st)" [ $st -eq 0 ]
check "trace, FIFO map: stacks printed" grep -q 'cpu-clock' "$T/fifo.trace"
check "trace, FIFO map: said once" [ "$(grep -c "pprobe trace: ignored $(cat "$T/path.tfifo"): a FIFO" "$T/tfifo.err")" -eq 1 ]

# SIGTERM mid-run (timeout -s TERM, 5 s: well after the attach, even under
# ASan; timeout signals pprobe and then its process group, two signals that
# are one request) with such a program: pprobe ends within
# seconds of it, with its output, the refusal said, no child left behind.
start=$(date +%s)
cp "$W" "$T/jit_term"
timeout --preserve-status -k 30 -s TERM 5 "$PPROBE" record -g -o "$T/term.folded" -- "$T/jit_term" fifo 60 "$T/path.term" 2>"$T/term.err"
st=$?
took=$(($(date +%s) - start))
check "SIGTERM: pprobe ended within seconds ($took s)" [ $took -lt 15 ]
check "SIGTERM: status is the command's, killed by SIGTERM (143), got $st" [ $st -eq 143 ]
check "SIGTERM: output written" [ "$(folded_sum "$T/term.folded")" -ge 100 ]
check "SIGTERM: FIFO said" grep -q "ignored $(cat "$T/path.term"): a FIFO" "$T/term.err"
check "SIGTERM: no child left" not pgrep -f "$T/jit_term"

# A 3 GB map (sparse: the program pays nothing) whose last line has no
# newline: read whole line by line it took 39.5 s and 3.2 GB. Read in
# pieces with the cap on bytes read: the first line names the JIT frames,
# the rest is left out after 64 MiB, said once; pprobe's peak RSS (VmHWM:
# its rings count in it) stays within 128 MiB of the ordinary map's run.
run_hwm /dev/null "$T/huge.err" record -g -o "$T/huge.folded" -- "$W" huge 1 "$T/path.huge"
huge=$(cat "$T/path.huge")
check "huge map: exit 0 ($st)" [ $st -eq 0 ]
check "huge map: JIT frames named from its first line" [ "$(folded_sum "$T/huge.folded" 'jitted_spin_\[j\]')" -ge 100 ]
check "huge map: the cap said once, with the file" \
	[ "$(grep -c "ignored $huge: past line 1 (the caps: 1000000 lines, 64 MiB)" "$T/huge.err")" -eq 1 ]
check "huge map: pprobe's peak RSS within 128 MiB of the ordinary map's (${hwm} vs ${base_hwm} KiB; the map is 3 GiB)" \
	[ "$hwm" -gt 0 -a "$base_hwm" -gt 0 -a "$hwm" -lt $((base_hwm + 131072)) ]

# Another user's map (a program that is root writes one owned by nobody): perf
# ignores it ("not owned by current user or root"); so does pprobe, saying so.
"$PPROBE" record -g -o "$T/foreign.folded" -- "$W" foreign 1 "$T/path.foreign" 2>"$T/foreign.err"
foreign=$(cat "$T/path.foreign")
check "foreign map: said once" [ "$(grep -c "ignored $foreign: owned by uid 65534" "$T/foreign.err")" -eq 1 ]
check "foreign map: not read" [ "$(folded_sum "$T/foreign.folded" 'jitted_spin')" -eq 0 ]
check "foreign map: output written" [ "$(folded_sum "$T/foreign.folded")" -ge 100 ]

# A JIT in a PID namespace writes /tmp/perf-1.map (the pid it sees); pprobe
# finds it under /proc/PID/root as perf does, following the command and
# attaching with -p.
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	"$PPROBE" record -g -o "$T/ns.folded" -- unshare --pid --fork --mount-proc "$W" map 1 "$T/path.ns" \
		2>"$T/ns.err"
	check "PID namespace: the map is /tmp/perf-1.map" [ "$(cat "$T/path.ns")" = /tmp/perf-1.map ]
	check "PID namespace (command): JIT frames named" \
		[ "$(folded_sum "$T/ns.folded" 'jitted_spin_\[j\]')" -ge 100 ]
	rm -f /tmp/perf-1.map
	cp "$W" "$T/jit_ns"
	unshare --pid --fork --mount-proc "$T/jit_ns" map 4 "$T/path.ns2" &
	up=$!
	for i in $(seq 50); do pid=$(pgrep -f "^$T/jit_ns") && break; sleep 0.1; done
	sleep 0.5
	"$PPROBE" record -g -p "$pid" -d 1.5 -o "$T/nsp.folded" 2>"$T/nsp.err"
	wait $up
	check "PID namespace (-p $pid): JIT frames named" \
		[ "$(folded_sum "$T/nsp.folded" 'jitted_spin_\[j\]')" -ge 100 ]
	rm -f /tmp/perf-1.map
else
	echo "PID namespace part not run: unshare --pid --fork --mount-proc fails here"
fi

# The symbolization bound: past --symbolize-timeout the frames are named by
# their objects and the summary says so.
"$PPROBE" record -g --symbolize-timeout 0.000001 -o "$T/to.folded" -- "$W" map 1 "$T/path.to" 2>"$T/to.err"
check "timeout: said" grep -q 'symbolizing took longer than --symbolize-timeout' "$T/to.err"
check "timeout: output written, frames by their objects" [ "$(folded_sum "$T/to.folded" 'jit_wl;\[')" -ge 100 ]
check "timeout: bad value is a usage error" \
	[ "$("$PPROBE" record --symbolize-timeout x -- true >/dev/null 2>&1; echo $?)" -eq 2 ]

# A compressed .debug_info whose header claims 2^40 bytes: refused in one
# line, nothing allocated, the rest of the file (symbols, .eh_frame) used.
if command -v objcopy >/dev/null && command -v python3 >/dev/null &&
	objcopy --compress-debug-sections=zlib "$W" "$T/jitz" 2>/dev/null; then
	python3 - "$T/jitz" <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
sh = lambda i: struct.unpack_from('<IIQQQQ', b, shoff + i * shentsize)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    name, typ, flags, addr, off, size = sh(i)
    if b[stroff + name:b.index(0, stroff + name)] == b'.debug_info' and flags & 0x800:
        struct.pack_into('<Q', b, off + 8, 1 << 40)   # Elf64_Chdr.ch_size
        open(p, 'wb').write(b)
        sys.exit(0)
sys.exit('no compressed .debug_info')
PY
	check "crafted: .debug_info claims 2^40" [ $? -eq 0 ]
	"$PPROBE" -x "$T/jitz" -V main >"$T/v.out" 2>"$T/v.err"
	st=$?
	check "-V: refused (status $st)" [ $st -eq 1 ]
	check "-V: one line saying why" [ "$(wc -l <"$T/v.err")" -eq 1 ] && grep -q 'claims 1099511627776 bytes' "$T/v.err"
	"$PPROBE" record -g -o "$T/z.folded" -- "$T/jitz" map 1 "$T/path.z" 2>"$T/z.err"
	check "record: said once" [ "$(grep -c "ignored $T/jitz: compressed section .debug_info claims 1099511627776" "$T/z.err")" -eq 1 ]
	check "record: still unwound and named from .eh_frame and symbols" \
		[ "$(folded_sum "$T/z.folded" 'start_thread;jitted_spin_\[j\]')" -ge 100 ]
else
	echo "compressed-section part not run: objcopy or python3 missing"
fi
done_testing
